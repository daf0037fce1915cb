package main

import (
	"fmt"
	"strings"
	"syscall"
	"testing"
)

// Two servers on one store overwrite each other's files: the second serve
// is refused at once, with an error that names the store and the holder,
// and the first keeps serving (a job submitted afterwards runs).
func TestSecondServeOnOneStoreIsRefused(t *testing.T) {
	first := &server{name: "first", addr: fmt.Sprintf("127.0.0.1:%d", freePort(t)), store: t.TempDir()}
	first.start(t)
	second := launch(t, "second", "serve", "--listen", fmt.Sprintf("127.0.0.1:%d", freePort(t)), "--store", first.store, "--name", "second")
	code := second.wait(t)
	out := second.out.String()
	if code == 0 {
		t.Fatalf("a second serve on the store of a running one exited 0:\n%s", out)
	}
	for _, want := range []string{"--store " + first.store, "in use by another worksteal serve", fmt.Sprintf("pid %d", first.p.cmd.Process.Pid)} {
		if !strings.Contains(out, want) {
			t.Errorf("the refusal does not say %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "JetStream on") {
		t.Errorf("the second serve started a server:\n%s", out)
	}
	// The first still serves: a batch runs on a worker of it.
	launch(t, "worker", "worker", "--nats", first.url(), "-j", "2", "--ack-wait", ackWait).waitFor(t, "serving")
	b := newBatch(t, 4)
	run := b.run(t, first.url())
	if code := run.wait(t); code != 0 {
		t.Fatalf("run on the first server exited %d:\n%s", code, run.out.String())
	}
	if n := b.executions(); n != 4 {
		t.Fatalf("%d executions, want 4", n)
	}
	// Once the first has stopped, the store is free again.
	first.p.signal(t, syscall.SIGTERM)
	first.p.wait(t)
	first.start(t)
}
