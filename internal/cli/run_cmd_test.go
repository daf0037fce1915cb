package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/worksteal/worksteal/internal/cli/runcmd"
	"github.com/worksteal/worksteal/internal/gnuinput"
	"github.com/worksteal/worksteal/internal/jobio"
	"github.com/worksteal/worksteal/internal/joblog"
	"github.com/worksteal/worksteal/internal/proctest"
	"github.com/worksteal/worksteal/internal/testdeadline"
)

// runWithInput runs the command line with stdin and returns its exit code
// and output.
func runWithInput(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = Run(context.Background(), args, strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

func TestRunCommandLinesFromStdin(t *testing.T) {
	code, out, errs := runWithInput(t, "echo one\necho two\n", "run", "-j", "2", "-k", "--summary")
	if code != 0 || out != "one\ntwo\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errs)
	}
	for _, w := range []string{"jobs 2: 2 succeeded, 0 failed", "makespan", "utilization", "load imbalance", "straggler ratio"} {
		if !strings.Contains(errs, w) {
			t.Errorf("summary lacks %q:\n%s", w, errs)
		}
	}
}

func TestRunTemplates(t *testing.T) {
	cases := []struct {
		stdin string
		args  []string
		want  string
	}{
		{"", []string{"run", "-k", "echo", "{1}-{2}", ":::", "a", "b", ":::", "1", "2"}, "a-1\na-2\nb-1\nb-2\n"},
		{"x.txt\ny z.txt\n", []string{"run", "-k", "echo", "{.}"}, "x\ny z\n"},
		{"p/q.gz\n", []string{"run", "printf", "'%s|%s\\n'", "{/}", "{//}"}, "q.gz|p\n"},
		{"", []string{"run", "--dry-run", "gzip", "-9", ":::", "my file"}, "gzip -9 'my file'\n"},
		// Costs in a weight column start the longest first.
		{"1\techo small\n9\techo big\n5\techo mid\n", []string{"run", "--dry-run", "--weight-col", "1"}, "echo big\necho mid\necho small\n"},
		{"1\techo small\n9\techo big\n", []string{"run", "--dry-run", "--weight-col", "1", "--order", "input"}, "echo small\necho big\n"},
	}
	for _, tc := range cases {
		code, out, errs := runWithInput(t, tc.stdin, tc.args...)
		if code != 0 || out != tc.want {
			t.Errorf("%q: exit %d, stdout %q; want %q (stderr %q)", tc.args, code, out, tc.want, errs)
		}
	}
}

func TestRunExitStatusCountsFailures(t *testing.T) {
	// Off a terminal nothing but the jobs' output: the status says it.
	code, _, errs := runWithInput(t, "true\nexit 4\nfalse\n", "run")
	if code != 2 || errs != "" {
		t.Errorf("exit %d, stderr %q; want 2 for two failed jobs, and nothing on stderr", code, errs)
	}
	code, _, errs = runWithInput(t, "true\nexit 4\nfalse\n", "run", "--summary")
	if code != 2 || !strings.Contains(errs, "2 job(s) failed") || !strings.Contains(errs, "jobs 3: 1 succeeded, 2 failed") {
		t.Errorf("--summary: exit %d, stderr %q; want 2 and the summary", code, errs)
	}
}

func TestRunBadInputNamesTheProblem(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		stdin string
		args  []string
		want  string
	}{
		{"1\ttrue\nlots\ttrue\n", []string{"run", "--weight-col", "1"}, `line 2: weight column 1: "lots"`},
		{"", []string{"run", "--timeout", "soon", "true", ":::", "1"}, `--timeout "soon"`},
		{"", []string{"run", "--timeout", "-50%", "true", ":::", "1"}, `--timeout "-50%"`},
		{"", []string{"run", "-j", "x", "true", ":::", "1"}, `-j "x"`},
		{"", []string{"run", "-j", "+-3", "true", ":::", "1"}, `-j "+-3"`},
		{"", []string{"run", "--resume", "true", ":::", "1"}, "--resume and --resume-failed need --joblog"},
		{"", []string{"run", "--resume-failed", "true", ":::", "1"}, "--resume and --resume-failed need --joblog"},
		{"", []string{"run", "--order", "fastest", "true", ":::", "1"}, `order "fastest"`},
		{"", []string{"run", "--progress=loud", "true", ":::", "1"}, `--progress="loud"`},
		{"", []string{"run", "--timeout", "5ms", "true", ":::", "1"}, `--timeout "5ms"`},
		{"", []string{"run", "--no-such-flag"}, "unknown flag: --no-such-flag"},
		{"", []string{"run", "--colsep", "(", "echo", ":::", "a"}, `--colsep "("`},
		{"", []string{"run", "echo", "{= s/a/b/ =}", ":::", "a"}, "perl expression replacement strings"},
		{"", []string{"run", "--shell", "/nonexistent/sh", "echo", ":::", "a"}, "--shell /nonexistent/sh: no such shell"},
		{"a\nb\x00c\n", []string{"run", "echo"}, "stdin: line 2: holds a NUL byte"},
		{"", []string{"run", "echo", "::::", filepath.Join(dir, "missing")}, "missing"},
		{"", []string{"run", "-a", filepath.Join(dir, "absent")}, "absent"},
	}
	for _, tc := range cases {
		code, _, errs := runWithInput(t, tc.stdin, tc.args...)
		if code != runcmd.ExitRunError || !strings.Contains(errs, tc.want) {
			t.Errorf("%q: exit %d, stderr %q; want 255 and %q", tc.args, code, errs, tc.want)
		}
	}
}

