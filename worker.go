package worksteal

import (
	"fmt"
	"math"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/worksteal/worksteal/deque"
	"github.com/worksteal/worksteal/internal/pad"
	"github.com/worksteal/worksteal/internal/policyrt"
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
	frames []any
	fjobs  []*job // fjobs[d] is &frames[d].job
	// depth counts the open Joins that have a frame (latent or promoted);
	// Joins made at depth >= gate are plain calls (Join's fast path): gate
	// is lo + policyrt.LatentFrames, or maxInt while a profile runs on w
	// (setLo, setProf).
	depth int
	gate  int
	// beatLeft counts Joins down to the next heartbeat (pollJoin): every
	// Join decrements it, and at 0 the beat resets it to
	// policyrt.HeartbeatJoins and adds that many to st.joins (w.joins).
	beatLeft int
	// floor is the fast path's test of depth >= gate folded into its
	// count: 0 while depth >= gate (a Join may be a plain call), MaxInt
	// while depth < gate (every Join is a frame Join). Only setDepth and
	// setGate write depth and gate, and each sets floor with them.
	floor int
	// Frames [lo, depth) are latent: their second halves wait for the
	// owner alone, and no other worker knows they exist. Frames [0, lo)
	// were promoted to the deque (PROTOCOL.md "Join"). lo <= depth.
	lo      int
	polls   uint           // Poll calls, for its heartbeat (owner only)
	idle    *atomic.Uint64 // &pool.sleep.state: nonzero when a worker is idle (the poll's one load)
	pool    *Pool
	noStats bool
	st      counters // owner-only; published into pub (stats.go)
	mark    time.Duration
	blocks  uint64 // Blocking calls entered (owner only; Worker.BlockingCalls)
	// onBlock, if not nil, is set true by each Blocking before it publishes
	// w's latent frames (owner only; Worker.NotifyBlocking).
	onBlock *atomic.Bool
	sel     *policyrt.Selector
	id      int
	spare   bool
	rec     *recorder           // event trace; nil when tracing is off
	tuner   *policyrt.IdleTuner // Idle.Adaptive; nil when the schedule is fixed (owner only)
	prof    *profState          // work/span profiling of the running strand; nil when off
	owner   ownerState          // -race builds: which goroutine may use the handle (owner_race.go)

	// eagerLeft is how many more Joins of the running job may be eager,
	// and eagerBase the depth that job started at (joinPushSlow): execute
	// sets them for each job, the main loop's and those a wait runs, and
	// restores the enclosing job's after it.
	eagerLeft int
	eagerBase int
	// latentFrames is how many latent frames w keeps open beyond its
	// promoted ones (read by setLo and beatHeld, never by the fast path,
	// which reads gate): latentBase, or policyrt.HungryLatentFrames from an
	// offer that found w's deque drained until policyrt.QuietBeats beats
	// in a row pass without one, or w parks (offer, narrow, reset;
	// PROTOCOL.md "Hungry thieves"). latentBase is policyrt.LatentFrames,
	// or Config.latentFrames in tests. hungry: an offer promoted since the
	// last beat; quiet: the beats since the last one that found hungry
	// set. All four are the owner's.
	latentFrames int
	latentBase   int
	hungry       bool
	quiet        int

	_ pad.Line

	// Fields other workers read or write: kept off the owner's hot lines.
	inbox   queue         // affinity submissions (SubmitTo); anyone may take
	wake    chan struct{} // park/unpark tokens, capacity 1 (see park.go)
	wokenAt atomic.Int64  // now() when a waker sent the token (Idle.Adaptive only)
	mon     atomic.Uint64 // progress word for the stall monitor (monitor.go); owner stores, monitor loads
	idleIdx int           // index in pool.sleep.idle, -1 when not there (guarded by sleep.mu)
	// surplusWait: a surplus worker parked at a latch in waitSurplus (in no
	// list; guarded by sleep.mu). Whoever clears it sends the one token.
	surplusWait bool
	gid         atomic.Uint64 // id of the goroutine running main (Close's misuse check)
	timer       *time.Timer   // for timed parks (owner only)
	_           pad.Line
	pub         published
	_           pad.Line
}

