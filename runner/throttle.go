package runner

// This file holds jobs back while the machine has no room for them (GNU
// parallel's --load and --memfree) and runs them at a niceness (--nice).
//
// Invariants: the gate is the run loop's (owned by its goroutine, like the
// rest of run). A start is held back only while a recheck is armed
// (gate.recheck non-nil), so a held-back job cannot wait for a wake-up
// that never comes; the memory is watched by the same timer while jobs
// run.

import (
	"bufio"
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// Throttle holds jobs back while the machine has no room for them, as GNU
// parallel's --load and --memfree do: a job starts only when the readings
// allow it, and they are read again every Every while a job waits (or,
// with MemFree, while jobs run).
type Throttle struct {
	// MaxLoad, if > 0, starts a job only while the load is below it. The
	// load is GNU parallel's: the processes running or waiting for the
	// disk now (procs_running + procs_blocked of /proc/stat), less the
	// one reading it.
	MaxLoad float64
	// MemFree, if > 0, starts a job only while at least MemFree bytes of
	// memory are free (GNU parallel's reckoning: MemFree + Buffers +
	// Cached + SwapCached of /proc/meminfo), and, while less than half of
	// it is, kills the youngest running job (the highest Seq) at each
	// reading. A killed job has failed: Config.Retries runs it again.
	MemFree int64
	// MemSuspend, if > 0, is GNU parallel's --memsuspend (memsuspend.go):
	// a job starts only while MemFree + MemSuspend bytes are free, and
	// while less than twice MemSuspend is, running jobs' process groups
	// are stopped (SIGSTOP), the youngest first, and continued (SIGCONT)
	// as the memory comes back.
	MemSuspend int64
	// Every is the time between readings; ≤ 0 means one second.
	Every time.Duration
	// Read, if set, takes the readings instead of /proc (for tests, and
	// for systems without it).
	Read func() (Reading, error)
	// Limit, if set, is GNU parallel's --limit: asked before each start
	// and, while jobs run, at each reading. 0: below the limit, a job may
	// start; 1: over it, none starts; 2: way over it, none starts and the
	// youngest running job (the highest Seq) is killed (it has failed).
	Limit func() int
}

// errOverLimit is the cause of a job killed by Throttle.Limit.
var errOverLimit = errors.New("runner: killed: --limit said 2 (way over the limit)")

// Reading is what a Throttle reads of the machine.
type Reading struct {
	Load    float64 // processes running or waiting for the disk, less the reader
	MemFree int64   // bytes free, GNU parallel's reckoning
}

// errLowMemory is the cause of a job killed by Throttle.MemFree.
var errLowMemory = errors.New("runner: killed: free memory below half of --memfree")

// ReadMachine reads the load and the free memory from /proc (Linux).
func ReadMachine() (Reading, error) {
	var r Reading
	stat, err := os.ReadFile("/proc/stat")
	if err != nil {
		return r, fmt.Errorf("reading the load: %w", err)
	}
	running, blocked := -1.0, 0.0
	for _, l := range strings.Split(string(stat), "\n") {
		f := strings.Fields(l)
		if len(f) != 2 {
			continue
		}
		switch f[0] {
		case "procs_running":
			running, _ = strconv.ParseFloat(f[1], 64)
		case "procs_blocked":
			blocked, _ = strconv.ParseFloat(f[1], 64)
		}
	}
	if running < 0 {
		return r, errors.New("reading the load: /proc/stat has no procs_running")
	}
	r.Load = max(0, running+blocked-1)
	mem, err := os.ReadFile(cmp.Or(os.Getenv(MemInfoEnv), "/proc/meminfo"))
	if err != nil {
		return r, fmt.Errorf("reading the free memory: %w", err)
	}
	r.MemFree, err = memFree(mem)
	return r, err
}

// ReadSwap reads the pages swapped in and out since boot (pswpin and
// pswpout of /proc/vmstat, Linux), for GNU parallel's --noswap.
func ReadSwap() (in, out int64, err error) {
	b, err := os.ReadFile("/proc/vmstat")
	if err != nil {
		return 0, 0, fmt.Errorf("reading the swap activity: %w", err)
	}
	found := 0
	for _, l := range strings.Split(string(b), "\n") {
		name, v, ok := strings.Cut(l, " ")
		if !ok || (name != "pswpin" && name != "pswpout") {
			continue
		}
		n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if err != nil {
			return 0, 0, fmt.Errorf("reading the swap activity: /proc/vmstat %s: %q", name, v)
		}
		if name == "pswpin" {
			in = n
		} else {
			out = n
		}
		found++
	}
	if found != 2 {
		return 0, 0, errors.New("reading the swap activity: /proc/vmstat has no pswpin and pswpout")
	}
	return in, out, nil
}

// memFree sums GNU parallel's fields of /proc/meminfo, in bytes.
func memFree(meminfo []byte) (int64, error) {
	var kb int64
	found := false
	sc := bufio.NewScanner(bytes.NewReader(meminfo))
	for sc.Scan() {
		name, rest, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		switch name {
		case "MemFree", "Buffers", "Cached", "SwapCached":
			f := strings.Fields(rest)
			if len(f) == 0 {
				continue
			}
			v, err := strconv.ParseInt(f[0], 10, 64)
			if err != nil {
				return 0, fmt.Errorf("reading the free memory: /proc/meminfo %s: %q", name, rest)
			}
			kb += v
			found = found || name == "MemFree"
		}
	}
	if !found {
		return 0, errors.New("reading the free memory: /proc/meminfo has no MemFree")
	}
	return kb * 1024, nil
}

func (t *Throttle) read() (Reading, error) {
	if t.Read != nil {
		return t.Read()
	}
	return ReadMachine()
}

func (t *Throttle) every() time.Duration {
	if t.Every <= 0 {
		return time.Second
	}
	return t.Every
}

// gate is the run's Throttle state. Owned by the loop goroutine.
type gate struct {
	recheck <-chan time.Time // armed while a start waits or the memory is watched
	held    bool             // a start is being held back now
}

// armGate makes sure a reading comes within Every.
func (r *run) armGate() {
	if r.gate.recheck == nil {
		r.gate.recheck = time.After(r.cfg.Throttle.every())
	}
}

// roomForJob says a job may start now; if not, a recheck is armed.
func (r *run) roomForJob() bool {
	t := r.cfg.Throttle
	if t == nil || (t.MaxLoad <= 0 && t.memLimit() <= 0 && t.Limit == nil) {
		return true
	}
	ok := true
	if t.MaxLoad > 0 || t.memLimit() > 0 {
		rd, err := t.read()
		// As GNU parallel: a reading that fails is no room.
		ok = err == nil && (t.MaxLoad <= 0 || rd.Load < t.MaxLoad) && rd.MemFree >= t.memLimit()
	}
	if ok && t.Limit != nil {
		ok = t.Limit() == 0 // GNU: any other answer starts nothing
	}
	r.gate.held = !ok
	if !ok || t.memLimit() > 0 || t.Limit != nil {
		r.armGate()
	}
	return ok
}

// checkMemory kills the youngest running job while free memory is below
// half of MemFree (one a reading: the memory a killed job frees shows in
// the next), and keeps the memory watched while jobs run.
func (r *run) checkMemory() {
	t := r.cfg.Throttle
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
	rd, err := t.read()
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
