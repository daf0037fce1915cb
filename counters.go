package worksteal

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/worksteal/worksteal/internal/hwcount"
	"github.com/worksteal/worksteal/internal/machine"
)

// Counters are hardware and kernel event counts and energy over some
// stretch of a program: a whole process (CountProcess, Stats.Counters) or
// one worker (WorkerStats.Counters, with Config.Pin).
//
// Hardware events (Instructions … LLCMisses) are user-space counts from
// Linux perf_event_open; ContextSwitches and PageFaults are the kernel's
// software events; Joules is the RAPL energy of the CPU packages (the whole
// machine's, not only this process's). A count this machine cannot give —
// no PMU in a VM, perf_event_paranoid too high, no /sys/class/powercap,
// energy readable by root only, memory bandwidth (never counted per
// process) — is named in Unavailable with the reason and reads 0: it is not
// a measurement. String prints such a count as "n/a".
type Counters struct {
	Instructions    uint64  // retired instructions
	Cycles          uint64  // CPU cycles
	CacheReferences uint64  // cache references (the last-level cache on most CPUs)
	CacheMisses     uint64  // cache misses (the last-level cache on most CPUs)
	LLCMisses       uint64  // last-level cache read misses
	ContextSwitches uint64  // the kernel's context switches
	PageFaults      uint64  // page faults
	Joules          float64 // CPU package energy (RAPL), machine-wide
	Elapsed         time.Duration

	// Unavailable maps the name of each count that could not be read
	// ("instructions", "cycles", "cache-references", "cache-misses",
	// "LLC-load-misses", "context-switches", "page-faults", "energy",
	// "memory-bandwidth") to why.
	Unavailable map[string]string
}

// Has reports whether the named count was read (see Counters.Unavailable
// for the names).
func (c Counters) Has(name string) bool {
	_, missing := c.Unavailable[name]
	return !missing
}

// IPC returns instructions per cycle, and false when either was not read
// or no cycle was counted.
func (c Counters) IPC() (float64, bool) {
	if !c.Has("instructions") || !c.Has("cycles") || c.Cycles == 0 {
		return 0, false
	}
	return float64(c.Instructions) / float64(c.Cycles), true
}

// CacheMissRate returns cache misses per cache reference, and false when
// either was not read or there were no references.
func (c Counters) CacheMissRate() (float64, bool) {
	if !c.Has("cache-misses") || !c.Has("cache-references") || c.CacheReferences == 0 {
		return 0, false
	}
	return float64(c.CacheMisses) / float64(c.CacheReferences), true
}

// Watts returns the mean power over Elapsed, and false when energy was not
// read.
func (c Counters) Watts() (float64, bool) {
	if !c.Has("energy") || c.Elapsed <= 0 {
		return 0, false
	}
	return c.Joules / c.Elapsed.Seconds(), true
}

// Sub returns the counts between an earlier reading and c.
func (c Counters) Sub(earlier Counters) Counters {
	d := func(a, b uint64) uint64 {
		if a < b {
			return 0
		}
		return a - b
	}
	r := c
	r.Instructions = d(c.Instructions, earlier.Instructions)
	r.Cycles = d(c.Cycles, earlier.Cycles)
	r.CacheReferences = d(c.CacheReferences, earlier.CacheReferences)
	r.CacheMisses = d(c.CacheMisses, earlier.CacheMisses)
	r.LLCMisses = d(c.LLCMisses, earlier.LLCMisses)
	r.ContextSwitches = d(c.ContextSwitches, earlier.ContextSwitches)
	r.PageFaults = d(c.PageFaults, earlier.PageFaults)
	r.Joules = c.Joules - earlier.Joules
	r.Elapsed = c.Elapsed - earlier.Elapsed
	return r
}

// add adds o's counts to c (Stats.Total); Unavailable is c's.
func (c *Counters) add(o Counters) {
	c.Instructions += o.Instructions
	c.Cycles += o.Cycles
	c.CacheReferences += o.CacheReferences
	c.CacheMisses += o.CacheMisses
	c.LLCMisses += o.LLCMisses
	c.ContextSwitches += o.ContextSwitches
	c.PageFaults += o.PageFaults
	c.Joules += o.Joules
	c.Elapsed = max(c.Elapsed, o.Elapsed)
	if c.Unavailable == nil && o.Unavailable != nil {
		c.Unavailable = o.Unavailable
	}
}