func newWorker(p *Pool, id, n int, spare bool) *Worker {
	// Retaining: Join frames are recycled, so clearing popped slots would
	// only cost an atomic store per Join (measured: 3–6 ns of ~20).
	dq, _ := deque.NewRetaining[job](64) // grows on demand; small, so a pool of many workers is small
	self, size := id, n
	if spare { // spares are an extra "worker n" whose victims are the n regular workers
		self, size = n, n+1
	}
	var rec *recorder
	if p.cfg.Trace > 0 {
		rec = newRecorder(p.cfg.Trace)
	}
	w := &Worker{
		rec:     rec,
		id:      id,
		pool:    p,
		dq:      dq,
		sel:     policyrt.NewSelector(p.cfg.Victim, self, size, p.cfg.Groups, p.cfg.Seed),
		wake:    make(chan struct{}, 1),
		idleIdx: -1,
		spare:   spare,
		noStats: p.cfg.NoStats,
		idle:    &p.sleep.state,
		tuner:   newTuner(p.cfg.Idle),
	}
	w.beatLeft = policyrt.HeartbeatJoins
	w.latentBase = policyrt.LatentFrames
	if p.cfg.latentFrames > 0 {
		w.latentBase = p.cfg.latentFrames
	}
	w.latentFrames = w.latentBase
	w.setLo(0)
	w.mon.Store(monIdle) // workers start parked, spares start searching: idle either way
	return w
}

// setProf sets the profile of the running strand (nil: none), and with
// it w.gate, which sends every Join of a profiled strand to joinFull.
func (w *Worker) setProf(ps *profState) {
	w.prof = ps
	w.setLo(w.lo)
}

// setLo sets lo, the depth of the oldest latent frame, and with it gate:
// a Join at depth >= gate is a plain call (Join's fast path), so at most
// policyrt.LatentFrames (w.latentFrames) latent frames are open. Owner only.
func (w *Worker) setLo(lo int) {
	w.lo = lo
	if w.prof != nil {
		w.setGate(math.MaxInt)
	} else {
		w.setGate(lo + w.latentFrames)
	}
}

// setGate sets gate, and floor with it (the fast path's test).
func (w *Worker) setGate(g int) {
	w.gate = g
	w.setFloor()
}

// setDepth sets depth, and floor with it (the fast path's test).
func (w *Worker) setDepth(d int) {
	w.depth = d
	w.setFloor()
}

func (w *Worker) setFloor() {
	w.floor = 0
	if w.depth < w.gate {
		w.floor = math.MaxInt
	}
}

// ID returns the worker's index in its pool, in [0, Workers()) for regular
// workers and at or above Workers() for spares started by Blocking.
func (w *Worker) ID() int { return w.id }

// Pool returns the pool the worker belongs to.
func (w *Worker) Pool() *Pool { return w.pool }

// HasPendingTasks reports whether w holds tasks that other workers could
// take: second halves of the joins the running task (or a task below it on
// this worker) is inside, or scope tasks it queued, that nobody took yet.
// Algorithms that split work on demand (package par) split only when this
// is false, so a thief always finds the oldest, largest piece first. It is
// a poll point (see [Worker.Poll]).
//
// Call it only from the task w was passed to, like every *Worker method.
func (w *Worker) HasPendingTasks() bool {
	w.Poll()
	return w.lo < w.depth || w.dq.Len() != 0
}

// PeersIdle reports whether some worker of w's pool is looking for work
// (stealing or backing off) or parked: work offered now would find a taker.
// It reads one word that idle workers update, so it is cheap enough to ask
// between two chunks of a loop; the answer may be stale by the time the
// caller acts on it, so use it as a hint, never for correctness. It is a
// poll point (see [Worker.Poll]).
func (w *Worker) PeersIdle() bool {
	st := w.idle.Load()
	if st != 0 {
		w.offer()
	}
	sleepers, searching := counts(st)
	return sleepers != 0 || searching != 0
}

// Poll offers the latent second halves of the joins w is inside to idle
// workers, if any worker is idle. It costs one load when none is.
//
// A Join does not show its second half to other workers at once (unless
// it is within policyrt.EagerDepth levels of the root of w's stack, where it
// does): it stays latent, known only to w, until a poll point finds a
// worker idle while w's deque is empty, and publishes every latent half on
// the deque, oldest (largest) first. Only the oldest open Joins keep their
// halves latent (internal/policyrt.LatentFrames beyond those already offered); a
// Join made below them is a plain call, whose second half only w runs,
// after the first. Every Join,
// JoinFunc, Spawn, Scope, HasPendingTasks and PeersIdle call is a poll
// point, and so is every chunk of package par's loops. A task that runs
// long without any of them — a sequential leaf of a millisecond or more
// under a Join — should call Poll every few tens of microseconds, or the
// second halves of its Joins wait until the leaf ends (then w runs them
// itself, in order, without parallelism).
func (w *Worker) Poll() {
	checkWorker(w)
	if w.idle.Load() != 0 {
		w.offer()
	}
	if w.surplus() {
		w.handBack() // SetWorkers left w out: hand every latent half back (resize.go)
	}
	// The heartbeat of a first half that polls instead of joining (a
	// par loop's chunks, a leaf that calls Poll): every policyrt.HeartbeatPolls polls,
	// the oldest latent frame goes public even if nobody is idle yet, so
	// a worker that runs dry later finds it without w's help (see
	// heartbeat in join.go). Each frame is promoted at most once, so a
	// Poll costs a count and a compare once the frames are public.
	w.polls++
	if w.polls&(policyrt.HeartbeatPolls-1) == 0 {
		w.bump() // progress, for the stall monitor
		w.narrow()
		w.beatHeld()
		if w.lo < w.depth {
			w.beat()
		}
	}
}

