package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/worksteal/worksteal/cmd/worksteal/internal/e2e"
)

// TestRequireRunsOnlyOnLabelledWorkers: through the binary, a batch run
// with --require gpu=1 runs every command on the worker started with
// --label gpu=1, none on the other; a requirement no live worker meets is
// refused at submit, naming it, before any command runs.
func TestRequireRunsOnlyOnLabelledWorkers(t *testing.T) {
	t.Parallel()
	srv := &e2e.Server{Name: "labels", Addr: fmt.Sprintf("127.0.0.1:%d", e2e.FreePort(t)), Store: t.TempDir()}
	srv.Start(t)
	for _, w := range [][]string{{"plain"}, {"gpu", "--label", "gpu=1", "--label", "mem=64G"}} {
		args := append([]string{"worker", "--nats", srv.URL(), "-j", "2", "--ack-wait", e2e.AckWait, "--name"}, w...)
		e2e.Launch(t, "worker "+w[0], args...).WaitFor(t, "serving sh")
	}
	dir := t.TempDir()
	ran := filepath.Join(dir, "ran")
	var in strings.Builder
	for i := range 12 {
		fmt.Fprintf(&in, "echo %d $WORKSTEAL_WORKER >> %s\n", i, ran)
	}
	input := filepath.Join(dir, "input")
	if err := os.WriteFile(input, []byte(in.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	run := e2e.Launch(t, "run", "run", "--nats", srv.URL(), "--ack-wait", e2e.AckWait, "--require", "gpu=1", "-a", input)
	if code := run.Wait(t); code != 0 {
		t.Fatalf("run --require gpu=1 exited %d:\n%s", code, run.Out.String())
	}
	data, _ := os.ReadFile(ran)
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) != 12 {
		t.Errorf("%d commands ran; want 12:\n%s", len(lines), data)
	}
	for _, l := range lines {
		if !strings.HasSuffix(l, " gpu") {
			t.Errorf("a command that requires gpu=1 ran as %q; want on worker gpu only", l)
		}
	}

	os.Remove(ran)
	run = e2e.Launch(t, "run", "run", "--nats", srv.URL(), "--ack-wait", e2e.AckWait, "--require", "gpu=2", "--job", "nogpu2", "-a", input)
	code := run.Wait(t)
	if code == 0 || !strings.Contains(run.Out.String(), "no live worker can run the task") || !strings.Contains(run.Out.String(), "gpu=2") {
		t.Errorf("run --require gpu=2 (no such worker) exited %d; want a refusal naming the requirement:\n%s", code, run.Out.String())
	}
	if _, err := os.Stat(ran); err == nil {
		t.Error("a command ran although its requirement was refused")
	}
	bad := e2e.Launch(t, "worker", "worker", "--nats", srv.URL(), "--label", "gpu")
	if code := bad.Wait(t); code == 0 || !strings.Contains(bad.Out.String(), "--label") {
		t.Errorf("worker --label gpu exited %d; want a usage error naming --label:\n%s", code, bad.Out.String())
	}
}
