package main

import (
	"fmt"
	"regexp"
	"strings"
	"syscall"
	"testing"
)

// A batch whose requirement only a lost worker met (killed seconds before
// the submit, its registry entry still there) is accepted, and then says
// on stderr what it waits for, off a terminal too; job status says it as
// well; --wait-timeout ends the wait with an error that names it, and the
// job stays recorded.
func TestRequirementOnlyALostWorkerMetIsReported(t *testing.T) {
	t.Parallel()
	srv := &server{name: "stall", addr: fmt.Sprintf("127.0.0.1:%d", freePort(t)), store: t.TempDir()}
	srv.start(t)
	gpu := launch(t, "worker gpu", "worker", "--nats", srv.url(), "-j", "1", "--ack-wait", ackWait, "--name", "gpu", "--label", "gpu=1")
	gpu.waitFor(t, "serving sh")
	gpu.signal(t, syscall.SIGKILL)
	<-gpu.done
	run := launch(t, "run", "run", "--nats", srv.url(), "--require", "gpu=1", "--job", "needsgpu", "--wait-timeout", "3s", "echo", ":::", "a", "b")
	line := run.waitFor(t, `waits: (no live worker has gpu=1 \(handler sh\) since \d\d:\d\d:\d\d: 2 tasks wait)`)
	code := run.wait(t)
	out := run.out.String()
	if code == 0 || !strings.Contains(out, "--wait-timeout 3s") || !strings.Contains(out, "needsgpu") {
		t.Errorf("run exited %d; want a failure after --wait-timeout that names it and the job:\n%s", code, out)
	}
	status := launch(t, "job status", "job", "status", "needsgpu", "--nats", srv.url())
	if c := status.wait(t); c != 0 || !regexp.MustCompile(`waits: no live worker has gpu=1`).MatchString(status.out.String()) {
		t.Errorf("job status: exit %d; want it to say what the job waits for (%q):\n%s", c, line[1], status.out.String())
	}
	// A worker that meets it comes: the same command follows the job to its end.
	launch(t, "worker gpu2", "worker", "--nats", srv.url(), "-j", "1", "--name", "gpu2", "--label", "gpu=1").waitFor(t, "serving sh")
	again := launch(t, "run again", "run", "--nats", srv.url(), "--require", "gpu=1", "--job", "needsgpu", "--wait-timeout", "3s", "echo", ":::", "a", "b")
	if c := again.wait(t); c != 0 {
		t.Errorf("the same run with a capable worker: exit %d:\n%s", c, again.out.String())
	}
}