// main is the worker goroutine: find work, run it, until the pool is
// finished. A regular worker starts parked (New put it in the idle list):
// a pool's workers start without searching an empty pool, and the first
// posted work wakes one of them, which wakes the next (PROTOCOL.md
// "Posting work").
//
// If a task calls runtime.Goexit, this goroutine unwinds past every recover
// (the task is reported failed with ErrGoexit on the way); the deferred
// function then starts a replacement goroutine that takes over the worker —
// its deque, frames and counters — so the pool never loses a worker.
func (w *Worker) main(parked bool) {
	p := w.pool
	exited := false
	defer func() {
		if !exited {
			if r := recover(); r != nil {
				panic(r) // jobs recover their own panics: this is a runtime bug
			}
			p.running.Add(1)
			go w.main(false)
		}
		p.running.Done()
	}()
	w.gid.Store(goid())
	w.ownerStart()
	if p.cfg.Pin {
		runtime.LockOSThread()
		pinToCPU(w.id) // best effort; see topology_linux.go
		p.counters.startWorker(w)
	}
	w.mark = now() // start of the first stretch: idle if parked (idleWait.woken)
	if parked {
		<-w.wake // whoever woke us counted us as searching (park.go)
	}
	for {
		j := w.findWork(parked)
		parked = false
		if j == nil {
			break
		}
		w.execute(j)
		w.publish()
	}
	w.publish()
	if !w.spare {
		p.live.Add(-1)
	}
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
	w.bump()       // progress, for the stall monitor
	w.ownerEnter() // jobs never panic out of runJob; under Goexit the count stays up (harmless)
	if ps := w.prof; ps != nil {
		w.setProf(nil)
		defer func() {
			w.setProf(ps)
			ps.start = now() // time spent helping is not this strand's work
		}()
	}
	// A job starts with gate at lo + policyrt.LatentFrames, also one run
	// inside a first half whose frame a heartbeat promoted ([P4], beat):
	// its Joins open latent (and eager) frames as any job's do.
	w.setLo(w.lo)
	// The job's own eager levels and budget (joinPushSlow), from the
	// depth it starts at: a job run inside a wait at depth 9 forks its
	// largest pieces eagerly as one taken from the main loop at depth 0.
	// A Goexit leaves them unrestored: its goroutine is replaced (main).
	// The job does not inherit the flag of a task it runs inside
	// (NotifyBlocking): that task's Blocking calls are its own.
	base, left, onBlock := w.eagerBase, w.eagerLeft, w.onBlock
	w.eagerBase, w.eagerLeft, w.onBlock = w.depth, eagerJoins, nil
	if w.rec == nil {
		j.run.runJob(w)
	} else {
		id := w.rec.task()
		w.rec.record(EvTaskStart, -1, id)
		j.run.runJob(w)
		w.rec.record(EvTaskEnd, -1, id)
	}
	w.eagerBase, w.eagerLeft, w.onBlock = base, left, onBlock
	w.ownerLeave()
}