func TestRunJoblogResumeAndRememberedCosts(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "jobs.tsv")
	flag := filepath.Join(dir, "fixed")
	marks := filepath.Join(dir, "marks")
	// Job 2 fails until the flag file exists. Job 1's sleep makes it the
	// longest by a second (0.2 s was within what starting a shell can
	// take on a busy machine, and the costs order below reads run times).
	input := fmt.Sprintf("echo 1 >> %[1]s; sleep 1\n[ -e %[2]s ] && echo 2 >> %[1]s\necho 3 >> %[1]s\n", marks, flag)
	code, _, errs := runWithInput(t, input, "run", "-j", "1", "--joblog", log)
	if code != 1 {
		t.Fatalf("first run: exit %d; want 1 (stderr %q)", code, errs)
	}
	recs, err := joblog.ReadFile(log)
	if err != nil || len(recs) != 3 {
		t.Fatalf("joblog: %v, %v", recs, err)
	}
	os.WriteFile(flag, nil, 0o644)
	code, _, errs = runWithInput(t, input, "run", "-j", "1", "--joblog", log, "--resume-failed", "--summary")
	if code != 0 || !strings.Contains(errs, "2 jobs skipped") {
		t.Fatalf("resume: exit %d; stderr %q", code, errs)
	}
	data, _ := os.ReadFile(marks)
	if got := strings.Fields(string(data)); !slices.Equal(got, []string{"1", "3", "2"}) {
		t.Errorf("jobs run: %v; want 1 3 then only the failed 2", got)
	}
	// The joblog remembers run times: a fresh run starts the longest first.
	code, out, errs := runWithInput(t, input, "run", "--dry-run", "--costs-from", log)
	if code != 0 || !strings.HasPrefix(out, "echo 1 >>") {
		t.Errorf("dry run with remembered costs: exit %d, stdout %q, stderr %q; want the 1 s job first", code, out, errs)
	}
	code, _, errs = runWithInput(t, input, "run", "-j", "1", "--joblog", log, "--summary")
	if code != 0 || !strings.Contains(errs, "order: longest first (3 of 3 costs known)") {
		t.Errorf("rerun with --joblog: exit %d, stderr %q; want the LPT line", code, errs)
	}
}

