package worksteal

import (
	"runtime"
	"time"

	"github.com/worksteal/worksteal/deque"
	"github.com/worksteal/worksteal/internal/pad"
	"github.com/worksteal/worksteal/policy"
)

// Worker is the handle of one worker of a pool. Code running on the pool
// receives it explicitly (Go has no thread-locals) and forks through it:
// [Join], [JoinFunc], [Worker.Scope], [Scope.Spawn].
//
// A *Worker is only valid inside the task it was passed to, on the goroutine
// that runs that task: never store it, never pass it to another goroutine,
// never use the handle of an enclosing task inside a closure that may run
// elsewhere (the second closure of a Join, a spawned task) — use the handle
// that closure receives.
type Worker struct {
	_ pad.Line // keep the owner-hot fields off other objects' cache lines
	// Owner-hot fields: written on every Join by the owner only.
	dq *deque.Worker[job] // owner end; thieves use pool.stealers[id]
	// frames[d] is the Join frame used at nesting depth d. Joins are
	// strictly nested on a worker, so a frame is free again when the Join
	// that used it returns. A frame is reused only when its type matches.
	frames  []any
	depth   int
	pool    *Pool
	noStats bool
	st      counters // owner-only; published into pub (stats.go)
	mark    time.Duration
	sel     *policy.Selector
	id      int
	spare   bool
	rec     *recorder  // event trace; nil when tracing is off
	prof    *profState // work/span profiling of the running strand; nil when off
	_       pad.Line

	// Fields other workers read or write: kept off the owner's hot lines.
	inbox   queue         // affinity submissions (SubmitTo); anyone may take
	wake    chan struct{} // park/unpark tokens, capacity 1 (see park.go)
	idleIdx int           // index in pool.sleep.idle, -1 when not there (guarded by sleep.mu)
	timer   *time.Timer   // for timed parks (owner only)
	_       pad.Line
	pub     published
	_       pad.Line
}

func newWorker(p *Pool, id, n int, spare bool) *Worker {
	// Retaining: Join frames are recycled, so clearing popped slots would
	// only cost an atomic store per Join (measured: 3–6 ns of ~20).
	dq, _ := deque.NewRetaining[job](256)
	self, size := id, n
	if spare { // spares are an extra "worker n" whose victims are the n regular workers
		self, size = n, n+1
	}
	var rec *recorder
	if p.cfg.Trace > 0 {
		rec = newRecorder(p.cfg.Trace, id)
	}
	return &Worker{
		rec:     rec,
		id:      id,
		pool:    p,
		dq:      dq,
		sel:     policy.NewSelector(p.cfg.Victim, self, size, p.cfg.Groups, p.cfg.Seed),
		wake:    make(chan struct{}, 1),
		idleIdx: -1,
		spare:   spare,
		noStats: p.cfg.NoStats,
	}
}

// ID returns the worker's index in its pool, in [0, Workers()) for regular
// workers and at or above Workers() for spares started by Blocking.
func (w *Worker) ID() int { return w.id }

// Pool returns the pool the worker belongs to.
func (w *Worker) Pool() *Pool { return w.pool }

// HasPendingTasks reports whether w's own deque holds tasks that other
// workers could steal: second halves of joins, or scope tasks, queued by
// the running task or by the tasks below it on this worker. Algorithms that
// split work on demand (package par) split only when this is false, so a
// thief always finds the oldest, largest piece first.
//
// Call it only from the task w was passed to, like every *Worker method.
func (w *Worker) HasPendingTasks() bool { return w.dq.Len() != 0 }

// PeersIdle reports whether some worker of w's pool is looking for work
// (stealing or backing off) or parked: work offered now would find a taker.
// It reads one word that idle workers update, so it is cheap enough to ask
// between two chunks of a loop; the answer may be stale by the time the
// caller acts on it, so use it as a hint, never for correctness.
func (w *Worker) PeersIdle() bool { return w.pool.sleep.state.Load() != 0 }