// String is one line of the counts, "n/a" for those not read, then the
// rates that can be computed; the reasons are in Unavailable (Reasons).
func (c Counters) String() string {
	var b strings.Builder
	num := func(name string, v uint64) {
		if b.Len() > 0 {
			b.WriteString(" ")
		}
		if c.Has(name) {
			fmt.Fprintf(&b, "%s=%d", name, v)
		} else {
			fmt.Fprintf(&b, "%s=n/a", name)
		}
	}
	num("instructions", c.Instructions)
	num("cycles", c.Cycles)
	num("cache-references", c.CacheReferences)
	num("cache-misses", c.CacheMisses)
	num("LLC-load-misses", c.LLCMisses)
	num("context-switches", c.ContextSwitches)
	num("page-faults", c.PageFaults)
	if c.Has("energy") {
		fmt.Fprintf(&b, " energy=%.3fJ", c.Joules)
	} else {
		b.WriteString(" energy=n/a")
	}
	if ipc, ok := c.IPC(); ok {
		fmt.Fprintf(&b, " ipc=%.2f", ipc)
	}
	if r, ok := c.CacheMissRate(); ok {
		fmt.Fprintf(&b, " cache-miss-rate=%.2f%%", 100*r)
	}
	if w, ok := c.Watts(); ok {
		fmt.Fprintf(&b, " power=%.1fW", w)
	}
	return b.String()
}

// Reasons lists why each missing count is missing, one "name: reason" per
// line, the names sorted; counts with the same reason share a line.
func (c Counters) Reasons() string {
	byReason := map[string][]string{}
	for name, why := range c.Unavailable {
		byReason[why] = append(byReason[why], name)
	}
	var lines []string
	for why, names := range byReason {
		slices.Sort(names)
		lines = append(lines, strings.Join(names, ", ")+": unavailable: "+why)
	}
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}

// ProcessCounters counts the events of the whole process (every thread:
// workers, other goroutines, the Go runtime's garbage collector) and the
// machine's RAPL energy. Create it with CountProcess.
type ProcessCounters struct {
	start  time.Duration
	energy machine.Energy
	why    map[string]string
	base   Counters
	mu     sync.Mutex
	proc   *hwcount.Process // nil when no event could be opened, or after Close
	final  *Counters        // the counts at Close
}

// CountProcess starts counting the process's hardware and kernel events
// and the machine's energy. Counts that this machine cannot give are named,
// with the reason, in the Unavailable map of every reading. Close it when
// done: each thread's counters hold a file descriptor per event.
func CountProcess() *ProcessCounters {
	c := &ProcessCounters{start: now(), why: map[string]string{}}
	proc, missing, err := hwcount.OpenProcess()
	for e, reason := range missing {
		c.why[e.String()] = reason
	}
	if err != nil {
		for e := range hwcount.NumEvents {
			if _, ok := c.why[e.String()]; !ok {
				c.why[e.String()] = err.Error()
			}
		}
	}
	c.proc = proc
	c.why["memory-bandwidth"] = hwcount.MemoryBandwidthReason()
	if e, err := (machine.FS{}).Energy(); err != nil {
		c.why["energy"] = err.Error()
	} else {
		c.energy = e
	}
	c.base = c.read()
	return c
}

// read returns the absolute counts (energy since the start).
func (c *ProcessCounters) read() Counters {
	var v hwcount.Values
	if c.proc != nil {
		v = c.proc.Read()
	}
	r := countersOf(v, c.why)
	r.Elapsed = now() - c.start
	if _, gone := c.why["energy"]; !gone {
		if e, err := (machine.FS{}).Energy(); err == nil {
			r.Joules = e.JoulesSince(c.energy)
		}
	}
	return r
}

// Read returns the counts since CountProcess (up to Close, after Close).
func (c *ProcessCounters) Read() Counters {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.final != nil {
		return *c.final
	}
	return c.read().Sub(c.base)
}

