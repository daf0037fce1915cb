package worksteal

import (
	"bytes"
	"fmt"
	"log"
	"math"
	"reflect"
	"runtime"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/worksteal/worksteal/internal/machine"
)

// The stall monitor: a goroutine of the pool (while computations are in
// flight) that samples each worker's progress word every StallAfter/2 and
// acts on two kinds of stall that the workers cannot see themselves.
//
//   - A worker blocked in a task outside Blocking (I/O, a lock, a channel,
//     time.Sleep) for StallAfter while work is queued: the monitor starts a
//     spare worker for it, exactly as Blocking would have, so queued work
//     waits at most about 1.5 × StallAfter (default 10 ms, so about 15 ms),
//     plus the time a spare needs to reach it — StallAfter of the CPU time
//     a worker on a P could have had, where GOMAXPROCS exceeds the CPUs
//     (stalledFor: there the world is not stopped for every worker that
//     waits for a CPU). "Blocked" is the goroutine's
//     state in the runtime's stack dump (anything but running, runnable or
//     a stack copy, and not a wait for the runtime itself: see blocked): a
//     worker that computes for a long time without a poll point is not
//     blocked, and a spare would only share its CPU.
//   - A worker busy without progress for StallReport (default 1 s) while
//     work is queued or another worker is idle, and that no spare stands
//     in for: the monitor reports it once per stall, to Config.OnStall or
//     (at most once a minute) the standard logger, with the worker's
//     stack. This is how a first half that waits for its own latent second
//     half without polling (Join's doc) shows itself instead of hanging
//     silently, whether it spins or blocks: no other goroutine may take a
//     latent frame, so the monitor cannot hand it over, but it names the
//     worker, since when, and where it waits.
//     "For StallReport" is its own time, not the clock's: a worker that
//     waits (a blocked state) is charged the wall time; one that is
//     running or runnable is charged only the CPU time it can have had
//     (monWorker.ran, from the process's CPU time and the goroutines that
//     competed for it, cpuShare). A worker that is merely descheduled — an
//     overloaded machine, or CPU-bound goroutines beside the pool on too
//     few Ps — makes progress as soon as it runs, so it is never reported
//     however long it waits for a CPU.
//
// Progress word (Worker.mon): the owner stores it, the monitor loads it.
// Bit monIdle: the worker is in an idle stretch (searching, backing off,
// parked, retired), so not stalled whatever its count. Bit monBlocking:
// it is inside Blocking, already compensated. The rest counts progress:
// every job started or finished, every idle transition, every publish
// (every 4,096 Joins), every 8th Poll. Only the owner writes it, with a
// plain load and store (an atomic store: no read-modify-write).
const (
	monIdle     = 1
	monBlocking = 2
	monStep     = 4
)

// Default bounds of the stall monitor (Config.StallAfter, Config.StallReport).
const (
	defaultStallAfter  = 10 * time.Millisecond
	defaultStallReport = time.Second
)

// bump records progress. Owner only.
func (w *Worker) bump() { w.mon.Store(w.mon.Load() + monStep) }

// setMonBits sets the bits in mask to v and records progress. Owner only.
func (w *Worker) setMonBits(mask, v uint64) {
	w.mon.Store((w.mon.Load()&^mask | v) + monStep)
}

// Stall describes a worker the monitor found busy without progress.
type Stall struct {
	Worker int           // the worker's ID (spares: at or above Workers())
	Since  time.Time     // when it last made progress
	For    time.Duration // how long it had been stalled when reported (wall time)
	Ran    time.Duration // of For, the CPU time it can have had (an estimate; see Config.StallReport)
	State  string        // its goroutine's state in the runtime, as in a stack dump ("running", "chan receive", "sleep", …)
	Queued bool          // work was queued that nobody had taken
	Idle   int           // workers searching or parked when it was reported
	Spares int           // spare workers active (Blocking, or started by the monitor)
	Stack  string        // the worker goroutine's stack
	Advice string        // what usually causes such a stall
}

// String is the report written to the standard logger when Config.OnStall
// is nil.
func (s Stall) String() string {
	return fmt.Sprintf("worksteal: worker %d has made no progress for %v (%v of it with a CPU; since %s; goroutine state %q; work queued: %v; idle workers: %d; spares: %d). %s\n%s",
		s.Worker, s.For.Round(time.Millisecond), s.Ran.Round(time.Millisecond), s.Since.Format(time.RFC3339Nano), s.State, s.Queued, s.Idle, s.Spares, s.Advice, s.Stack)
}

