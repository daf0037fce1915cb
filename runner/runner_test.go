package runner

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/worksteal/worksteal/internal/joblog"
	"github.com/worksteal/worksteal/internal/proctest"
	"github.com/worksteal/worksteal/internal/runopts"
	"github.com/worksteal/worksteal/internal/syncbuf"
	"github.com/worksteal/worksteal/internal/testdeadline"
)

// lockedBuffer is a buffer a process or command writes while the test reads it.
type lockedBuffer = syncbuf.Buffer

func lines(cmds ...string) []Job {
	jobs := make([]Job, len(cmds))
	for i, c := range cmds {
		jobs[i] = Job{Seq: i + 1, Command: c}
	}
	return jobs
}

func mustRun(t *testing.T, cfg Config, jobs []Job) *Summary {
	t.Helper()
	s, err := Run(context.Background(), cfg, jobs)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return s
}

// waitGone waits (generously) for pids to die, and fails the test if one
// does not.
func waitGone(t *testing.T, pidFiles ...string) {
	t.Helper()
	for _, pf := range pidFiles {
		data, err := os.ReadFile(pf)
		if err != nil {
			t.Fatalf("pid file: %v", err)
		}
		for _, f := range strings.Fields(string(data)) {
			pid, _ := strconv.Atoi(f)
			deadline := time.Now().Add(testdeadline.Left(t))
			for proctest.Alive(pid) && time.Now().Before(deadline) {
				time.Sleep(20 * time.Millisecond)
			}
			if proctest.Alive(pid) {
				t.Errorf("process %d (from %s) still alive", pid, filepath.Base(pf))
			}
		}
	}
}

func TestRunOutputKeptTogether(t *testing.T) {
	var out lockedBuffer
	var jobs []Job
	for i := range 8 {
		jobs = append(jobs, Job{Seq: i + 1, Command: fmt.Sprintf("echo begin %d; sleep 0.0%d; echo end %d", i, i%3, i)})
	}
	s := mustRun(t, Config{Slots: 4, Stdout: &out}, jobs)
	if s.Succeeded != 8 || s.Failed != 0 {
		t.Fatalf("summary %+v", s)
	}
	got := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(got) != 16 {
		t.Fatalf("output has %d lines:\n%s", len(got), out.String())
	}
	seen := map[string]bool{}
	for i := 0; i < len(got); i += 2 {
		var n int
		fmt.Sscanf(got[i], "begin %d", &n)
		if got[i+1] != fmt.Sprintf("end %d", n) {
			t.Errorf("lines %q, %q: a job's output was split", got[i], got[i+1])
		}
		seen[got[i]] = true
	}
	if len(seen) != 8 {
		t.Errorf("saw %d jobs' output; want 8", len(seen))
	}
}

func TestRunKeepOrder(t *testing.T) {
	var out lockedBuffer
	jobs := lines("sleep 0.3; echo 1", "echo 2", "sleep 0.1; echo 3", "echo 4")
	mustRun(t, Config{Slots: 4, Stdout: &out, KeepOrder: true}, jobs)
	if got := out.String(); got != "1\n2\n3\n4\n" {
		t.Errorf("output %q; want input order", got)
	}
}

func TestRunFailuresAndEnvironment(t *testing.T) {
	var out, errs lockedBuffer
	jobs := lines("exit 3", "echo $WORKSTEAL_SEQ", "kill -9 $$", "echo oops >&2; false")
	s := mustRun(t, Config{Slots: 2, Stdout: &out, Stderr: &errs}, jobs)
	if s.Succeeded != 1 || s.Failed != 3 {
		t.Errorf("succeeded %d failed %d; want 1, 3", s.Succeeded, s.Failed)
	}
	codes := map[int][2]int{}
	for _, r := range s.Results {
		codes[r.Seq] = [2]int{r.record(":").Exit, r.Signal}
	}
	// GNU parallel's Exitval of a process killed by a signal is 0.
	want := map[int][2]int{1: {3, 0}, 2: {0, 0}, 3: {0, 9}, 4: {1, 0}}
	if !maps(codes, want) {
		t.Errorf("exit, signal by seq %v; want %v", codes, want)
	}
	if out.String() != "2\n" || errs.String() != "oops\n" {
		t.Errorf("stdout %q stderr %q", out.String(), errs.String())
	}
}

