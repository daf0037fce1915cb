package cli

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/worksteal/worksteal/internal/testdeadline"
)

// TestJobCommands: an operator lists, inspects, cancels and deletes jobs
// with "worksteal job", and a cancelled job's "run --nats" ends.
func TestJobCommands(t *testing.T) {
	dir := t.TempDir()
	serveOut := background(t, "serve", "--listen", "127.0.0.1:0", "--store", filepath.Join(dir, "js"), "--name", "jobs")
	url := waitOutput(t, serveOut, `JetStream on (nats://\S+)`)[1]
	waitOutput(t, background(t, "worker", "--nats", url, "-j", "2", "--name", "wj"), "serving sh")

	code, _, errs := runWithInput(t, "echo a\nexit 4\n", "run", "--nats", url, "--progress=none")
	if code != 1 {
		t.Fatalf("run: exit %d, %s", code, errs)
	}
	id := regexp.MustCompile(`job (run-[0-9a-f]+)`).FindStringSubmatch(errs)[1]

	code, out, errs := runWithInput(t, "", "job", "list", "--nats", url)
	if code != 0 || !regexp.MustCompile(id+`\s+2\s+2\s+done`).MatchString(out) {
		t.Errorf("job list: exit %d, %q %q; want %s with 2 tasks, done", code, out, errs, id)
	}
	code, out, _ = runWithInput(t, "", "job", "status", id, "--nats", url)
	if code != 0 || !strings.Contains(out, "2 tasks: 1 succeeded, 1 failed, 0 running") {
		t.Errorf("job status: exit %d, %q", code, out)
	}
	code, out, _ = runWithInput(t, "", "job", "results", id, "--nats", url)
	if code != 0 || !regexp.MustCompile(`(?m)^1\s+ok\s+wj\s+1\s+1\s`).MatchString(out) || !regexp.MustCompile(`(?m)^2\s+failed\s+wj.*exit status 4`).MatchString(out) {
		t.Errorf("job results: exit %d, %q", code, out)
	}
	code, _, errs = runWithInput(t, "", "job", "status", "no-such-job", "--nats", url)
	if code != 1 || !strings.Contains(errs, `job not found: "no-such-job"`) {
		t.Errorf("job status of an unknown job: exit %d, %q", code, errs)
	}
	if code, _, errs = runWithInput(t, "", "job", "frobnicate", "--nats", url); code != 2 || !strings.Contains(errs, "want list, status, results, cancel or delete") {
		t.Errorf("unknown verb: exit %d, %q", code, errs)
	}
	// Deleted, the same batch runs afresh.
	if code, out, _ = runWithInput(t, "", "job", "delete", id, "--nats", url); code != 0 || !strings.Contains(out, "deleted") {
		t.Errorf("job delete: exit %d, %q", code, out)
	}
	if _, _, errs = runWithInput(t, "echo a\nexit 4\n", "run", "--nats", url, "--progress=none"); !strings.Contains(errs, "2 tasks submitted") {
		t.Errorf("after delete: %q; want the batch submitted again", errs)
	}

	// A cancelled job: its follower ends, and its running task is stopped.
	type result struct {
		code int
		errs string
	}
	done := make(chan result, 1)
	go func() {
		code, _, errs := runWithInput(t, "sleep 60\n", "run", "--nats", url, "--job", "long", "--progress=none")
		done <- result{code, errs}
	}()
	deadline := time.Now().Add(testdeadline.Left(t))
	for {
		_, out, _ := runWithInput(t, "", "job", "list", "--nats", url)
		if strings.Contains(out, "long") || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if code, out, errs := runWithInput(t, "", "job", "cancel", "long", "--nats", url); code != 0 {
		t.Fatalf("job cancel: exit %d, %q %q", code, out, errs)
	}
	select {
	case r := <-done:
		if r.code == 0 || !strings.Contains(r.errs, "job cancelled") {
			t.Errorf("run of a cancelled job: exit %d, %q", r.code, r.errs)
		}
	case <-time.After(testdeadline.Left(t)):
		t.Fatal("run --nats did not end when its job was cancelled")
	}
	if _, out, _ := runWithInput(t, "", "job", "list", "--nats", url); !regexp.MustCompile(`long\s+1\s+1\s+cancelled`).MatchString(out) {
		t.Errorf("job list after cancel: %q", out)
	}
}
