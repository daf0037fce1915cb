package runner

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// --halt now,fail=1: the failure stops the job still running (its whole
// process group), which is neither a result nor a joblog row, and the exit
// status is the failed job's.
func TestRunHaltNowStopsTheRunningJobs(t *testing.T) {
	dir := t.TempDir()
	pid := filepath.Join(dir, "pid")
	var out lockedBuffer
	jobs := lines("echo $$ > "+pid+"; sleep 30 & wait", "sleep 0.2; exit 3", "echo never")
	s := mustRun(t, Config{Slots: 2, Halt: Halt{When: HaltNow, Why: HaltOnFail, Count: 1}, Stdout: &out, Stderr: &out}, jobs)
	if !s.Halted || !s.HaltSet || s.HaltStatus != 3 {
		t.Errorf("Halted %v, HaltSet %v, HaltStatus %d; want true, true, 3", s.Halted, s.HaltSet, s.HaltStatus)
	}
	if len(s.Results) != 1 || s.Results[0].Seq != 2 || s.NotRun != 2 {
		t.Errorf("results %v, not run %d; want job 2 alone, 2 not run", s.Results, s.NotRun)
	}
	if strings.Contains(out.String(), "never") || !strings.Contains(out.String(), "This job failed:\nsleep 0.2; exit 3") {
		t.Errorf("output %q: want the halt's notice and no job 3", out.String())
	}
	waitGone(t, pid)
}

// --halt soon: no job starts after the condition is met; the running ones
// finish and count.
func TestRunHaltSoonLetsRunningJobsFinish(t *testing.T) {
	h, err := ParseHalt("soon,fail=1")
	if err != nil {
		t.Fatal(err)
	}
	s := mustRun(t, Config{Slots: 2, Halt: h}, lines("sleep 0.5; exit 4", "exit 2", "true", "true"))
	var seqs []int
	for _, r := range s.Results {
		seqs = append(seqs, r.Seq)
	}
	if !slices.Equal(seqs, []int{1, 2}) || s.HaltStatus != 2 || s.Failed != 2 {
		t.Errorf("results %v, HaltStatus %d, failed %d; want jobs 1 and 2, status 2 (the first failure's), 2 failed", seqs, s.HaltStatus, s.Failed)
	}
}

// --line-buffer: each line is written whole as it comes, tagged; a line
// written in parts stays whole; the last line without a newline is written
// at the end. Run under -race: the jobs' streams and the runner's own lines
// share the writers.
func TestRunLineBufferWritesWholeTaggedLines(t *testing.T) {
	jobs, err := Input{Template: []string{"printf a{}; sleep 0.1; echo b{}; printf 'c{}\\nd{}'; echo e{} >&2"}, Tag: ptr("t{}"), Sources: []Source{args("1", "2", "3")}}.Jobs()
	if err != nil {
		t.Fatal(err)
	}
	var out, errs lockedBuffer
	s := mustRun(t, Config{Slots: 3, Output: OutputLineBuffer, Tag: true, Stdout: &out, Stderr: &errs}, jobs)
	// The last line of each job lacks its newline: the next job's first
	// line may follow it at once.
	for _, k := range []string{"1", "2", "3"} {
		if !strings.Contains(out.String(), "t"+k+"\ta"+k+"b"+k+"\n") || !strings.Contains(out.String(), "t"+k+"\tc"+k+"\n") {
			t.Errorf("stdout lacks the whole tagged lines of job %s:\n%s", k, out.String())
		}
		if !strings.Contains(errs.String(), "t"+k+"\te"+k+"\n") || !strings.Contains(out.String(), "t"+k+"\td"+k) {
			t.Errorf("job %s: stderr %q, stdout %q: want t%s<tab>e%s and the last line t%s<tab>d%s", k, errs.String(), out.String(), k, k, k, k)
		}
	}
	if s.Results[0].Received != int64(len("a1b1\nc1\nd1")) {
		t.Errorf("job 1 received %d bytes; want %d (what it wrote to stdout)", s.Results[0].Received, len("a1b1\nc1\nd1"))
	}
}

func ptr(s string) *string { return &s }

// Jobs of several records: -N2 positions, -X context replace and the
// spread of -X over the slots, as GNU parallel.
func TestInputRecordsPerJob(t *testing.T) {
	cases := []struct {
		name string
		in   Input
		want []string
	}{
		{"-N2", Input{Template: []string{"echo", "{2}-{1}"}, MaxArgs: 2, ContextReplace: true, Sources: []Source{args("a", "b", "c")}}, []string{"echo b-a", "echo -c"}},
		{"-X", Input{Template: []string{"echo", "x{}y"}, Fill: true, ContextReplace: true, Sources: []Source{args("a", "b")}}, []string{"echo xay xby"}},
		{"-m", Input{Template: []string{"echo", "x{}y"}, Fill: true, Sources: []Source{args("a", "b")}}, []string{"echo xa by"}},
		{"-X spread over 3", Input{Template: []string{"echo"}, Fill: true, Spread: 3, Sources: []Source{args("1", "2", "3", "4", "5", "6", "7")}}, []string{"echo 1 2 3", "echo 4 5 6", "echo 7"}},
		{"-N0", Input{Template: []string{"echo", "hi"}, NoArgs: true, MaxArgs: 0, Sources: []Source{args("1", "2")}}, []string{"echo hi ", "echo hi "}},
		{"MaxLen packs", Input{Template: []string{"echo"}, Fill: true, MaxLen: 12, Sources: []Source{args("aa", "bb", "cc", "dd")}}, []string{"echo aa bb", "echo cc dd"}},
		{"--header names", Input{Template: []string{"echo", "{b}{a.}"}, Header: true, Sources: []Source{args("a", "x.y"), args("b", "z")}}, []string{"echo zx"}},
		{"-d ,", Input{Template: []string{"echo"}, Delimiter: ",", Lines: strings.NewReader("a,b\n")}, []string{"echo a", "echo 'b\n'"}},
		{"--trim lr", Input{Template: []string{"echo", "[{}]"}, Trim: "lr", Sources: []Source{args(" a ")}}, []string{"echo [a]"}},
	}
	for _, tc := range cases {
		jobs, err := tc.in.Jobs()
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got := commands(jobs); !slices.Equal(got, tc.want) {
			t.Errorf("%s: %q; want %q", tc.name, got, tc.want)
		}
	}
}
