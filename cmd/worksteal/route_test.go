package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRequireRunsOnlyOnLabelledWorkers: through the binary, a batch run
// with --require gpu=1 runs every command on the worker started with
// --label gpu=1, none on the other; a requirement no live worker meets is
// refused at submit, naming it, before any command runs.
func TestRequireRunsOnlyOnLabelledWorkers(t *testing.T) {
	t.Parallel()
	srv := &server{name: "labels", addr: fmt.Sprintf("127.0.0.1:%d", freePort(t)), store: t.TempDir()}
	srv.start(t)
	for _, w := range [][]string{{"plain"}, {"gpu", "--label", "gpu=1", "--label", "mem=64G"}} {
		args := append([]string{"worker", "--nats", srv.url(), "-j", "2", "--ack-wait", ackWait, "--name"}, w...)
		launch(t, "worker "+w[0], args...).waitFor(t, "serving sh")
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
	run := launch(t, "run", "run", "--nats", srv.url(), "--ack-wait", ackWait, "--require", "gpu=1", "-a", input)
	if code := run.wait(t); code != 0 {
		t.Fatalf("run --require gpu=1 exited %d:\n%s", code, run.out.String())
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
	run = launch(t, "run", "run", "--nats", srv.url(), "--ack-wait", ackWait, "--require", "gpu=2", "--job", "nogpu2", "-a", input)
	code := run.wait(t)
	if code == 0 || !strings.Contains(run.out.String(), "no live worker can run the task") || !strings.Contains(run.out.String(), "gpu=2") {
		t.Errorf("run --require gpu=2 (no such worker) exited %d; want a refusal naming the requirement:\n%s", code, run.out.String())
	}
	if _, err := os.Stat(ran); err == nil {
		t.Error("a command ran although its requirement was refused")
	}
	bad := launch(t, "worker", "worker", "--nats", srv.url(), "--label", "gpu")
	if code := bad.wait(t); code == 0 || !strings.Contains(bad.out.String(), "--label") {
		t.Errorf("worker --label gpu exited %d; want a usage error naming --label:\n%s", code, bad.out.String())
	}
}