const (
	adviceBlocked = "It is blocked outside Blocking: wrap waits (I/O, channels, locks, sleeps) in w.Blocking so the pool compensates at once; meanwhile the monitor has started spare workers."
	adviceBusy    = "It runs without a poll point: if it waits for the second half of its own Join (or for work it queued), it waits for itself; poll (w.Poll) or wait inside w.Blocking. A long sequential leaf should call w.Poll every few tens of microseconds."
)

// monitor is the pool's stall monitor (see above).
type monitor struct {
	after, report time.Duration
	onStall       func(Stall)
	stop          chan struct{}
	done          chan struct{}
	poke          chan struct{} // capacity 1: work arrived while dormant
	dormant       atomic.Bool
	// blocked is the number of stalled workers found blocked while work
	// was queued, each compensated by one spare: spares retire when more
	// are active than workers are inside Blocking plus this.
	blocked atomic.Int64
	// per-worker state, monitor goroutine only: regular workers, then spares.
	ws     []monWorker
	logged time.Time // last report written to the log (monitor goroutine only)
	// The last samples' times, process CPU times and goroutine counts,
	// newest first (cpuShare), and the scheduler's metrics read for them
	// (monitor goroutine only).
	looks [shareLooks]look
	sched []metrics.Sample
	// While saturated, no dump for a stalled worker before dumpAt: the
	// back-off after dumps that found nobody blocked (sample).
	dumpAt      time.Time
	dumpBackoff time.Duration
	// runtimeWaits counts the stalled workers that dumps found waiting for
	// the runtime (blockedState, not blocked): never compensated.
	runtimeWaits atomic.Int64
	// dumps counts the stack dumps taken (each stops the world).
	dumps atomic.Int64
	// cpus is how many CPUs the process may run on (usableCPUs, read when
	// the pool starts): osShare's.
	cpus int
}

// stallLogEvery rate-limits the reports written to the standard logger
// (Config.OnStall receives every one).
const stallLogEvery = time.Minute

type monWorker struct {
	w        *Worker
	v        uint64        // last progress word seen
	since    time.Time     // when v last changed
	ran      time.Duration // CPU time it can have had since then (cpuShare)
	onCPU    time.Duration // CPU time it can have had since then, had it held a P (cpuSlice.os)
	state    string        // goroutine state at the last dump ("" unknown)
	blocked  bool          // that state waits on another goroutine or the outside world (blocked)
	checkAt  time.Time     // next dump that may look at it (running: backoff)
	backoff  time.Duration
	reported bool
}

// startMonitor starts p's stall monitor unless Config.StallAfter < 0.
func (p *Pool) startMonitor() {
	if p.cfg.StallAfter < 0 {
		return
	}
	m := &monitor{
		after: p.cfg.StallAfter, report: p.cfg.StallReport, onStall: p.cfg.OnStall,
		stop: make(chan struct{}), done: make(chan struct{}), poke: make(chan struct{}, 1),
		cpus: usableCPUs(machine.FS{}),
	}
	p.mon = m
	// The monitor counts in running like a worker, so that the spares it
	// starts (running.Add) never race with Close's running.Wait: it exits
	// when the pool is finished, as workers do.
	p.running.Add(1)
	go m.run(p)
}

// stopMonitor stops the monitor and waits for its goroutine (Close; it
// has exited already, having seen the pool finished).
func (p *Pool) stopMonitor() {
	if m := p.mon; m != nil {
		close(m.stop)
		<-m.done
	}
}

// monitorWake is called by inject after counting a computation in flight,
// and by wakeForClose: a dormant monitor looks again. (The monitor sets
// dormant, then re-reads inflight and closed; inject adds to inflight, and
// the closer stores closed or takes inflight to zero, then reads dormant:
// one of the two sees the other.)
func (p *Pool) monitorWake() {
	if m := p.mon; m != nil && m.dormant.Load() {
		select {
		case m.poke <- struct{}{}:
		default:
		}
	}
}

// dumpCount is the number of stack dumps m took (0 without a monitor).
func (m *monitor) dumpCount() int64 {
	if m == nil {
		return 0
	}
	return m.dumps.Load()
}

func (m *monitor) blockedCount() int64 {
	if m == nil {
		return 0
	}
	return m.blocked.Load()
}

