package runner

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/worksteal/worksteal/internal/runopts"
)

// --halt now,fail=1: the failure stops the job still running (its whole
// process group), which is neither a result nor a joblog row, and the exit
// status is the failed job's.
func TestRunHaltNowStopsTheRunningJobs(t *testing.T) {
	dir := t.TempDir()
	pid := filepath.Join(dir, "pid")
	var out lockedBuffer
	// Job 2 fails once job 1 has written its pid (with a sleep 0.2 in its
	// place, job 1's shell could be stopped on a busy machine before it
	// wrote it). The loop is bounded: a minute.
	fail := "for i in $(seq 6000); do [ -s " + pid + " ] && break; sleep 0.01; done; exit 3"
	jobs := lines("echo $$ > "+pid+"; sleep 30 & wait", fail, "echo never")
	s := mustRun(t, Config{Slots: 2, Halt: Halt{When: HaltNow, Why: HaltOnFail, Count: 1}, Stdout: &out, Stderr: &out}, jobs)
	if !s.Halted || !s.haltSet || s.haltStatus != 3 {
		t.Errorf("Halted %v, HaltSet %v, HaltStatus %d; want true, true, 3", s.Halted, s.haltSet, s.haltStatus)
	}
	if len(s.Results) != 1 || s.Results[0].Seq != 2 || s.NotRun != 2 {
		t.Errorf("results %v, not run %d; want job 2 alone, 2 not run", s.Results, s.NotRun)
	}
	if strings.Contains(out.String(), "never") || !strings.Contains(out.String(), "This job failed:\n"+fail) {
		t.Errorf("output %q: want the halt's notice and no job 3", out.String())
	}
	waitGone(t, pid)
}

// --halt soon: no job starts after the condition is met; the running ones
// finish and count.
func TestRunHaltSoonLetsRunningJobsFinish(t *testing.T) {
	h := Halt{When: HaltSoon, Why: HaltOnFail, Count: 1}
	// Job 1 ends once the run has taken job 2's end (Attempts is called
	// by the run's loop as it takes an end, before the halt is decided):
	// with a sleep 0.5 in its place, job 2's shell starting half a second
	// late on a busy machine made job 1's failure the first. Bounded: a
	// minute.
	seen := filepath.Join(t.TempDir(), "seen2")
	cfg := Config{Slots: 2, Halt: h}
	cfg.x.Attempts = func(a runopts.Attempt) {
		if a.Seq == 2 && a.Ended {
			os.WriteFile(seen, nil, 0o644)
		}
	}
	s := mustRun(t, cfg, lines("for i in $(seq 6000); do [ -e "+seen+" ] && break; sleep 0.01; done; exit 4", "exit 2", "true", "true"))
	var seqs []int
	for _, r := range s.Results {
		seqs = append(seqs, r.Seq)
	}
	if !slices.Equal(seqs, []int{1, 2}) || s.haltStatus != 2 || s.Failed != 2 {
		t.Errorf("results %v, HaltStatus %d, failed %d; want jobs 1 and 2, status 2 (the first failure's), 2 failed", seqs, s.haltStatus, s.Failed)
	}
}
