package attacktest

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/worksteal/worksteal/cmd/worksteal/internal/e2e"
	"github.com/worksteal/worksteal/internal/testdeadline"
)

// waitRefusals waits until the refusal counts of the dashboard at dashURL
// (its /api/state, which the recorder's counts on ws.refusals fill) hold
// at least want, and returns them.
func waitRefusals(t *testing.T, dashURL string, want map[string]int64) map[string]int64 {
	t.Helper()
	var refusals map[string]int64
	testdeadline.Until(t, "the dashboard's refusal counts", 50*time.Millisecond, func() bool {
		resp, err := http.Get(dashURL + "api/state")
		if err != nil {
			return false
		}
		defer resp.Body.Close()
		var st struct {
			Refusals map[string]int64 `json:"refusals"`
		}
		json.NewDecoder(resp.Body).Decode(&st)
		refusals = st.Refusals
		for k, n := range want {
			if refusals[k] < n {
				return false
			}
		}
		return true
	})
	return refusals
}

// TestServeVerboseKeepsItsLogFile: serve -v with a log_file in its
// configuration (as an operator writes one) writes the server's log to
// that file for as long as it runs, while serve still reads the server's
// permission violations: a worker's real key speaks for another worker,
// and the refusal is logged on serve's stderr by name, counted on the
// dashboard, and in the log file beside the server's own notices.
func TestServeVerboseKeepsItsLogFile(t *testing.T) {
	s := e2e.InitSecrets(t, []string{"--mtls"})
	logFile := filepath.Join(t.TempDir(), "nats.log")
	conf, err := os.OpenFile(s.Config(), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conf.WriteString("\nlog_file: " + strconv.Quote(logFile) + "\n"); err != nil {
		t.Fatal(err)
	}
	conf.Close()
	serve, url := s.Serve(t, "-v", "--http", "127.0.0.1:0")
	dashURL := e2e.WaitFor(t, serve.Stdout, `dashboard on (http://\S+/)`)[1]

	worker := connectNamed(t, url, s.Dir(), "worker1")
	worker.nc.Publish("ws.held.worker2.x", []byte(`[]`))
	if !worker.wasRefused(t, "ws.held.worker2.x") {
		t.Fatal("worker1's key: a held list as worker2 was not refused")
	}
	e2e.WaitFor(t, serve.Stderr, `the server refused worker1 \(worker\) a publish to "ws\.held\.worker2\.x": server/publish-denied`)
	waitRefusals(t, dashURL, map[string]int64{"worker/server/publish-denied": 2}) // and wasRefused's sentinel

	var log []byte
	testdeadline.Until(t, "the server's log file holds its notices and the refusal", 50*time.Millisecond, func() bool {
		log, _ = os.ReadFile(logFile)
		return bytes.Contains(log, []byte("Server is ready")) && bytes.Contains(log, []byte(`Publish Violation - Subject "ws.held.worker2.x"`))
	})
	t.Logf("%d bytes in the server's log file", len(log))
}