func (m *monitor) run(p *Pool) {
	defer p.running.Done()
	defer close(m.done)
	tick := max(m.after/2, 100*time.Microsecond)
	t := time.NewTimer(tick)
	defer t.Stop()
	for {
		if p.finished() {
			return
		}
		if p.inflight.Load() == 0 {
			m.dormant.Store(true)
			if p.inflight.Load() == 0 && !p.closed.Load() {
				m.blocked.Store(0)
				m.forget()
				select {
				case <-m.stop:
					return
				case <-m.poke:
				}
			}
			m.dormant.Store(false)
			t.Reset(tick)
		}
		select {
		case <-m.stop:
			return
		case <-m.poke:
			continue
		case now := <-t.C:
			m.sample(p, now)
			t.Reset(tick)
		}
	}
}

// forget drops what the monitor knew of the workers (the pool went idle).
func (m *monitor) forget() { m.ws, m.looks, m.dumpBackoff = m.ws[:0], [shareLooks]look{}, 0 }

// workers returns the monitor's entries for every worker and spare now.
func (m *monitor) workers(p *Pool, now time.Time) []monWorker {
	n := len(p.workers)
	if l := p.spares.list.Load(); l != nil {
		n += len(*l)
	}
	for len(m.ws) < n {
		i := len(m.ws)
		var w *Worker
		if i < len(p.workers) {
			w = p.workers[i]
		} else {
			w = p.spares.get(i - len(p.workers))
		}
		m.ws = append(m.ws, monWorker{w: w, v: w.mon.Load(), since: now})
	}
	return m.ws
}

// sample is one look at the pool: who is stalled, is work waiting, and
// what to do about it.
func (m *monitor) sample(p *Pool, now time.Time) {
	ws := m.workers(p, now)
	queued := p.workVisible()
	sleepers, searching := counts(p.sleep.state.Load())
	idle := int(sleepers + searching)
	sl := m.cpuShare(now)
	var stalled []*monWorker
	for i := range ws {
		e := &ws[i]
		v := e.w.mon.Load()
		if v != e.v || v&(monIdle|monBlocking) != 0 {
			*e = monWorker{w: e.w, v: v, since: now}
			continue
		}
		d := float64(min(sl.dt, now.Sub(e.since)))
		e.ran += time.Duration(d * sl.f)
		e.onCPU += time.Duration(d * sl.os)
		if stalledFor(now.Sub(e.since), e.onCPU, m.after) {
			stalled = append(stalled, e)
		}
	}
	if len(stalled) == 0 {
		m.blocked.Store(0)
		return
	}
	// A stack dump stops the world: take one only for a stalled worker
	// whose state is unknown, or that was running at the last look and
	// is due for another (backoff up to StallReport), or that is due for a
	// report. While goroutines wait for a P (saturated), a stalled worker
	// is most likely only waiting for a CPU: dumps that find nobody
	// blocked then back off, monitor-wide, from StallAfter up to
	// StallReport, so a batch of hundreds of CPU-bound goroutines is not
	// stopped every sample, and a worker blocked beside CPU-bound
	// goroutines still gets its spare within StallReport.
	var stacks []byte
	for _, e := range stalled {
		due := e.state == "" || (!e.blocked && !now.Before(e.checkAt))
		report := !e.reported && e.stuck(now) >= m.report && (queued || idle > 0)
		if (due && (queued || idle > 0) && (!sl.saturated || !now.Before(m.dumpAt))) || report {
			stacks = allStacks()
			m.dumps.Add(1)
			break
		}
	}
	if stacks != nil {
		// A worker whose word moved since the loop above ran between the
		// look and the dump (a runnable one got its CPU while the world
		// was stopping): the state in the dump is not its stall's. It is
		// not stalled; the next sample starts it afresh.
		kept := stalled[:0]
		for _, e := range stalled {
			if e.w.mon.Load() == e.v {
				kept = append(kept, e)
			}
		}
		stalled = kept
		for _, e := range stalled {
			st, stack := goroutineStack(stacks, e.w.gid.Load())
			e.state, e.blocked = st, blocked(st, stack)
			if blockedState(st) && !e.blocked {
				m.runtimeWaits.Add(1)
			}
			if !e.blocked {
				e.backoff = min(max(2*e.backoff, m.after), m.report)
				e.checkAt = now.Add(e.backoff)
			}
		}
	}
	var nblocked int64
	for _, e := range stalled {
		if e.blocked {
			nblocked++
		}
	}
	if stacks != nil {
		// Dumps that find nobody blocked back off while every P is busy.
		if nblocked == 0 {
			m.dumpBackoff = min(max(2*m.dumpBackoff, m.after), m.report)
		} else {
			m.dumpBackoff = 0
		}
		m.dumpAt = now.Add(m.dumpBackoff)
	}
	m.blocked.Store(nblocked)
	compensated := queued // blocked with nothing queued: its latent halves may be what waits
	if queued && nblocked > 0 {
		// Compensate as Blocking does: one active spare per blocked worker.
		for want := p.blocking.Load() + nblocked - p.spares.nactive.Load(); want > 0; want-- {
			if !p.spares.start(p) {
				compensated = false // MaxBlocking spares are active
				break
			}
		}
	}
	for _, e := range stalled {
		if e.reported || e.stuck(now) < m.report || !(queued || idle > 0) {
			continue
		}
		if e.blocked && compensated {
			continue // a spare stands in for it: nothing waits on it alone
		}
		e.reported = true
		_, stack := goroutineStack(stacks, e.w.gid.Load())
		s := Stall{Worker: e.w.id, Since: e.since, For: now.Sub(e.since), Ran: min(e.ran, now.Sub(e.since)), State: e.state,
			Queued: queued, Idle: idle, Spares: int(p.spares.nactive.Load()), Stack: stack, Advice: adviceBusy}
		if e.blocked {
			s.Advice = adviceBlocked
		}
		if m.onStall != nil {
			m.onStall(s)
		} else if m.logged.IsZero() || now.Sub(m.logged) >= stallLogEvery {
			m.logged = now
			log.Print(s.String())
		}
	}
}

