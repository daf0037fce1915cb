package main

import (
	"fmt"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"github.com/worksteal/worksteal/cmd/worksteal/internal/e2e"
)

// A batch whose requirement only a lost worker met (killed seconds before
// the submit, its registry entry still there) is accepted, and then says
// on stderr what it waits for, off a terminal too; job status says it as
// well; --wait-timeout ends the wait with an error that names it, and the
// job stays recorded.
func TestRequirementOnlyALostWorkerMetIsReported(t *testing.T) {
	t.Parallel()
	srv := &e2e.Server{Name: "stall", Addr: fmt.Sprintf("127.0.0.1:%d", e2e.FreePort(t)), Store: t.TempDir()}
	srv.Start(t)
	gpu := e2e.Launch(t, "worker gpu", "worker", "--nats", srv.URL(), "-j", "1", "--ack-wait", e2e.AckWait, "--name", "gpu", "--label", "gpu=1")
	gpu.WaitFor(t, "serving sh")
	gpu.Signal(t, syscall.SIGKILL)
	<-gpu.Done
	run := e2e.Launch(t, "run", "run", "--nats", srv.URL(), "--require", "gpu=1", "--job", "needsgpu", "--wait-timeout", "3s", "echo", ":::", "a", "b")
	line := run.WaitFor(t, `waits: (no live worker has gpu=1 \(handler sh\) since \d\d:\d\d:\d\d: 2 tasks wait)`)
	code := run.Wait(t)
	out := run.Out.String()
	if code == 0 || !strings.Contains(out, "--wait-timeout 3s") || !strings.Contains(out, "needsgpu") {
		t.Errorf("run exited %d; want a failure after --wait-timeout that names it and the job:\n%s", code, out)
	}
	status := e2e.Launch(t, "job status", "job", "status", "needsgpu", "--nats", srv.URL())
	if c := status.Wait(t); c != 0 || !regexp.MustCompile(`waits: no live worker has gpu=1`).MatchString(status.Out.String()) {
		t.Errorf("job status: exit %d; want it to say what the job waits for (%q):\n%s", c, line[1], status.Out.String())
	}
	// A worker that meets it comes: the same command follows the job to its end.
	e2e.Launch(t, "worker gpu2", "worker", "--nats", srv.URL(), "-j", "1", "--name", "gpu2", "--label", "gpu=1").WaitFor(t, "serving sh")
	again := e2e.Launch(t, "run again", "run", "--nats", srv.URL(), "--require", "gpu=1", "--job", "needsgpu", "--wait-timeout", "3s", "echo", ":::", "a", "b")
	if c := again.Wait(t); c != 0 {
		t.Errorf("the same run with a capable worker: exit %d:\n%s", c, again.Out.String())
	}
}
