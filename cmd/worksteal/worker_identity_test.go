package main

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/worksteal/worksteal/internal/testdeadline"
)

// TestServeInitGivesWorkersKeysOfTheirOwn: serve init --workers gpu1 writes
// gpu1's key; `worksteal worker --creds gpu1.nk`, without --name, serves as
// gpu1 (the name its key is bound to) and runs a job; the same key may not
// register under another name.
func TestServeInitGivesWorkersKeysOfTheirOwn(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "secrets")
	code, out, errs := run(t, "", nil, "serve", "init", "--dir", dir, "--host", "127.0.0.1", "--workers", "gpu1")
	if code != 0 || !strings.Contains(out, "gpu1.nk (registers as gpu1 only)") {
		t.Fatalf("serve init --workers gpu1: exit %d, %q, %q", code, out, errs)
	}
	serve := start(t, "", nil, "serve", "--config", filepath.Join(dir, "server.conf"), "--listen", "127.0.0.1:0", "--store", filepath.Join(t.TempDir(), "js"))
	url := waitFor(t, serve.stdout, `JetStream on (\S+)`)[1]
	tls := []string{"--nats", url, "--tls-ca", filepath.Join(dir, "ca.pem")}
	worker := start(t, "", nil, append([]string{"worker", "--creds", filepath.Join(dir, "gpu1.nk")}, tls...)...)
	sub := start(t, "echo hi\n", nil, append([]string{"run", "--job", "j", "--creds", filepath.Join(dir, "submitter.nk")}, tls...)...)
	select {
	case <-sub.done:
	case <-worker.done:
		t.Fatalf("the worker with gpu1's key and no --name stopped: %q", worker.stderr)
	case <-time.After(testdeadline.Left(t)):
		t.Fatal("the job did not end")
	}
	code, out, errs = run(t, "", nil, append([]string{"job", "results", "j", "--json", "--creds", filepath.Join(dir, "submitter.nk")}, tls...)...)
	if code != 0 || !strings.Contains(out, `"worker":"gpu1"`) {
		t.Errorf("job results: exit %d, %q, %q; want the task run by gpu1", code, out, errs)
	}
	impostor := start(t, "", nil, append([]string{"worker", "--name", "gpu9", "--creds", filepath.Join(dir, "gpu1.nk")}, tls...)...)
	select {
	case <-impostor.done:
		if !strings.Contains(impostor.stderr.String(), "ws_workers.gpu9") {
			t.Errorf("gpu1's key registering as gpu9: stderr %q; want the refusal named", impostor.stderr)
		}
	case <-time.After(testdeadline.Left(t)):
		t.Fatal("gpu1's key registering as gpu9 still runs")
	}
}