// Close stops counting and releases the counters.
func (c *ProcessCounters) Close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.final != nil {
		return
	}
	f := c.read().Sub(c.base)
	c.final = &f
	if c.proc != nil {
		c.proc.Close()
		c.proc = nil
	}
}

// countersOf converts hwcount's values; every event named in why is left
// 0 and listed as unavailable.
func countersOf(v hwcount.Values, why map[string]string) Counters {
	c := Counters{
		Instructions:    v[hwcount.Instructions],
		Cycles:          v[hwcount.Cycles],
		CacheReferences: v[hwcount.CacheRefs],
		CacheMisses:     v[hwcount.CacheMisses],
		LLCMisses:       v[hwcount.LLCMisses],
		ContextSwitches: v[hwcount.ContextSwitches],
		PageFaults:      v[hwcount.PageFaults],
	}
	if len(why) > 0 {
		c.Unavailable = maps.Clone(why)
	}
	return c
}

// workerCounters are the counters of one pinned worker's thread. A worker
// whose goroutine is replaced (runtime.Goexit in a task) runs on a new
// thread: its counters are added as another set.
type workerCounters struct {
	mu     sync.Mutex
	sets   []*hwcount.Set
	closed hwcount.Values // counts of the sets closed so far
	why    map[string]string
	start  time.Duration
}

// poolCounters are a pool's counters (Config.Counters): the process's
// since New, and, with Config.Pin, each regular worker's thread.
type poolCounters struct {
	proc    *ProcessCounters
	workers []*workerCounters // nil without Pin
}

func newPoolCounters(cfg Config) *poolCounters {
	if !cfg.Counters {
		return nil
	}
	pc := &poolCounters{proc: CountProcess()}
	if cfg.Pin {
		pc.workers = make([]*workerCounters, cfg.Workers)
		for i := range pc.workers {
			pc.workers[i] = &workerCounters{}
		}
	}
	return pc
}

// close stops counting (Pool.Close, after the workers exited).
func (pc *poolCounters) close() {
	if pc == nil {
		return
	}
	pc.proc.Close()
	for _, wc := range pc.workers {
		wc.close()
	}
}

// fill sets the counters of a Stats snapshot.
func (pc *poolCounters) fill(s *Stats) {
	if pc == nil {
		return
	}
	c := pc.proc.Read()
	s.Counters = &c
	for i, wc := range pc.workers {
		if i < len(s.Workers) {
			s.Workers[i].Counters = wc.read()
		}
	}
}

// startWorker is called by a worker goroutine once it is locked to its
// thread (Config.Pin): from then on that thread is counted as the worker's.
func (pc *poolCounters) startWorker(w *Worker) {
	if pc == nil || pc.workers == nil || w.spare {
		return
	}
	pc.workers[w.id].open()
}

// open starts counting the calling thread.
func (wc *workerCounters) open() {
	s, missing, err := hwcount.Open(0)
	wc.mu.Lock()
	defer wc.mu.Unlock()
	if wc.why == nil {
		wc.why = map[string]string{"energy": "energy is measured per machine, not per worker (see Stats.Counters)",
			"memory-bandwidth": hwcount.MemoryBandwidthReason()}
		for e, r := range missing {
			wc.why[e.String()] = r
		}
		wc.start = now()
	}
	if err != nil {
		for e := range hwcount.NumEvents {
			wc.why[e.String()] = err.Error()
		}
		return
	}
	wc.sets = append(wc.sets, s)
}

func (wc *workerCounters) read() *Counters {
	wc.mu.Lock()
	defer wc.mu.Unlock()
	if wc.why == nil {
		return nil // the worker has not started yet
	}
	v := wc.closed
	for _, s := range wc.sets {
		v.Add(s.Read())
	}
	c := countersOf(v, wc.why)
	c.Elapsed = now() - wc.start
	return &c
}

func (wc *workerCounters) close() {
	wc.mu.Lock()
	defer wc.mu.Unlock()
	for _, s := range wc.sets {
		wc.closed.Add(s.Read())
		s.Close()
	}
	wc.sets = nil
}
