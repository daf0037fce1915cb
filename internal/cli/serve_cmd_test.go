package cli

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/worksteal/worksteal/internal/cli/runcmd"
	"github.com/worksteal/worksteal/internal/cli/workercmd"
	"github.com/worksteal/worksteal/internal/joblog"
	"github.com/worksteal/worksteal/internal/syncbuf"
	"github.com/worksteal/worksteal/internal/testdeadline"
	"github.com/worksteal/worksteal/runner"
)

// syncBuffer is a buffer a process or command writes while the test reads it.
type syncBuffer = syncbuf.Buffer

// background runs a long-lived command (serve, worker) until the test
// ends, and returns its stdout.
func background(t *testing.T, args ...string) *syncBuffer {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var out, errs syncBuffer
	done := make(chan int, 1)
	go func() { done <- Run(ctx, args, strings.NewReader(""), &out, &errs) }()
	t.Cleanup(func() {
		cancel()
		select {
		case code := <-done:
			if code != 0 {
				t.Errorf("%q: exit %d, stderr %q", args, code, errs.String())
			}
		case <-time.After(testdeadline.Left(t)):
			t.Errorf("%q did not stop", args)
		}
	})
	return &out
}

// waitOutput waits for a line matching re in out and returns the match.
func waitOutput(t *testing.T, out *syncBuffer, re string) []string {
	t.Helper()
	rx := regexp.MustCompile(re)
	deadline := time.Now().Add(testdeadline.Left(t))
	for time.Now().Before(deadline) {
		if m := rx.FindStringSubmatch(out.String()); m != nil {
			return m
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("no %q in output %q", re, out.String())
	return nil
}

func TestServeWorkerRun(t *testing.T) {
	dir := t.TempDir()
	serveOut := background(t, "serve", "--listen", "127.0.0.1:0", "--store", filepath.Join(dir, "js"), "--name", "test")
	url := waitOutput(t, serveOut, `JetStream on (nats://\S+)`)[1]
	// Two workers: the one stopped first must hand its tasks back.
	for _, name := range []string{"wa", "wb"} {
		out := background(t, "worker", "--nats", url, "-j", "2", "--name", name, "--ack-wait", "5s")
		waitOutput(t, out, "serving sh")
	}

	log := filepath.Join(dir, "jobs.tsv")
	input := "echo one\nsleep 0.2; echo two\nexit 3\necho worker=$WORKSTEAL_WORKER seq=$WORKSTEAL_SEQ >&2\n"
	code, out, errs := runWithInput(t, input, "run", "--nats", url, "-k", "--joblog", log, "--progress=none", "--summary")
	if code != 1 || out != "one\ntwo\n" {
		t.Fatalf("run --nats: exit %d, stdout %q, stderr %q; want 1 (one job failed) and the output in order", code, out, errs)
	}
	if !regexp.MustCompile(`worker=w[ab] seq=4`).MatchString(errs) {
		t.Errorf("stderr %q lacks the job's environment", errs)
	}
	for _, w := range []string{"tasks submitted", "jobs 4: 3 succeeded, 1 failed", "load imbalance", "straggler ratio"} {
		if !strings.Contains(errs, w) {
			t.Errorf("stderr lacks %q:\n%s", w, errs)
		}
	}
	recs, err := joblog.ReadFile(log)
	if err != nil || len(recs) != 4 {
		t.Fatalf("joblog: %v, %v", recs, err)
	}
	for _, r := range recs {
		if r.Host != "wa" && r.Host != "wb" || (r.Seq == 3) != (r.Exit == 3) {
			t.Errorf("joblog row %+v", r)
		}
	}

	// The same batch again collects the finished job's results and runs
	// nothing; with --resume-failed the failed job runs again, and only
	// its row is added to the joblog.
	code, out, errs = runWithInput(t, input, "run", "--nats", url, "-k", "--progress=none", "--summary")
	if code != 1 || out != "one\ntwo\n" || !strings.Contains(errs, "finished earlier") || !strings.Contains(errs, "4 recorded before this run") {
		t.Errorf("rerun: exit %d, stdout %q, stderr %q; want the recorded results, nothing run", code, out, errs)
	}
	code, out, errs = runWithInput(t, input, "run", "--nats", url, "--joblog", log, "--resume-failed", "--progress=none", "--summary")
	if code != 1 || out != "" || !strings.Contains(errs, "jobs 4: 3 succeeded, 1 failed; 3 recorded before this run") {
		t.Errorf("resume: exit %d, stdout %q, stderr %q; want only job 3 rerun", code, out, errs)
	}
	if recs, _ := joblog.ReadFile(log); len(recs) != 5 || recs[4].Seq != 3 || recs[4].Start.Before(recs[3].Start) {
		t.Errorf("joblog after --resume-failed: %+v; want job 3's new row added", recs)
	}
	code, out, _ = runWithInput(t, "1\techo a\n9\techo b\n5\techo c\n", "run", "--nats", url, "-k", "--weight-col", "1", "--retries", "2", "--timeout", "30s")
	if code != 0 || out != "a\nb\nc\n" {
		t.Errorf("weighted batch with -k: exit %d, stdout %q; want input order", code, out)
	}
}

func TestClusterCommandErrorsNameTheProblem(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	busy := l.Addr().String()
	cases := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"run", "--nats", "nats://127.0.0.1:1", "true", ":::", "1"}, runcmd.ExitRunError, "cannot connect to NATS at nats://127.0.0.1:1"},
		{[]string{"run", "--nats", "nats://127.0.0.1:1", "--timeout", "200%", "true", ":::", "1"}, runcmd.ExitRunError, "not supported with --nats"},
		{[]string{"run", "--nats", "nats://127.0.0.1:1", "-j", "4", "true", ":::", "1"}, runcmd.ExitRunError, "-j is not used with --nats"},
		{[]string{"worker", "--nats", "nats://127.0.0.1:1"}, 1, "cannot connect to NATS at nats://127.0.0.1:1"},
		{[]string{"worker", "-j", "-1"}, 2, "-j -1"},
		{[]string{"serve", "--listen", "nowhere"}, 2, `--listen "nowhere"`},
		{[]string{"serve", "--listen", "127.0.0.1:99999"}, 2, `port "99999"`},
		{[]string{"serve", "--routes", "nats://x:1"}, 2, "--routes needs --cluster-listen"},
		{[]string{"worker", "--nats", "http://127.0.0.1:4222"}, 2, `want a NATS URL such as nats://HOST:4222, not http://`},
		{[]string{"run", "--nats", "http://127.0.0.1:4222", "true", ":::", "1"}, runcmd.ExitRunError, `want a NATS URL`},
		{[]string{"serve", "--listen", busy, "--store", t.TempDir()}, 2, "--listen " + busy + ": cannot listen: address already in use"},
		{[]string{"serve", "--listen", "127.0.0.1:0", "--store", "/dev/null/js"}, 1, "--store /dev/null/js: not a directory"},
	}
	for _, tc := range cases {
		code, _, errs := runWithInput(t, "", tc.args...)
		if code != tc.code || !strings.Contains(errs, tc.want) {
			t.Errorf("%q: exit %d, stderr %q; want %d and %q", tc.args, code, errs, tc.code, tc.want)
		}
	}
}

