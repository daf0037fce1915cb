package attacktest

import (
	"regexp"
	"testing"

	"github.com/worksteal/worksteal/cluster"
	"github.com/worksteal/worksteal/cmd/worksteal/internal/e2e"
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
	secrets := e2e.InitSecrets(t, []string{"--mtls"}, "alice")
	dir := secrets.Dir()
	serve, url := secrets.Serve(t, "--http", "127.0.0.1:0")
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
	refusals := waitRefusals(t, dashURL, want)
	t.Logf("refusals: %v", refusals)
}
