package cli

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/worksteal/worksteal/internal/clusterobs"
	"github.com/worksteal/worksteal/internal/testdeadline"
)

// TestRunHTTPDashboard: "run --http" serves the dashboard of the local run
// while it runs: the batch as one job with its progress, the machine as one
// worker with the run's slots, and a job far over the median as a
// straggler. The dashboard stops with the run. (On a loaded machine a
// 0.1 s job can also run past twice the median and be shown as a straggler,
// rightly: the test asks that job 4 be among them, not that it be alone.)
func TestRunHTTPDashboard(t *testing.T) {
	dir := t.TempDir()
	var cmds strings.Builder
	for i := 1; i <= 13; i++ {
		if i == 4 {
			cmds.WriteString("sleep 3\n")
		} else {
			cmds.WriteString("sleep 0.1\n")
		}
	}
	file := filepath.Join(dir, "cmds.txt")
	os.WriteFile(file, []byte(cmds.String()), 0o644)
	var stdout, stderr syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- Run(context.Background(), []string{"run", "-j", "2", "--http", "127.0.0.1:0", "-a", file}, strings.NewReader(""), &stdout, &stderr)
	}()
	url := waitOutput(t, &stderr, `dashboard on (http://\S+)`)[1]

	var st clusterobs.State
	deadline := time.Now().Add(testdeadline.Left(t))
	for {
		resp, err := http.Get(url + "api/state")
		if err == nil {
			st = clusterobs.State{}
			json.NewDecoder(resp.Body).Decode(&st)
			resp.Body.Close()
		}
		if straggler4(st) != nil || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if len(st.Jobs) != 1 || st.Jobs[0].Total != 13 || st.Jobs[0].Succeeded < 3 {
		t.Errorf("jobs = %+v; want one job of 13 with at least 3 done", st.Jobs)
	}
	if len(st.Workers) != 1 || st.Workers[0].Slots != 2 || st.Workers[0].Status != "up" {
		t.Errorf("workers = %+v; want this machine, up, with 2 slots", st.Workers)
	}
	if s := straggler4(st); s == nil || s.Ratio <= 2 {
		t.Errorf("stragglers = %+v; want job 4 among them, over 2 × the median", st.Stragglers)
	}
	if code := <-done; code != 0 {
		t.Fatalf("run: exit %d, stderr %q", code, stderr.String())
	}
	if _, err := http.Get(url + "api/state"); err == nil {
		t.Error("the dashboard still answers after the run ended")
	}
}

// straggler4 returns job 4's entry among st's stragglers, or nil.
func straggler4(st clusterobs.State) *clusterobs.Straggler {
	for i := range st.Stragglers {
		if st.Stragglers[i].Task == "4" {
			return &st.Stragglers[i]
		}
	}
	return nil
}
