// Package throttle is what GNU parallel's --load, --memfree, --memsuspend
// and --limit read of the machine (worksteal run and worksteal worker set
// it): the readings and the limits a job start is held back by.
// runner.Run holds its jobs back by a Throttle that worksteal run gives it
// (internal/runopts); the gate that does so is runner's.
package throttle

import (
	"bufio"
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"os"
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
	// reading. A killed job has failed: runner.Config.Retries runs it again.
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

// Reading is what a Throttle reads of the machine.
type Reading struct {
	Load    float64 // processes running or waiting for the disk, less the reader
	MemFree int64   // bytes free, GNU parallel's reckoning
}

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

// MemInfoEnv names the environment variable that, when set, names a file
// read instead of /proc/meminfo for the free memory (--memfree,
// --memsuspend, --limit mem): a test hook, so that a test can lower and
// raise the free memory a run sees.
const MemInfoEnv = "WORKSTEAL_MEMINFO"

// MemLimit is the free memory a job needs to start: GNU's memlimit,
// --memfree plus --memsuspend.
func (t *Throttle) MemLimit() int64 { return max(t.MemFree, 0) + max(t.MemSuspend, 0) }

// Now takes a reading: Read's, or ReadMachine's when Read is nil.
func (t *Throttle) Now() (Reading, error) {
	if t.Read != nil {
		return t.Read()
	}
	return ReadMachine()
}

// Interval is the time between readings: Every, or one second.
func (t *Throttle) Interval() time.Duration {
	if t.Every <= 0 {
		return time.Second
	}
	return t.Every
}