// main is the worker goroutine: find work, run it, until the pool drains.
//
// If a task calls runtime.Goexit, this goroutine unwinds past every recover
// (the task is reported failed with ErrGoexit on the way); the deferred
// function then starts a replacement goroutine that takes over the worker —
// its deque, frames and counters — so the pool never loses a worker.
func (w *Worker) main() {
	p := w.pool
	exited := false
	defer func() {
		if !exited {
			if r := recover(); r != nil {
				panic(r) // jobs recover their own panics: this is a runtime bug
			}
			p.running.Add(1)
			go w.main()
		}
		p.running.Done()
	}()
	if p.cfg.Pin {
		runtime.LockOSThread()
		pinToCPU(w.id) // best effort; see topology_linux.go
	}
	w.mark = now()
	for {
		j := w.findWork()
		if j == nil {
			break
		}
		w.execute(j)
		w.publish()
	}
	w.publish()
	exited = true
}

// takeLocal returns work of this worker's own: its deque (LIFO), then its inbox.
func (w *Worker) takeLocal() *job {
	if j, ok := w.dq.Pop(); ok {
		return j
	}
	return w.inbox.pop()
}

// execute runs a job that this worker popped, stole or dequeued.
//
// A job runs outside any profiled computation the worker may be helping in
// (it measures itself if it belongs to one: workspan.go), so w.prof is
// cleared around it.
func (w *Worker) execute(j *job) {
	w.st.executed++
	if ps := w.prof; ps != nil {
		w.prof = nil
		defer func() {
			w.prof = ps
			ps.start = now() // time spent helping is not this strand's work
		}()
	}
	if w.rec == nil {
		j.run.runJob(w)
		return
	}
	id := w.rec.task()
	w.rec.record(EvTaskStart, -1, id)
	j.run.runJob(w)
	w.rec.record(EvTaskEnd, -1, id)
}

// findWork returns the next job for the main loop, or nil when the pool is
// closed and drained. Order: own deque, own inbox, then rounds of
// (steal per victim policy, injector, other inboxes) with backoff between
// rounds, then park. See PROTOCOL.md.
func (w *Worker) findWork() *job {
	if j := w.takeLocal(); j != nil {
		return j
	}
	p := w.pool
	w.beginIdle()
	p.sleep.startSearching()
	for {
		for k := 0; k < p.cfg.Idle.Rounds; k++ {
			if j := w.search(); j != nil {
				p.sleep.stopSearching(true)
				w.endIdle()
				return j
			}
			if p.closed.Load() && !p.workVisible() {
				// Drained: no external work can arrive any more and no queue
				// holds work. Tasks still running elsewhere keep their own
				// spawns and finish them.
				p.sleep.stopSearching(false)
				w.endIdle()
				return nil
			}
			if w.spare && p.spares.shouldRetire() {
				// Retire; the time in the free list counts as idle.
				p.sleep.stopSearching(true)
				w.spareRetire()
				if p.closed.Load() && !p.workVisible() {
					w.endIdle()
					return nil
				}
				p.sleep.startSearching()
				continue
			}
			w.backoff(k, nil)
		}
		w.park(func() bool { return p.workVisible() || p.closed.Load() }, 0)
	}
}

// search makes one round over every source of work except the own deque.
// Own inbox first, then steals (victim policy; spares' deques last), then
// the injection queue, then other workers' inboxes. "Finish what we
// started" (rayon): stolen fork-join work goes before new external work.
func (w *Worker) search() *job {
	p := w.pool
	if j := w.inbox.pop(); j != nil {
		return j
	}
	if j := w.stealRound(); j != nil {
		return j
	}
	if j := p.injector.pop(); j != nil {
		return j
	}
	for _, o := range p.workers {
		if o != w {
			if j := o.inbox.pop(); j != nil {
				return j
			}
		}
	}
	return nil
}

// stealRound tries each victim once, in the order of the victim policy.
func (w *Worker) stealRound() *job {
	p := w.pool
	n := len(p.workers)
	if n > 1 || w.spare {
		w.sel.Begin()
		for a := w.sel.Attempts(); a > 0; a-- {
			v := w.sel.Next(p.queueLen)
			if v < 0 || v >= n || v == w.id && !w.spare {
				continue
			}
			if j := w.trySteal(v); j != nil {
				return j
			}
		}
	}
	if p.spares.active() {
		return p.spares.stealFrom(w)
	}
	return nil
}