// TestRunSignalHelper is not a test: it is the worksteal process that
// TestRunSignal starts and signals (the test binary re-exec pattern).
func TestRunSignalHelper(t *testing.T) {
	raw := os.Getenv("WORKSTEAL_RUN_HELPER_ARGS")
	if raw == "" {
		t.Skip("helper process for TestRunSignal")
	}
	var args []string
	if err := json.Unmarshal([]byte(raw), &args); err != nil {
		panic(err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := Run(ctx, args, os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

func TestRunSignal(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) { testRunSignal(t, sig) })
	}
}

func testRunSignal(t *testing.T, sig syscall.Signal) {
	dir := t.TempDir()
	log := filepath.Join(dir, "jobs.tsv")
	pids := filepath.Join(dir, "pids")
	marks := filepath.Join(dir, "marks")
	fast := filepath.Join(dir, "fast")
	var input strings.Builder
	for i := 1; i <= 10; i++ {
		// Jobs 1-3 are quick; the others hang until the fast file exists.
		wait := fmt.Sprintf("[ -e %s ] || sleep 60", fast)
		if i <= 3 {
			wait = "true"
		}
		fmt.Fprintf(&input, "echo $$ >> %s; %s; echo %d >> %s\n", pids, wait, i, marks)
	}
	args, _ := json.Marshal([]string{"run", "-j", "3", "--order", "input", "--joblog", log, "--grace", "500ms", "--progress=none"})
	cmd := exec.Command(os.Args[0], "-test.run=^TestRunSignalHelper$")
	cmd.Env = append(os.Environ(), "WORKSTEAL_RUN_HELPER_ARGS="+string(args))
	cmd.Stdin = strings.NewReader(input.String())
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Wait until the quick jobs are logged and three hanging ones run.
	deadline := time.Now().Add(testdeadline.Left(t))
	for {
		recs, _ := joblog.ReadFile(log)
		started, _ := os.ReadFile(pids)
		if len(recs) == 3 && len(strings.Fields(string(started))) == 6 {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("the batch did not get going: %d rows, pids %q, stderr %q", len(recs), started, stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	cmd.Process.Signal(sig)
	err := cmd.Wait()
	var ee *exec.ExitError
	want := 128 + int(sig)
	if !errors.As(err, &ee) || ee.ExitCode() != want {
		t.Fatalf("after %v: %v; want exit %d (stderr %q)", sig, err, want, stderr.String())
	}
	if !strings.Contains(stderr.String(), "interrupted: 3 jobs finished, 7 not run; rerun with --resume") {
		t.Errorf("stderr %q; want the interruption note", stderr.String())
	}
	// Every process of the stopped jobs is gone.
	started, _ := os.ReadFile(pids)
	for _, f := range strings.Fields(string(started)) {
		pid, _ := strconv.Atoi(f)
		deadline := time.Now().Add(testdeadline.Left(t))
		for proctest.Alive(pid) && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		if proctest.Alive(pid) {
			t.Errorf("job process %d survived the %v", pid, sig)
		}
	}
	recs, err := joblog.ReadFile(log)
	if err != nil || len(recs) != 3 {
		t.Fatalf("joblog after %v: %v, %v; want the 3 finished jobs", sig, recs, err)
	}
	// The rerun completes the rest, and runs nothing twice.
	os.WriteFile(fast, nil, 0o644)
	code, _, errs := runWithInput(t, input.String(), "run", "-j", "3", "--joblog", log, "--resume", "--summary")
	if code != 0 || !strings.Contains(errs, "3 jobs skipped") {
		t.Fatalf("resume: exit %d, stderr %q", code, errs)
	}
	data, _ := os.ReadFile(marks)
	got := strings.Fields(string(data))
	slices.SortFunc(got, func(a, b string) int { x, _ := strconv.Atoi(a); y, _ := strconv.Atoi(b); return x - y })
	if !slices.Equal(got, []string{"1", "2", "3", "4", "5", "6", "7", "8", "9", "10"}) {
		t.Errorf("jobs that ran to the end: %v; want each of 1..10 once", got)
	}
	if recs, _ = joblog.ReadFile(log); len(recs) != 10 {
		t.Errorf("joblog has %d rows; want 10", len(recs))
	}
}

// GNU parallel's options that run does not support are refused by name,
// never taken for something else.
func TestRunRefusesGNUOptionsByName(t *testing.T) {
	cases := []struct{ flag, want string }{
		{"--sqlworker", "GNU parallel's option --sqlworker is not supported"},
		{"--tmux", "GNU parallel's option --tmux is not supported"},
		{"--transfer", "GNU parallel's option --transfer is not supported"},
		{"--shebang-wrap", "GNU parallel's option --shebang-wrap is not supported"},
		{"-g", "GNU parallel's option -g is not supported"},
		{"-S", "GNU parallel's option -S (--sshlogin) is not supported by worksteal run: to run jobs on many machines, start worksteal worker on each and use worksteal run --nats URL"},
		{"--sshlogin", "use worksteal run --nats URL"},
		{"--embed", "GNU parallel's option --embed is not supported"},
	}
	for _, tc := range cases {
		code, out, errs := runWithInput(t, "", "run", tc.flag, "echo", ":::", "a")
		if code != runcmd.ExitRunError || out != "" || !strings.Contains(errs, tc.want) {
			t.Errorf("run %s: exit %d, stdout %q, stderr %q; want 255, nothing run, and %q", tc.flag, code, out, errs, tc.want)
		}
	}
}

// Reads are bounded: a file without newlines is refused at its first line
// (named) after at most MaxLineBytes, and a joblog that is a device is
// written, never read.
func TestRunBoundedReads(t *testing.T) {
	dir := t.TempDir()
	huge := filepath.Join(dir, "huge")
	if err := os.WriteFile(huge, bytes.Repeat([]byte("x"), jobio.MaxLineBytes+1), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"run", "--joblog", huge, "--resume", "echo", ":::", "a"}, "--joblog " + huge + ": runner: bad joblog: line 1: longer than 16 MiB"},
		{[]string{"run", "--costs-from", huge, "echo", ":::", "a"}, "--costs-from " + huge + ": runner: bad joblog: line 1: longer than 16 MiB"},
		{[]string{"run", "-a", huge, "echo"}, huge + ": line 1: longer than 16 MiB"},
		{[]string{"run", "echo", "::::", huge}, huge + ": line 1: longer than 16 MiB"},
	}
	for _, tc := range cases {
		code, out, errs := runWithInput(t, "", tc.args...)
		if code != runcmd.ExitRunError || out != "" || !strings.Contains(errs, tc.want) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want 255 and %q", tc.args, code, out, errs, tc.want)
		}
	}
	// A 17 MB line on stdin, after a good one.
	code, out, errs := runWithInput(t, "echo ok\n"+strings.Repeat("y", 17<<20)+"\n", "run")
	if code != runcmd.ExitRunError || out != "" || !strings.Contains(errs, "stdin: line 2: longer than 16 MiB") {
		t.Errorf("17 MB stdin line: exit %d, stdout %q, stderr %q; want 255 naming stdin line 2", code, out, errs)
	}
	// /dev/full and /dev/zero as the joblog: written (and the failed
	// write reported), never read, the jobs run.
	for _, dev := range []string{"/dev/full", "/dev/zero"} {
		code, out, errs = runWithInput(t, "", "run", "--joblog", dev, "--resume", "echo", ":::", "a")
		if code != 0 || out != "a\n" {
			t.Errorf("--joblog %s: exit %d, stdout %q, stderr %q; want the job run", dev, code, out, errs)
		}
	}
}

// Jobs run under $SHELL (GNU parallel's rule), so bash syntax works where
// bash is the user's shell.
func TestRunUsesSHELL(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	t.Setenv("PARALLEL_SHELL", "")
	t.Setenv("SHELL", bash)
	code, out, errs := runWithInput(t, "", "run", "-k", "cat", "<(echo {})", ":::", "a", "b")
	if code != 0 || out != "a\nb\n" {
		t.Errorf("exit %d, stdout %q, stderr %q; want bash's process substitution to work", code, out, errs)
	}
	t.Setenv("SHELL", "/nonexistent/shell")
	code, _, errs = runWithInput(t, "", "run", "echo", ":::", "a")
	if code != runcmd.ExitRunError || !strings.Contains(errs, "$SHELL /nonexistent/shell: no such shell") {
		t.Errorf("bad $SHELL: exit %d, stderr %q; want 255 naming $SHELL", code, errs)
	}
}

// GNU parallel's other names of -j and --joblog work as they do.
func TestRunTakesGNUNamesOfItsFlags(t *testing.T) {
	for _, args := range [][]string{{"-P", "1"}, {"--max-procs", "1"}, {"--maxprocs=1"}, {"-P1"}} {
		code, out, errs := runWithInput(t, "", append(append([]string{"run"}, args...), "echo", ":::", "a", "b")...)
		if code != 0 || out != "a\nb\n" {
			t.Errorf("run %q: exit %d, stdout %q, stderr %q; want a, b in order (one slot)", args, code, out, errs)
		}
	}
	code, out, errs := runWithInput(t, "", "run", "-k", "--jl", "-", "echo", ":::", "a")
	if code != 0 || !strings.HasPrefix(out, joblog.Header+"\na\n1\t:\t") {
		t.Errorf("run --jl -: exit %d, stdout %q, stderr %q; want the joblog on stdout", code, out, errs)
	}
}

// A bad value of one of GNU parallel's options is refused by name and
// value, before anything runs, with exit status 255.
func TestRunRefusesBadGNUValues(t *testing.T) {
	dir := t.TempDir()
	mark := filepath.Join(dir, "ran")
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--halt", "later,fail=1"}, `--halt "later,fail=1": it must start with never, soon or now`},
		{[]string{"--halt", "now,fail=x"}, `--halt "now,fail=x"`},
		{[]string{"--halt", "now,fail=0%"}, `--halt "now,fail=0%"`},
		{[]string{"--halt", "soon,maybe=1"}, `--halt "soon,maybe=1"`},
		{[]string{"-n", "x"}, `-n "x": want a count`},
		{[]string{"-N", "-1"}, `-N "-1": want a count`},
		{[]string{"--delay", "soon"}, `--delay "soon"`},
		{[]string{"--trim", "x"}, `--trim "x": want n`},
		{[]string{"-d", ""}, `-d ''`},
		{[]string{"--env", "A-B"}, `--env "A-B"`},
		{[]string{"--header", "("}, `--header "("`},
		{[]string{"--plus", "--tagstring", "{/(/x}"}, `{/(/x}`},
		{[]string{"--results", filepath.Join(dir, "no", "such", "r.csv")}, "--results " + filepath.Join(dir, "no", "such", "r.csv")},
		{[]string{"--line-buffer", "-u"}, "--group, --line-buffer and -u (--ungroup) exclude each other"},
	}
	for _, tc := range cases {
		args := append(append([]string{"run"}, tc.args...), "touch "+mark+"; echo {}", ":::", "a")
		code, out, errs := runWithInput(t, "", args...)
		if code != runcmd.ExitRunError || out != "" || !strings.Contains(errs, tc.want) {
			t.Errorf("run %q: exit %d, stdout %q, stderr %q; want 255 and %q", tc.args, code, out, errs, tc.want)
		}
		if _, err := os.Stat(mark); err == nil {
			t.Fatalf("run %q: a job ran", tc.args)
		}
	}
	// One argument over the command line limit of -X: named, nothing run.
	long := strings.Repeat("x", gnuinput.DefaultMaxLen)
	code, out, errs := runWithInput(t, "a\n"+long+"\n", "run", "-X", "touch "+mark+"; echo")
	if code != runcmd.ExitRunError || out != "" || !strings.Contains(errs, "command line too long") || !strings.Contains(errs, "at input 2") {
		t.Errorf("run -X with a %d-byte argument: exit %d, stdout %q, stderr %.200q; want 255 and command line too long at input 2", len(long), code, out, errs)
	}
	if _, err := os.Stat(mark); err == nil {
		t.Fatal("run -X: a job ran")
	}
}
