package attacktest

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/worksteal/worksteal/cmd/worksteal/internal/e2e"
	"github.com/worksteal/worksteal/internal/testdeadline"
)

// TestServeInitGivesWorkersKeysOfTheirOwn: serve init --workers gpu1 writes
// gpu1's key; `worksteal worker --creds gpu1.nk`, without --name, serves as
// gpu1 (the name its key is bound to) and runs a job; the same key may not
// register under another name.
func TestServeInitGivesWorkersKeysOfTheirOwn(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "secrets")
	code, out, errs := e2e.Run(t, "", nil, "serve", "init", "--dir", dir, "--host", "127.0.0.1", "--workers", "gpu1")
	if code != 0 || !strings.Contains(out, "gpu1.nk (registers as gpu1 only)") {
		t.Fatalf("serve init --workers gpu1: exit %d, %q, %q", code, out, errs)
	}
	_, url := e2e.Secrets(dir).Serve(t)
	tls := []string{"--nats", url, "--tls-ca", filepath.Join(dir, "ca.pem")}
	worker := e2e.Start(t, "", nil, append([]string{"worker", "--creds", filepath.Join(dir, "gpu1.nk")}, tls...)...)
	sub := e2e.Start(t, "echo hi\n", nil, append([]string{"run", "--job", "j", "--creds", filepath.Join(dir, "submitter.nk")}, tls...)...)
	select {
	case <-sub.Done:
	case <-worker.Done:
		t.Fatalf("the worker with gpu1's key and no --name stopped: %q", worker.Stderr)
	case <-time.After(testdeadline.Left(t)):
		t.Fatal("the job did not end")
	}
	code, out, errs = e2e.Run(t, "", nil, append([]string{"job", "results", "j", "--json", "--creds", filepath.Join(dir, "submitter.nk")}, tls...)...)
	if code != 0 || !strings.Contains(out, `"worker":"gpu1"`) {
		t.Errorf("job results: exit %d, %q, %q; want the task run by gpu1", code, out, errs)
	}
	impostor := e2e.Start(t, "", nil, append([]string{"worker", "--name", "gpu9", "--creds", filepath.Join(dir, "gpu1.nk")}, tls...)...)
	select {
	case <-impostor.Done:
		if errs := impostor.Stderr.String(); !strings.Contains(errs, "ws_workers.gpu9") && !strings.Contains(errs, `"ws.alive.gpu9.`) {
			t.Errorf("gpu1's key registering as gpu9: stderr %q; want the refusal named (gpu9's entry or pings)", impostor.Stderr)
		}
	case <-time.After(testdeadline.Left(t)):
		t.Fatal("gpu1's key registering as gpu9 still runs")
	}
}