// stalledFor reports whether a worker whose progress word has not moved
// for wall, and that could have had onCPU of CPU time meanwhile had it
// held a P (cpuSlice.os, osShare), is stalled: both at least after. With
// no more Ps than CPUs, onCPU is the wall time and this is wall >= after.
// With GOMAXPROCS above the CPUs the process may run on, the kernel shares
// the CPUs among the Ps' threads: a running worker waits for a CPU for
// many times StallAfter between two of its steps, and a dump to find out
// whether it is blocked would stop the world each time — tens of
// milliseconds with many Ps on few CPUs, and it finds the worker runnable
// (on a 2-core machine, UTS on 16 workers and 16 Ps ran 17–25 % longer
// with 3–5 dumps a run: BenchmarkStallMonitorOversubscribed). So the
// worker counts as stalled once it could have had StallAfter of CPU; a
// worker that is in fact blocked is found Ps / CPUs times later.
// Goroutines waiting for a P do not stretch it (the share is of those
// holding one: the dumps' back-off while the Ps are saturated, in sample,
// covers that case), nor do busy processes beside the pool (a dump there
// stops only as many Ps as CPUs).
func stalledFor(wall, onCPU, after time.Duration) bool { return wall >= after && onCPU >= after }

// stuck is how long e has been stalled by its own doing: since its last
// progress if it waits (a blocked state: the wait is its own), otherwise
// the CPU time it can have had since then. A worker that runs without
// progress for StallReport of CPU time is stuck (a spin, a leaf without
// poll points); one that waited for a CPU most of that time is not.
func (e *monWorker) stuck(now time.Time) time.Duration {
	if e.blocked {
		return now.Sub(e.since)
	}
	return e.ran
}

// cpuSlice is the CPU a goroutine competing for one could have had over the
// last dt: f of a CPU (0 < f <= 1); os of a CPU if it held a P (0 < os <=
// 1: less than 1 only with more goroutines on Ps than CPUs).
type cpuSlice struct {
	dt time.Duration
	f  float64
	os float64
	// saturated: goroutines were waiting for a P when the monitor looked
	// (every P busy): the monitor's dumps back off (sample).
	saturated bool
}

// look is one of the monitor's samples for cpuShare: when, the process's
// CPU time then, the goroutines running or runnable (n) and those running
// (on a P: r), the monitor among them.
type look struct {
	at   time.Time
	cpu  time.Duration
	n, r uint64
}

// shareLooks is how many samples cpuShare's estimate spans: the interval
// since the oldest (about 1.5 × StallAfter).
const shareLooks = 4

