package attacktest

import (
	"encoding/json"
	"net/http"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/worksteal/worksteal/cluster"
	"github.com/worksteal/worksteal/cmd/worksteal/internal/e2e"
	"github.com/worksteal/worksteal/internal/testdeadline"
)

// TestServerRefusalsAreLoggedAndCounted: a person (alice) and a worker
// (worker1), each with the real key serve init or serve credentials add
// made, send what their permissions deny: alice asks for the task
// stream's info (20 times) and subscribes to the recorder's requests;
// worker1 speaks for another worker (its held list) and subscribes to the
// recorder's requests. serve's log names each holder and role once per
// subject (then counts), and the dashboard's refusal counts, which the
// recorder publishes on ws.refusals, hold them by role and reason.
func TestServerRefusalsAreLoggedAndCounted(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "secrets")
	if code, _, errs := e2e.Run(t, "", nil, "serve", "init", "--dir", dir, "--host", "127.0.0.1", "--mtls"); code != 0 {
		t.Fatalf("serve init: exit %d, %s", code, errs)
	}
	if code, _, errs := e2e.Run(t, "", nil, "serve", "credentials", "add", "--dir", dir, "--role", "submitter", "--name", "alice"); code != 0 {
		t.Fatalf("credentials add alice: exit %d, %q", code, errs)
	}
	serve := e2e.Start(t, "", nil, "serve", "--config", filepath.Join(dir, "server.conf"), "--listen", "127.0.0.1:0", "--store", filepath.Join(t.TempDir(), "js"),
		"--http", "127.0.0.1:0")
	url := e2e.WaitFor(t, serve.Stdout, `JetStream on (\S+)`)[1]
	dashURL := e2e.WaitFor(t, serve.Stdout, `dashboard on (http://\S+/)`)[1]

	alice := connectHolder(t, url, dir, "alice", cluster.RoleSubmitter)
	for range 20 {
		alice.nc.Publish("$JS.API.STREAM.INFO.ws_tasks", nil)
	}
	if !alice.wasRefused(t, "$JS.API.STREAM.INFO.ws_tasks") {
		t.Fatal("alice's key: $JS.API.STREAM.INFO.ws_tasks was not refused")
	}
	if _, err := alice.nc.SubscribeSync("ws.rec.>"); err != nil {
		t.Fatal(err)
	}
	worker := connectNamed(t, url, dir, "worker1")
	worker.nc.Publish("ws.held.worker2.x", []byte(`[]`))
	if !worker.wasRefused(t, "ws.held.worker2.x") {
		t.Fatal("worker1's key: a held list as worker2 was not refused")
	}
	if _, err := worker.nc.SubscribeSync("ws.rec.>"); err != nil {
		t.Fatal(err)
	}
	alice.nc.Flush()
	worker.nc.Flush()

	// serve's log names the holder and the role, once per subject.
	e2e.WaitFor(t, serve.Stderr, `the server refused alice \(person\) a publish to "\$JS\.API\.STREAM\.INFO\.ws_tasks": server/publish-denied`)
	e2e.WaitFor(t, serve.Stderr, `the server refused alice \(person\) a publish to "\$JS\.API\.STREAM\.INFO\.ws_tasks" 10 times`)
	e2e.WaitFor(t, serve.Stderr, `the server refused alice \(person\) a subscription to "ws\.rec\.>": server/subscribe-denied`)
	e2e.WaitFor(t, serve.Stderr, `the server refused worker1 \(worker\) a publish to "ws\.held\.worker2\.x": server/publish-denied`)
	e2e.WaitFor(t, serve.Stderr, `the server refused worker1 \(worker\) a subscription to "ws\.rec\.>": server/subscribe-denied`)
	if n := len(regexp.MustCompile(`alice \(person\) a publish to "\$JS\.API\.STREAM\.INFO\.ws_tasks": `).FindAllString(serve.Stderr.String(), -1)); n != 1 {
		t.Errorf("alice's 20 refused publishes logged %d times one by one, want once (then counts):\n%s", n, serve.Stderr)
	}

	// The dashboard counts them by role and reason.
	want := map[string]int64{
		"person/server/publish-denied":   21, // 20 and wasRefused's sentinel
		"person/server/subscribe-denied": 1,
		"worker/server/publish-denied":   2,
		"worker/server/subscribe-denied": 1,
	}
	var refusals map[string]int64
	testdeadline.Until(t, "the dashboard's counts of the server's refusals", 50*time.Millisecond, func() bool {
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
	t.Logf("refusals: %v", refusals)
}
