package runner

// This file holds jobs back while the machine has no room for them (GNU
// parallel's --load and --memfree, a throttle.Throttle that worksteal run
// sets through runopts) and runs them at a niceness (--nice).
//
// Invariants: the gate is the run loop's (owned by its goroutine, like the
// rest of run). A start is held back only while a recheck is armed
// (gate.recheck non-nil), so a held-back job cannot wait for a wake-up
// that never comes; the memory is watched by the same timer while jobs
// run.

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// errOverLimit is the cause of a job killed by Throttle.Limit.
var errOverLimit = errors.New("runner: killed: --limit said 2 (way over the limit)")

// errLowMemory is the cause of a job killed by Throttle.MemFree.
var errLowMemory = errors.New("runner: killed: free memory below half of --memfree")

// gate is the run's Throttle state. Owned by the loop goroutine.
type gate struct {
	recheck <-chan time.Time // armed while a start waits or the memory is watched
	held    bool             // a start is being held back now
}

// armGate makes sure a reading comes within Every.
func (r *run) armGate() {
	if r.gate.recheck == nil {
		r.gate.recheck = time.After(r.cfg.x.Throttle.Interval())
	}
}

// roomForJob says a job may start now; if not, a recheck is armed.
func (r *run) roomForJob() bool {
	t := r.cfg.x.Throttle
	if t == nil || (t.MaxLoad <= 0 && t.MemLimit() <= 0 && t.Limit == nil) {
		return true
	}
	ok := true
	if t.MaxLoad > 0 || t.MemLimit() > 0 {
		rd, err := t.Now()
		// As GNU parallel: a reading that fails is no room.
		ok = err == nil && (t.MaxLoad <= 0 || rd.Load < t.MaxLoad) && rd.MemFree >= t.MemLimit()
	}
	if ok && t.Limit != nil {
		ok = t.Limit() == 0 // GNU: any other answer starts nothing
	}
	r.gate.held = !ok
	if !ok || t.MemLimit() > 0 || t.Limit != nil {
		r.armGate()
	}
	return ok
}

// checkMemory kills the youngest running job while free memory is below
// half of MemFree (one a reading: the memory a killed job frees shows in
// the next), and keeps the memory watched while jobs run.
func (r *run) checkMemory() {
	t := r.cfg.x.Throttle
	if t == nil || r.running == 0 {
		return
	}
	r.suspendForMemory() // memsuspend.go
	if t.Limit != nil {
		r.armGate()
		if t.Limit() == 2 {
			r.killYoungest(errOverLimit)
			return
		}
	}
	if t.MemFree <= 0 {
		return
	}
	r.armGate()
	rd, err := t.Now()
	if err != nil || rd.MemFree >= t.MemFree/2 {
		return
	}
	r.killYoungest(errLowMemory)
}

// killYoungest stops the running attempt of the highest Seq (the latest
// started of its copies) with cause.
func (r *run) killYoungest(cause error) {
	var young *attempt
	for _, js := range r.jobs {
		for _, a := range js.running {
			if young == nil || js.job.Seq > young.js.job.Seq || (js.job.Seq == young.js.job.Seq && a.start.After(young.start)) {
				young = a
			}
		}
	}
	if young != nil {
		young.cancel(cause)
	}
}

// ownNice is this process's niceness (0 where it cannot be read).
func ownNice() int {
	if runtime.GOOS != "linux" {
		return 0
	}
	b, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return 0
	}
	// The fields after the command name "(...)": state is the first,
	// nice the 17th.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 17 {
		return 0
	}
	n, _ := strconv.Atoi(f[16])
	return n
}

// niceCommand runs shell -c line at niceness n through nice(1): GNU
// parallel's --nice. A niceness at or below the runner's own leaves the
// command at the runner's (an unprivileged process cannot lower it).
func niceCommand(n int, shell, line string) *exec.Cmd {
	incr := n - ownNice()
	if incr <= 0 {
		return exec.Command(shell, "-c", line)
	}
	return exec.Command("nice", "-n", strconv.Itoa(incr), shell, "-c", line)
}