// cpuShare estimates the share of a CPU that each runnable or running
// goroutine of the process had over the last samples: the process's CPU
// time since the oldest of shareLooks samples (every P, where it cannot
// be read), divided among the goroutines that competed for it (the most
// of the scheduler's running and runnable counts at those samples, less
// the monitor itself), at most one CPU each. On a quiet machine a busy
// worker has a whole CPU (f = 1); on an overloaded one, or beside more
// CPU-bound goroutines than Ps, much less. os is osShare: the CPU a
// goroutine that holds a P can have. The estimate spans several
// samples because over one alone it is noise: the kernel adds a running
// thread's CPU time to the process's at its next tick (getrusage), so a
// millisecond's interval can show many CPUs' worth or none; and workers
// that went idle just before a sample competed for most of its interval.
func (m *monitor) cpuShare(now time.Time) cpuSlice {
	cpu, ok := processCPU()
	if m.sched == nil {
		m.sched = []metrics.Sample{{Name: "/sched/goroutines/running:goroutines"}, {Name: "/sched/goroutines/runnable:goroutines"}}
	}
	metrics.Read(m.sched)
	var n [2]uint64 // running, runnable
	for i, s := range m.sched {
		if s.Value.Kind() == metrics.KindUint64 {
			n[i] = s.Value.Uint64()
		}
	}
	prev := m.looks[0]
	copy(m.looks[1:], m.looks[:])
	m.looks[0] = look{at: now, cpu: cpu, n: n[0] + n[1], r: n[0]}
	dt := now.Sub(prev.at)
	if prev.at.IsZero() || dt <= 0 {
		return cpuSlice{saturated: n[1] > 0}
	}
	var oldest look // the oldest sample kept (prev at least)
	var goroutines, running uint64
	for _, l := range m.looks {
		if l.at.IsZero() {
			break
		}
		oldest, goroutines, running = l, max(goroutines, l.n), max(running, l.r)
	}
	span, dcpu := now.Sub(oldest.at), cpu-oldest.cpu
	if !ok {
		dcpu = time.Duration(runtime.GOMAXPROCS(0)) * span
	}
	return cpuSlice{dt: dt, f: shareOf(dcpu, span, goroutines), os: osShare(running, m.cpus), saturated: n[1] > 0}
}

// usableCPUs is how many CPUs the process may run on: runtime.NumCPU (its
// affinity mask, a container's cpuset), or fewer where the cgroup's CPU
// quota allows fewer (rounded up: a quota of 1.5 CPUs keeps two threads
// running at times). Read once, when a pool starts.
func usableCPUs(fs machine.FS) int {
	cpus := runtime.NumCPU()
	if q, limited, err := fs.CPUQuota(); err == nil && limited && q > 0 {
		cpus = min(cpus, max(1, int(math.Ceil(q))))
	}
	return cpus
}

// osShare is the share of a CPU that each goroutine holding a P can have
// while running goroutines (the monitor among them) hold Ps and the
// process may run on cpus CPUs (usableCPUs): 1 while they are no more
// than the CPUs, cpus / (running − 1) beyond — GOMAXPROCS above the CPUs,
// where the kernel shares them out among the Ps' threads. It is
// not estimated from the process's CPU time, as shareOf is: workers that
// ran for part of an interval and then blocked (a batch of fetches
// without Blocking) would look starved, and the spares they need would
// come late. (So busy processes beside a pool with a CPU per P do not
// lower it: there a dump stops only as many Ps as CPUs.)
func osShare(running uint64, cpus int) float64 {
	competing := float64(running) - 1 // less the monitor, which is running
	if competing <= float64(cpus) {
		return 1
	}
	return float64(cpus) / competing
}

// shareOf is the share of a CPU each competing goroutine had when the
// process used dcpu of CPU time over dt while goroutines (running or
// runnable, the monitor among them) competed for its Ps: the process's
// CPUs divided among the competitors, at most one each; a whole CPU when
// nothing but the monitor competed (every worker waits).
func shareOf(dcpu, dt time.Duration, goroutines uint64) float64 {
	if dt <= 0 {
		return 0
	}
	competing := float64(goroutines) - 1 // less the monitor, which is running
	if competing < 1 {
		return 1 // nobody waits for a CPU: a stalled worker waits for something else
	}
	rate := float64(dcpu) / float64(dt) // CPUs the process used
	return max(0, min(1, rate/competing))
}

// blockedState reports whether a goroutine state from a stack dump means
// the goroutine waits (off its CPU for a reason other than preemption).
func blockedState(st string) bool {
	switch st {
	case "", "running", "runnable", "copystack", "preempted":
		return false
	}
	return true
}