func maps(a, b map[int][2]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func TestRunRetriesWithBackoff(t *testing.T) {
	dir := t.TempDir()
	// Fails twice, then succeeds: a counter in a file.
	cmd := fmt.Sprintf(`n=$(cat %[1]s/n 2>/dev/null || echo 0); n=$((n+1)); echo $n > %[1]s/n; [ $n -ge 3 ]`, dir)
	s := mustRun(t, Config{Slots: 1, Retries: 2, RetryDelay: time.Millisecond}, lines(cmd, "false"))
	if s.Succeeded != 1 || s.Failed != 1 || s.Retries != 4 {
		t.Errorf("succeeded %d failed %d retries %d; want 1, 1, 4", s.Succeeded, s.Failed, s.Retries)
	}
	if s.Results[0].Attempts != 3 || s.Results[1].Attempts != 3 {
		t.Errorf("attempts %d, %d; want 3, 3", s.Results[0].Attempts, s.Results[1].Attempts)
	}
}

func TestRunTimeoutKillsProcessGroup(t *testing.T) {
	dir := t.TempDir()
	pids := filepath.Join(dir, "pids")
	// The shell starts a child that ignores nothing, and a grandchild in
	// the background: all must die with the job. The timeout leaves the
	// shell 2 s to write the pid file (300 ms did not, on a machine at
	// load 50: waitGone then failed on a missing file).
	cmd := fmt.Sprintf(`sleep 60 & echo $! > %s; sleep 60`, pids)
	s := mustRun(t, Config{Slots: 1, Timeout: 2 * time.Second, Grace: 100 * time.Millisecond}, lines(cmd))
	if s.Failed != 1 || s.TimedOut != 1 || !s.Results[0].TimedOut || s.Results[0].Signal == 0 {
		t.Errorf("summary %+v result %+v; want one timed-out job killed by a signal", s, s.Results[0])
	}
	waitGone(t, pids)
}

func TestRunRelativeTimeout(t *testing.T) {
	// Three quick jobs set the median; the fourth runs far over 5000% of
	// it. (A factor so large that a quick job slowed by a busy machine is
	// never cut: 50 × a sleep 0.05 stretched even to 0.5 s is 25 s.)
	jobs := lines("sleep 0.05", "sleep 0.05", "sleep 0.05", "sleep 60")
	s := mustRun(t, Config{Slots: 1, Order: OrderInput, TimeoutFactor: 50, Grace: 100 * time.Millisecond}, jobs)
	if s.Succeeded != 3 || s.TimedOut != 1 || !s.Results[3].TimedOut {
		t.Errorf("summary %+v; want the last job cut", s)
	}
}

func TestRunSpeculativeCopyWins(t *testing.T) {
	dir := t.TempDir()
	// The first run of the straggler hangs; its copy, started later on
	// another slot, finishes at once. (Which run hangs is told by the
	// slot, not by which got to a marker first: on a busy machine the
	// first run's shell may not reach it before the copy starts.)
	pids := filepath.Join(dir, "pids")
	straggler := fmt.Sprintf(`if [ "$WORKSTEAL_SLOT" = 1 ]; then echo $$ >> %s; exec sleep 60; fi; echo copy`, pids)
	var out lockedBuffer
	cfg := Config{Slots: 2, Speculate: true, SpeculateAfter: 200 * time.Millisecond, Grace: 100 * time.Millisecond, Stdout: &out, Order: OrderInput}
	s := mustRun(t, cfg, lines(straggler, "true", "true"))
	// (On a loaded machine the quick jobs may be copied too: at least one.)
	if s.Succeeded != 3 || s.Copies < 1 || s.CopiesWon < 1 || !s.Results[0].CopyWon {
		t.Errorf("summary %+v; want the straggler's copy to win", s)
	}
	if out.String() != "copy\n" {
		t.Errorf("output %q; want only the winner's", out.String())
	}
	waitGone(t, pids)
}

func TestRunJoblogAndResume(t *testing.T) {
	dir := t.TempDir()
	logPath := filepath.Join(dir, "log.tsv")
	marks := filepath.Join(dir, "marks")
	var cmds []string
	for i := range 6 {
		cmds = append(cmds, fmt.Sprintf("echo %d >> %s", i, marks))
	}
	cmds[2] = "exit 1"
	jobs := lines(cmds...)
	jl, err := joblog.Open(logPath, false)
	if err != nil {
		t.Fatal(err)
	}
	mustRun(t, Config{Slots: 3, x: runopts.Options{Joblog: jl}}, jobs)
	jl.Close()
	recs, err := joblog.ReadFile(logPath)
	if err != nil || len(recs) != 6 {
		t.Fatalf("joblog: %d rows, %v; want 6", len(recs), err)
	}
	todo, skipped := joblog.Resume(jobs, jobSeq, recs, true)
	if skipped != 5 || len(todo) != 1 || todo[0].Seq != 3 {
		t.Fatalf("Resume: %d skipped, todo %v; want the failed job 3", skipped, todo)
	}
}

func TestRunInterruptThenResume(t *testing.T) {
	dir := t.TempDir()
	logPath := filepath.Join(dir, "log.tsv")
	marks := filepath.Join(dir, "marks")
	pids := filepath.Join(dir, "pids")
	var cmds []string
	for i := range 12 {
		sleep := "0.01"
		if i >= 4 {
			sleep = "60" // these are running or waiting when the batch is stopped
		}
		cmds = append(cmds, fmt.Sprintf("echo $$ >> %s; sleep %s; echo %d >> %s", pids, sleep, i, marks))
	}
	jobs := lines(cmds...)
	jl, _ := joblog.Open(logPath, false)
	ctx, cancel := context.WithCancelCause(context.Background())
	var once sync.Once
	cfg := Config{Slots: 3, Order: OrderInput, Grace: 200 * time.Millisecond, Progress: func(p Progress) {
		if p.Succeeded == 4 && p.Running == 3 {
			once.Do(func() { cancel(errors.New("test stop")) })
		}
	}, x: runopts.Options{Joblog: jl}}
	s, err := Run(ctx, cfg, jobs)
	jl.Close()
	if !errors.Is(err, ErrInterrupted) || !strings.Contains(err.Error(), "test stop") {
		t.Fatalf("Run error %v; want ErrInterrupted with the cause", err)
	}
	if s.Succeeded != 4 || s.NotRun != 8 || s.Failed != 0 {
		t.Fatalf("summary %+v; want 4 succeeded, 8 not run", s)
	}
	waitGone(t, pids)

	// The rerun, with the long jobs made short, completes the rest.
	recs, err := joblog.ReadFile(logPath)
	if err != nil || len(recs) != 4 {
		t.Fatalf("joblog after stop: %d rows, %v; want the 4 finished", len(recs), err)
	}
	todo, skipped := joblog.Resume(jobs, jobSeq, recs, true)
	if skipped != 4 || len(todo) != 8 {
		t.Fatalf("Resume: %d skipped, %d todo; want 4, 8", skipped, len(todo))
	}
	for i := range todo {
		todo[i].Command = strings.Replace(todo[i].Command, "sleep 60", "sleep 0.01", 1)
	}
	s = mustRun(t, Config{Slots: 3}, todo)
	if s.Succeeded != 8 {
		t.Fatalf("rerun: %+v", s)
	}
	data, _ := os.ReadFile(marks)
	got := strings.Fields(string(data))
	slices.Sort(got)
	want := []string{"0", "1", "10", "11", "2", "3", "4", "5", "6", "7", "8", "9"}
	if !slices.Equal(got, want) {
		t.Errorf("jobs that ran to the end: %v; want each of 0..11 exactly once", got)
	}
}

func TestRunSummaryMetrics(t *testing.T) {
	jobs := []Job{{Seq: 1, Command: "sleep 0.05", Weight: 1}, {Seq: 2, Command: "sleep 0.05", Weight: 1}, {Seq: 3, Command: "sleep 0.8", Weight: 6}}
	s := mustRun(t, Config{Slots: 2}, jobs)
	if !s.lpt || s.costsKnown != 3 || s.estimated {
		t.Fatalf("summary %+v; want LPT from 3 weights, estimated from measured times", s)
	}
	// Input order puts the long job third, on top of a short one; longest
	// first runs it alongside both.
	if saving, ok := s.Saving(); !ok || saving <= 0 {
		t.Errorf("Saving() = %v, %v; want a positive saving", saving, ok)
	}
	if s.Utilization <= 0 || s.Utilization > 1 || s.Imbalance < 1 || s.StragglerRatio < 1 {
		t.Errorf("metrics utilization %v imbalance %v straggler %v", s.Utilization, s.Imbalance, s.StragglerRatio)
	}
	str := s.String()
	for _, w := range []string{"jobs 3: 3 succeeded, 0 failed", "makespan", "utilization", "load imbalance", "straggler ratio", "longest first"} {
		if !strings.Contains(str, w) {
			t.Errorf("summary %q lacks %q", str, w)
		}
	}
}

func TestRunInvalidConfig(t *testing.T) {
	for _, cfg := range []Config{{Retries: -1}, {Timeout: -time.Second}, {TimeoutFactor: -2}} {
		if _, err := Run(context.Background(), cfg, lines("true")); !errors.Is(err, ErrInvalidConfig) {
			t.Errorf("Run(%+v) error %v; want ErrInvalidConfig", cfg, err)
		}
	}
}

func jobSeq(j Job) int { return j.Seq }