// findWork returns the next job for the main loop, or nil when the pool is
// finished. Order: own deque, own inbox, then rounds of (steal per victim
// policy, injector, other inboxes), with the idle schedule (idle.go)
// between rounds. See PROTOCOL.md. woken says the worker was just woken
// from its start-up park, so it is counted as searching already.
func (w *Worker) findWork(woken bool) *job {
	p := w.pool
	iw := idleWait{w: w}
	if woken {
		iw.woken()
	} else {
		if j := w.takeLocal(); j != nil {
			return j
		}
		iw.begin()
	}
	for {
		if p.finished() {
			// Closed, and every accepted computation has finished: no
			// work exists or can arrive ([C1]). Checked before a round,
			// so that workers woken to exit do not search O(P) queues.
			iw.leave()
			return nil
		}
		if w.surplus() {
			// SetWorkers left this worker out of the active set: it parks
			// for good once its own work is done (resize.go). Its deque is
			// empty here: a job's end pops it empty above (takeLocal, before
			// the first round: a surplus worker runs what it queued), a
			// worker woken from a park had emptied it before parking, a
			// failed round pushes nothing, and only the owner pushes
			// (checked under invariants). Work submitted to its inbox is
			// left to the active workers, which search every inbox.
			// Stopping searching first passes the wake-up on (the chain
			// wake-up): work that woke it still finds an active worker.
			if invariants && w.dq.Len() != 0 {
				panic(fmt.Sprintf("worksteal: invariant broken: surplus worker %d retires with %d jobs in its deque", w.id, w.dq.Len()))
			}
			p.sleep.stopSearching(true)
			w.retire()
			p.sleep.startSearching()
			continue
		}
		if j := w.search(); j != nil {
			iw.end()
			return j
		}
		if w.spare && p.spares.shouldRetire() {
			// Retire; the time in the free list counts as idle.
			p.sleep.stopSearching(true)
			w.spareRetire()
			if p.finished() {
				w.endIdle()
				return nil
			}
			p.sleep.startSearching()
			continue
		}
		iw.failed()
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
	active := int(p.resize.active.Load())
	if n > 1 || w.spare {
		w.sel.Begin()
		for a := w.sel.Attempts(); a > 0; a-- {
			v := w.sel.Next(p.queueLen)
			if v < 0 || v >= n || v == w.id && !w.spare {
				continue
			}
			if v >= active && p.stealers[v].Len() == 0 {
				continue // a surplus worker (SetWorkers) with nothing left to drain
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
		j, moved, r = s.StealHalfUnless(w.dq, isFork)
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
		w.rec.record(EvSteal, v, uint64(moved))
	}
	w.st.stolen += uint64(moved)
	if !w.noStats {
		victim.pub.stolenFrom.Add(uint64(moved))
	}
	// The rest of a StealHalf batch now sits in our deque. No wake-up is
	// needed for it: we are counted as searching until we stop, and
	// stopping searching wakes a sleeper if we were the last searcher
	// (the chain wake-up, PROTOCOL.md "Finding work").
	return j
}

// isFork reports whether j is a Join frame's second half, which a thief
// takes alone (job.fork).
func isFork(j *job) bool { return j.fork }

// helpUntil runs other work until l is set: it never blocks the worker while
// work exists. Used by a Join whose second half was stolen (hint is its
// frame, whose thief is tried first) and by Scope and Future waits. Between
// fruitless rounds it follows the idle schedule as the main loop does
// (idleWait), and it can block only announced to l's setter.
func (w *Worker) helpUntil(l *latch, hint *job) {
	// A waiting worker offers everything: the second halves of the joins
	// it is inside would otherwise wait for it alone.
	w.promote()
	iw := idleWait{w: w, latch: l}
	for !l.isSet() {
		if w.surplus() {
			// Out of the active set: take no work, not even our own
			// (the active workers steal it), and do not count as a
			// searcher (pushers would rely on us): wait for l alone.
			iw.end()
			w.waitSurplus(l)
			continue
		}
		if j := w.takeLocal(); j != nil {
			iw.end()
			w.execute(j)
			continue
		}
		iw.begin()
		if j := w.helpSearch(hint); j != nil {
			iw.end()
			w.execute(j)
			continue
		}
		if l.isSet() {
			break
		}
		iw.failed()
	}
	iw.end()
}

// helpUntilExit is helpUntil for a deferred call that runs while the
// goroutine exits through runtime.Goexit: a job it runs may call Goexit
// too, which abandons the wait; its deferred call then waits again, so it
// never returns before l is set.
func (w *Worker) helpUntilExit(l *latch) {
	finished := false
	defer func() {
		if !finished {
			w.helpUntilExit(l)
		}
	}()
	w.helpUntil(l, nil)
	finished = true
}

// helpSearch is a waiting joiner's round: the thief of its frame first
// (leapfrogging: the thief's deque holds pieces of the joiner's own
// subtree), then every source as an idle worker searches.
func (w *Worker) helpSearch(hint *job) *job {
	if hint != nil {
		if t := int(hint.thief.Load()); t >= 0 && t != w.id {
			if j := w.trySteal(t); j != nil {
				return j
			}
		}
	}
	return w.search()
}

var epoch = time.Now()

// now is the monotonic time since the package was loaded.
func now() time.Duration { return time.Since(epoch) }