// blocked is the monitor's rule for compensating a stalled worker: its
// goroutine (state st, stack as in the dump) waits for another goroutine or
// the outside world — I/O, a system call, a channel, a lock, a timer — so
// a spare may run the queued work meanwhile. A worker that waits for the
// runtime itself is not blocked: the garbage collector (an assist, the
// start of a cycle, a sweep), a stop of the world (the monitor's own stack
// dump stops it: a worker that reaches a GC start meanwhile waits on the
// runtime's semaphores), a stack copy, a preemption. Those waits end by
// themselves, as soon as the runtime is done, and a worker in one makes
// progress whenever it runs: a CPU-bound pool — however many workers per P,
// however slow (the race detector) — must never get spares. Without this
// rule a quiet 4-worker fib on 2 Ps under -race got two
// (TestNoSparesForAnOversubscribedCPUBoundPool).
//
// "semacquire" is both: the runtime's own semaphores (GC, stop the world,
// metrics, profiles; their runtime frames are hidden, so the top frame is
// the caller's code) and the file descriptor locks of internal/poll and
// sync's linkname (top frame runtime_Semacquire, shown).
//
// A wait for one of the pool's own locks is not blocked either (poolLock):
// the sleep list's, the injection queues', the spares', the resize's. No
// holder of one blocks while holding it, so the wait ends as soon as the
// holder runs; in an oversubscribed pool the holder is often a worker
// descheduled inside its few instructions, and a spare would only add one
// more goroutine to queue behind it. (Under -race beside busy processes,
// TestNoSparesForAnOversubscribedCPUBoundPool caught a worker posting work
// in sleepState.wakeOne's lock, and a spare started.)
func blocked(st, stack string) bool {
	if !blockedState(st) {
		return false
	}
	switch st {
	case "GC assist marking", "GC assist wait", "garbage collection", "garbage collection scan",
		"GC sweep wait", "GC scavenge wait", "GC mark termination", "GC weak to strong wait",
		"wait for GC cycle", "stopping the world", "flushing proc caches", "dumping heap",
		"trace goroutine status", "trace proc status", "page trace flush", "debug call":
		return false
	case "semacquire":
		return strings.Contains(topFrame(stack), ".runtime_Semacquire")
	case "sync.Mutex.Lock", "sync.RWMutex.Lock", "sync.RWMutex.RLock":
		return !poolLock(stack)
	}
	return true
}

// poolMethod is how the function line of a method of this package begins
// in a stack dump ("github.com/worksteal/worksteal.(*").
var poolMethod = reflect.TypeFor[Pool]().PkgPath() + ".(*"

// poolLock reports whether a goroutine waiting for a sync lock (stack as
// in a dump) waits for one of the pool's own: the first frame below the
// runtime's and the sync packages' is a method of this package. The pool
// takes its locks only in methods (sleepState, queue, spareSet,
// resizeState, Pool, the counters), and every holder releases its lock
// without waiting for anything (see blocked). A user's task that waits
// for a lock of its own is blocked: its first such frame is the task's.
func poolLock(stack string) bool {
	for _, line := range strings.Split(stack, "\n")[1:] {
		if line == "" || line[0] == '\t' {
			continue // a file:line line
		}
		if strings.HasPrefix(line, "runtime.") || strings.HasPrefix(line, "sync.") || strings.HasPrefix(line, "internal/sync.") {
			continue
		}
		return strings.HasPrefix(line, poolMethod)
	}
	return false
}

// topFrame is the function line of the innermost shown frame of a stack
// from goroutineStack ("" if none).
func topFrame(stack string) string {
	_, rest, _ := strings.Cut(stack, "\n")
	line, _, _ := strings.Cut(rest, "\n")
	return line
}

// allStacks returns the stacks of all goroutines (runtime.Stack, which
// stops the world briefly).
func allStacks() []byte {
	buf := make([]byte, 64<<10)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			return buf[:n]
		}
		buf = make([]byte, 2*len(buf))
	}
}

// goroutineStack finds goroutine id in a dump: its state (the bracket of
// its header up to the first comma, "chan receive", "sleep", "running") and
// its whole stack. State "" if it is not there.
func goroutineStack(dump []byte, id uint64) (state, stack string) {
	head := []byte("goroutine " + strconv.FormatUint(id, 10) + " [")
	i := bytes.Index(dump, head)
	for i > 0 && dump[i-1] != '\n' {
		j := bytes.Index(dump[i+1:], head)
		if j < 0 {
			return "", ""
		}
		i += 1 + j
	}
	if i < 0 {
		return "", ""
	}
	rest := dump[i:]
	if end := bytes.Index(rest, []byte("\n\n")); end >= 0 {
		rest = rest[:end]
	}
	st := rest[len(head):]
	if k := bytes.IndexAny(st, ",]"); k >= 0 {
		st = st[:k]
	}
	return string(st), string(rest)
}