func TestJobIDFollowsTheCommands(t *testing.T) {
	a := []runner.Job{{Seq: 1, Command: "a"}, {Seq: 2, Command: "b"}}
	b := []runner.Job{{Seq: 1, Command: "a"}, {Seq: 2, Command: "c"}}
	if again := runcmd.JobID(a); runcmd.JobID(a) != again || runcmd.JobID(a) == runcmd.JobID(b) {
		t.Errorf("jobID: %s %s %s", runcmd.JobID(a), runcmd.JobID(a), runcmd.JobID(b))
	}
	_ = os.Getpid
}

// The worker runs in this test process, which is not the worksteal binary:
// it has no "reap" command to start (the binary's tests in cmd/worksteal
// cover the reaper).
func init() { workercmd.ReaperCommand = func(time.Duration) []string { return nil } }

// A store smaller than the default limits (JetStream reserves a stream's
// byte limit from it when the stream is made) still gives a working tier:
// serve lowers its defaults to fit and says so, and limits given on the
// command line that cannot fit are refused by name. Before, the recorder
// failed to make the results bucket ("insufficient storage resources") and
// every run waited for ever (CI's disk, with less than 22 GB free, met it).
func TestServeFitsItsLimitsToTheStore(t *testing.T) {
	dir := t.TempDir()
	conf := filepath.Join(dir, "server.conf")
	if err := os.WriteFile(conf, []byte("jetstream {\n  max_file_store: 1GB\n}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, _, errs := runWithInput(t, "", "serve", "--config", conf, "--listen", "127.0.0.1:0", "--store", filepath.Join(dir, "js0"),
		"--max-result-mib", "4096")
	if code != 2 || !strings.Contains(errs, "--max-result-mib 4096") || !strings.Contains(errs, "store's 1024 MiB") {
		t.Errorf("serve with limits past the store: exit %d, stderr %q; want 2 and the limits and the store named", code, errs)
	}
	serveOut := background(t, "serve", "--config", conf, "--listen", "127.0.0.1:0", "--store", filepath.Join(dir, "js"), "--name", "small")
	url := waitOutput(t, serveOut, `JetStream on (nats://\S+)`)[1]
	waitOutput(t, serveOut, `lowered to 184 MiB of tasks and 737 MiB of results`)
	out := background(t, "worker", "--nats", url, "-j", "2", "--name", "w")
	waitOutput(t, out, "serving sh")
	code, stdout, errs := runWithInput(t, "echo one\necho two\n", "run", "--nats", url, "-k", "--progress=none")
	if code != 0 || stdout != "one\ntwo\n" {
		t.Errorf("run on a small store: exit %d, stdout %q, stderr %q", code, stdout, errs)
	}
}