// trySteal makes one steal attempt on worker v (v >= Workers() names a spare).
func (w *Worker) trySteal(v int) *job {
	p := w.pool
	var s deque.Stealer[job]
	var victim *Worker
	if v < len(p.workers) {
		s, victim = p.stealers[v], p.workers[v]
	} else {
		victim = p.spares.get(v - len(p.workers))
		if victim == nil {
			return nil
		}
		s = victim.dq.Stealer()
	}
	if victim == w {
		return nil
	}
	w.st.attempts++
	var j *job
	var r deque.Result
	moved := 1
	if p.cfg.Steal == policy.StealHalf {
		j, moved, r = s.StealHalf(w.dq)
	} else {
		j, r = s.Steal()
	}
	if r != deque.Success {
		w.st.failed++
		if w.rec != nil {
			w.rec.record(EvStealFail, v, 0)
		}
		return nil
	}
	if w.rec != nil {
		w.rec.record(EvSteal, v, 0)
	}
	w.st.stolen += uint64(moved)
	if !w.noStats {
		victim.pub.stolenFrom.Add(uint64(moved))
	}
	if moved > 1 {
		p.sleep.notify(p, moved-1) // the rest now sits in our deque, visible to thieves
	}
	return j
}

// backoff waits after failed idle round k: exponential with jitter
// (policy.Idle.Delay). Short delays spin with runtime.Gosched (a runnable
// goroutine gets the CPU) and end early when done reports true; longer ones
// park with a timeout, so that posted work or done's setter wakes the worker
// at once instead of after the delay.
func (w *Worker) backoff(k int, done func() bool) {
	d := w.pool.cfg.Idle.Delay(k, w.sel.Rand())
	if d <= 0 {
		return
	}
	if d < spinLimit {
		end := now() + d
		for now() < end {
			if done != nil && done() {
				return
			}
			runtime.Gosched()
		}
		return
	}
	w.parkTimeout(d, done)
}

// spinLimit is the longest backoff spent spinning rather than parked.
const spinLimit = 20 * time.Microsecond

// helpUntil runs other work until l is set: it never blocks the worker while
// work exists. Used by a Join whose second half was stolen (hint is its
// frame, whose thief is tried first) and by Scope and Future waits.
func (w *Worker) helpUntil(l *latch, hint *job) {
	p := w.pool
	// searching: the worker is idle inside the wait (counted as searching
	// by the sleep protocol, as idle by the statistics, and between
	// EvWaitStart and EvWaitEnd in the trace). It is never idle while it
	// runs a job it found: the idle stretch ends first.
	searching := false
	startIdle := func() {
		w.beginIdle()
		p.sleep.startSearching()
		if w.rec != nil {
			w.rec.record(EvWaitStart, -1, 0)
		}
		searching = true
	}
	stopIdle := func() {
		p.sleep.stopSearching(true)
		w.endIdle()
		if w.rec != nil {
			w.rec.record(EvWaitEnd, -1, 0)
		}
		searching = false
	}
	k := 0
	for !l.isSet() {
		if j := w.takeLocal(); j != nil {
			if searching {
				stopIdle()
			}
			w.execute(j)
			k = 0
			continue
		}
		if !searching {
			startIdle()
		}
		var j *job
		if hint != nil { // leapfrogging: the thief of our frame works on our subtree
			if t := int(hint.thief.Load()); t >= 0 && t != w.id {
				j = w.trySteal(t)
			}
		}
		if j == nil {
			j = w.search()
		}
		if j != nil {
			stopIdle()
			w.execute(j)
			k = 0
			continue
		}
		if l.isSet() {
			break
		}
		// Nothing to do anywhere: back off, then park until the latch is set
		// (its setter wakes us: PROTOCOL.md "Waiting for a latch") or work
		// is posted.
		if k < p.cfg.Idle.Rounds {
			d := p.cfg.Idle.Delay(k, w.sel.Rand())
			k++
			if d < spinLimit {
				w.backoff(k-1, l.isSet)
				continue
			}
			l.state.CompareAndSwap(latchUnset, latchSleeping)
			w.parkTimeout(d, func() bool { return l.isSet() || p.workVisible() })
			continue
		}
		l.state.CompareAndSwap(latchUnset, latchSleeping)
		w.park(func() bool { return l.isSet() || p.workVisible() }, 0)
		k = 0
	}
	if searching {
		stopIdle()
	}
}

var epoch = time.Now()

// now is the monotonic time since the package was loaded.
func now() time.Duration { return time.Since(epoch) }
