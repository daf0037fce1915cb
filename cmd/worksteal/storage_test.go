package main

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/worksteal/worksteal/cmd/worksteal/internal/e2e"
	"github.com/worksteal/worksteal/internal/testdeadline"
)

// TestAFullTaskStreamRefusesASubmitAndLosesNothing: serve bounds the task
// stream (--max-tasks 3) and says so at start; a job of 5 tasks with no
// worker yet fills it: the submitter fails with an error naming the limit,
// the 3 tasks in the stream stay, and the same command run again once a
// worker took them runs all 5, each once.
func TestAFullTaskStreamRefusesASubmitAndLosesNothing(t *testing.T) {
	serve := e2e.Start(t, "", nil, "serve", "--listen", "127.0.0.1:0", "--store", filepath.Join(t.TempDir(), "js"), "--max-tasks", "3")
	url := e2e.WaitFor(t, serve.Stdout, `JetStream on (\S+)`)[1]
	e2e.WaitFor(t, serve.Stdout, `storage limits: task stream 3 tasks and [0-9.]+ MiB \(a submit past them is refused\), results [0-9.]+ MiB`)
	cmds := "echo t1\necho t2\necho t3\necho t4\necho t5\n"
	code, out, errs := e2e.Run(t, cmds, nil, "run", "--nats", url, "--job", "big")
	if code == 0 || out != "" || !strings.Contains(errs, "the task stream is full") || !strings.Contains(errs, "--max-tasks") {
		t.Fatalf("a job past the task stream's limit: exit %d, %q, %q; want a refusal naming the limit", code, out, errs)
	}
	e2e.Start(t, "", nil, "worker", "--nats", url, "-j", "2")
	testdeadline.Until(t, "the worker ran the 3 tasks that fitted", 50*time.Millisecond, func() bool {
		_, out, _ := e2e.Run(t, "", nil, "job", "status", "big", "--nats", url)
		return strings.Contains(out, "3 succeeded")
	})
	code, out, errs = e2e.Run(t, cmds, nil, "run", "--nats", url, "--job", "big")
	lines := strings.Fields(out)
	slices.Sort(lines)
	if code != 0 || strings.Join(lines, " ") != "t1 t2 t3 t4 t5" {
		t.Fatalf("the same job run again with a worker: exit %d, %q, %q; want t1..t5 once each", code, out, errs)
	}
}