// TestRevokingOneWorkerTouchesNoOther: serve init gives each worker a key
// of its own by default (worker1.nk without --workers; no shared
// worker.nk unless asked for, with a warning). With w1 and w2 from
// --workers, both serve; w1 is revoked and serve restarted: w1's key (a
// copy its machine kept) is refused, w2 keeps serving and runs a job.
func TestRevokingOneWorkerTouchesNoOther(t *testing.T) {
	def := filepath.Join(t.TempDir(), "default")
	if code, out, errs := e2e.Run(t, "", nil, "serve", "init", "--dir", def, "--host", "127.0.0.1", "--no-tls"); code != 0 || !strings.Contains(out, "worker1.nk (registers as worker1 only)") || strings.Contains(out, "worker.nk") {
		t.Errorf("serve init without --workers: exit %d, %q, %q; want worker1.nk and no shared key", code, out, errs)
	}
	if _, err := os.Stat(filepath.Join(def, "worker.nk")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("serve init wrote the shared worker.nk without --shared-worker-key (%v)", err)
	}
	shared := filepath.Join(t.TempDir(), "shared")
	if code, out, _ := e2e.Run(t, "", nil, "serve", "init", "--dir", shared, "--no-tls", "--shared-worker-key"); code != 0 || !strings.Contains(out, "warning: "+filepath.Join(shared, "worker.nk")+" is one key for every worker") {
		t.Errorf("serve init --shared-worker-key: exit %d, %q; want worker.nk with a warning", code, out)
	}
	if _, _, errs := e2e.Run(t, "", nil, "worker", "--nats", "nats://127.0.0.1:1", "--creds", filepath.Join(shared, "worker.nk")); !strings.Contains(errs, "warning: "+filepath.Join(shared, "worker.nk")+" is the key every worker shares") {
		t.Errorf("a worker with the shared key: stderr %q; want a warning", errs)
	}

	dir := filepath.Join(t.TempDir(), "secrets")
	if code, out, errs := e2e.Run(t, "", nil, "serve", "init", "--dir", dir, "--host", "127.0.0.1", "--no-tls", "--workers", "w1,w2"); code != 0 || strings.Contains(out, "worker.nk") {
		t.Fatalf("serve init --workers w1,w2: exit %d, %q, %q", code, out, errs)
	}
	store := filepath.Join(t.TempDir(), "js")
	startServe := func() (*e2e.Proc, string) {
		p := e2e.Start(t, "", nil, "serve", "--config", filepath.Join(dir, "server.conf"), "--listen", "127.0.0.1:0", "--store", store)
		return p, e2e.WaitFor(t, p.Stdout, `JetStream on (\S+)`)[1]
	}
	serve, url := startServe()
	key := func(name string) string { return filepath.Join(dir, name+".nk") }
	startWorker := func(url, creds string) *e2e.Proc {
		return e2e.Start(t, "", nil, "worker", "--nats", url, "-j", "1", "--creds", creds)
	}
	w1, w2 := startWorker(url, key("w1")), startWorker(url, key("w2"))
	runJob := func(url, id string) (int, string, string) {
		return e2e.Run(t, "echo "+id+"\n", nil, "run", "--nats", url, "--creds", key("submitter"), "--job", id)
	}
	if code, out, errs := runJob(url, "j1"); code != 0 || out != "j1\n" {
		t.Fatalf("a job with w1 and w2: exit %d, %q, %q", code, out, errs)
	}
	kept := filepath.Join(t.TempDir(), "w1.nk") // w1's machine keeps its copy
	data, err := os.ReadFile(key("w1"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(kept, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if code, out, errs := e2e.Run(t, "", nil, "serve", "credentials", "revoke", "--dir", dir, "--name", "w1"); code != 0 || !strings.Contains(out, "revoked w1") {
		t.Fatalf("revoke w1: exit %d, %q, %q", code, out, errs)
	}
	for _, p := range []*e2e.Proc{serve, w1, w2} {
		p.Cmd.Process.Signal(syscall.SIGTERM)
		<-p.Done
	}
	serve, url = startServe()
	w1 = startWorker(url, kept)
	select {
	case <-w1.Done:
	case <-time.After(testdeadline.Left(t)):
		t.Fatalf("w1's revoked key still serves: stderr %q", w1.Stderr)
	}
	if code := w1.Cmd.ProcessState.ExitCode(); code == 0 || !strings.Contains(w1.Stderr.String(), "refused the credentials") {
		t.Errorf("w1 after its key was revoked: exit %d, stderr %q; want a refusal", code, w1.Stderr)
	}
	startWorker(url, key("w2"))
	if code, out, errs := runJob(url, "j2"); code != 0 || out != "j2\n" {
		t.Errorf("a job after w1 was revoked: exit %d, %q, %q; want w2 to run it", code, out, errs)
	}
	code, out, errs := e2e.Run(t, "", nil, "job", "results", "j2", "--json", "--nats", url, "--creds", key("submitter"))
	if code != 0 || !strings.Contains(out, `"worker":"w2"`) {
		t.Errorf("job results j2: exit %d, %q, %q; want the task run by w2", code, out, errs)
	}
	if !strings.Contains(serve.Stdout.String()+serve.Stderr.String(), "authentication 4 nkey users") {
		t.Errorf("serve after the revocation: %q; want 4 users (submitter, observer, admin, w2)", serve.Stdout)
	}
}
