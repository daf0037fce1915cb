package main

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/worksteal/worksteal/cmd/worksteal/internal/e2e"
)

// TestWorkerUnderPressureTakesNoTasks: through the binary, a worker started
// with --memfree above the machine's memory takes no task of a batch (it
// says why on stderr); the other worker runs them all. The batch requires
// cores=N, a label every worker measures of itself, so the measured labels
// reach the registry and the routing. Bad --load and --memfree values are
// refused, naming the flag.
func TestWorkerUnderPressureTakesNoTasks(t *testing.T) {
	t.Parallel()
	srv := &e2e.Server{Name: "pressure", Addr: fmt.Sprintf("127.0.0.1:%d", e2e.FreePort(t)), Store: t.TempDir()}
	srv.Start(t)
	loaded := e2e.Launch(t, "worker loaded", "worker", "--nats", srv.URL(), "-j", "2", "--ack-wait", e2e.AckWait, "--name", "loaded", "--memfree", "1P")
	loaded.WaitFor(t, "serving sh")
	loaded.WaitFor(t, `taking no new tasks: .* < --memfree 1073741824 MiB`)
	e2e.Launch(t, "worker free", "worker", "--nats", srv.URL(), "-j", "2", "--ack-wait", e2e.AckWait, "--name", "free").WaitFor(t, "serving sh")

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
	cores := fmt.Sprintf("cores=%d", runtime.NumCPU())
	run := e2e.Launch(t, "run", "run", "--nats", srv.URL(), "--ack-wait", e2e.AckWait, "--require", cores, "-a", input)
	if code := run.Wait(t); code != 0 {
		t.Fatalf("run --require %s exited %d:\n%s", cores, code, run.Out.String())
	}
	data, _ := os.ReadFile(ran)
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) != 12 {
		t.Errorf("%d commands ran; want 12:\n%s", len(lines), data)
	}
	for _, l := range lines {
		if !strings.HasSuffix(l, " free") {
			t.Errorf("a command ran as %q; want every one on worker free (loaded has less memory than --memfree)", l)
		}
	}

	for _, bad := range [][]string{{"--load", "lots"}, {"--memfree", "-2G"}} {
		p := e2e.Launch(t, "worker", append([]string{"worker", "--nats", srv.URL()}, bad...)...)
		if code := p.Wait(t); code == 0 || !strings.Contains(p.Out.String(), bad[0]) {
			t.Errorf("worker %s %s exited %d; want a usage error naming %s:\n%s", bad[0], bad[1], code, bad[0], p.Out.String())
		}
	}
}
