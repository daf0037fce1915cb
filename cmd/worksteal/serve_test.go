package main

import (
	"fmt"
	"strings"
	"syscall"
	"testing"

	"github.com/worksteal/worksteal/cmd/worksteal/internal/e2e"
)

// Two servers on one store overwrite each other's files: the second serve
// is refused at once, with an error that names the store and the holder,
// and the first keeps serving (a job submitted afterwards runs).
func TestSecondServeOnOneStoreIsRefused(t *testing.T) {
	first := &e2e.Server{Name: "first", Addr: fmt.Sprintf("127.0.0.1:%d", e2e.FreePort(t)), Store: t.TempDir()}
	first.Start(t)
	second := e2e.Launch(t, "second", "serve", "--listen", fmt.Sprintf("127.0.0.1:%d", e2e.FreePort(t)), "--store", first.Store, "--name", "second")
	code := second.Wait(t)
	out := second.Out.String()
	if code == 0 {
		t.Fatalf("a second serve on the store of a running one exited 0:\n%s", out)
	}
	for _, want := range []string{"--store " + first.Store, "in use by another worksteal serve", fmt.Sprintf("pid %d", first.P.Cmd.Process.Pid)} {
		if !strings.Contains(out, want) {
			t.Errorf("the refusal does not say %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "JetStream on") {
		t.Errorf("the second serve started a server:\n%s", out)
	}
	// The first still serves: a batch runs on a worker of it.
	e2e.Launch(t, "worker", "worker", "--nats", first.URL(), "-j", "2", "--ack-wait", e2e.AckWait).WaitFor(t, "serving")
	b := e2e.NewBatch(t, 4)
	run := b.Run(t, first.URL())
	if code := run.Wait(t); code != 0 {
		t.Fatalf("run on the first server exited %d:\n%s", code, run.Out.String())
	}
	if n := b.Executions(); n != 4 {
		t.Fatalf("%d executions, want 4", n)
	}
	// Once the first has stopped, the store is free again.
	first.P.Signal(t, syscall.SIGTERM)
	first.P.Wait(t)
	first.Start(t)
}
