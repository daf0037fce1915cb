package worksteal

import (
	"runtime"
	"sync/atomic"
	"time"

	"github.com/worksteal/worksteal/internal/policyrt"
	"github.com/worksteal/worksteal/policy"
)

// idleWait is one idle stretch of a worker: in its main loop (findWork),
// or inside a wait at a latch (helpUntil: a Join whose second half was
// stolen, a Scope, a Future). Both follow the same schedule,
// policyrt.IdleState, so a joiner backs off, sleeps and parks exactly as an
// idle worker does, each delay drawn once (PROTOCOL.md "Waiting for a
// latch").
//
// While active, the worker is counted as searching by the sleep protocol
// (park.go) and as idle by the statistics; it is never active while it runs
// a job it found: the stretch ends first.
type idleWait struct {
	w      *Worker
	latch  *latch // what a joiner waits for; nil in the main loop
	sched  policyrt.IdleState
	active bool
	// parked is how long the stretch's last park lasted, until the next
	// round tells whether it ended with work (Idle.Adaptive only).
	parked time.Duration
}

// begin starts the stretch (no-op if active): the worker is idle and
// searching from now on.
func (iw *idleWait) begin() {
	if iw.active {
		return
	}
	w := iw.w
	w.beginIdle()
	if iw.latch != nil && w.rec != nil {
		w.rec.record(EvWaitStart, -1, 0) // before others can see it searching
	}
	w.pool.sleep.startSearching()
	iw.active = true
}

// woken starts the stretch of a worker woken from a park it made outside
// any stretch (the start-up park): its waker counted it as searching. The
// stretch began when the worker started (main set mark before parking):
// the park is idle time, and the next end adds it to idle, not to busy.
func (iw *idleWait) woken() {
	iw.active = true
}

// end finishes the stretch (no-op if not active) because the worker found
// work or its wait is over. It stops searching with the chain wake-up.
func (iw *idleWait) end() {
	if !iw.active {
		return
	}
	w := iw.w
	woke := w.pool.sleep.stopSearching(true)
	w.endIdle()
	if iw.latch != nil && w.rec != nil {
		w.rec.record(EvWaitEnd, -1, 0)
	}
	if woke {
		runtime.Gosched() // yield to the worker just woken: see Worker.posted
	}
	if t := w.tuner; t != nil {
		if iw.parked > 0 {
			t.Parked(iw.parked, true)
		} else {
			t.Found(iw.sched.Round())
		}
		iw.parked = 0
	}
	iw.sched.Reset()
	iw.active = false
}

// leave finishes the stretch of a worker that exits its main loop: it stops
// searching without waking anyone (there is no work left to chain to).
func (iw *idleWait) leave() {
	w := iw.w
	w.pool.sleep.stopSearching(false)
	w.endIdle()
	iw.active = false
}

// failed is called after a round that found nothing: it does what the idle
// schedule says — spin for the drawn delay, sleep for it, or park.
//
// A sleep is a park with a timeout, announced like any park: the worker is
// in the idle list, so posted work wakes it, and a joiner first moves its
// latch to latchSleeping, so the latch's setter wakes it ([L2]). Without
// that announcement the setter would leave it asleep until the timeout
// (the late wake-up the single schedule rules out).
func (iw *idleWait) failed() {
	w := iw.w
	p := w.pool
	sched := p.cfg.Idle
	if t := w.tuner; t != nil {
		if iw.parked > 0 {
			t.Parked(iw.parked, false) // woken, or the park cancelled, and nothing found
			iw.parked = 0
		}
		sched = t.Idle()
	}
	step := iw.sched.Next(sched, w.sel.Rand())
	if step.Kind == policyrt.IdleSpin {
		iw.spin(step)
		return
	}
	if l := iw.latch; l != nil {
		l.state.CompareAndSwap(latchUnset, latchSleeping) // [L2]
	}
	if step.Kind == policyrt.IdlePark && iw.latch == nil && w.latentFrames != w.latentBase {
		// Out of work long enough to park, in the main loop (no frame of
		// its own open): whoever asked w for work was fed by others or
		// is parking too. Its next computation starts narrow (reset).
		w.reset()
	}
	if h := testBeforePark.Load(); h != nil && iw.latch == nil && step.Kind == policyrt.IdlePark {
		(*h)(w)
	}
	if w.tuner != nil && step.Kind == policyrt.IdlePark {
		t0 := now()
		w.park(iw.recheck, step.Delay)
		iw.parked = max(1, now()-t0)
		return
	}
	w.park(iw.recheck, step.Delay)
}

// newTuner returns a worker's idle tuner for schedule p, nil unless
// p.Adaptive.
func newTuner(p policy.Idle) *policyrt.IdleTuner {
	if !p.Adaptive {
		return nil
	}
	t := policyrt.NewIdleTuner(p)
	return &t
}

// spin stays awake for step.Delay, yielding the processor (a runnable
// goroutine gets the CPU), and stops early when the awaited latch is set.
func (iw *idleWait) spin(step policyrt.IdleStep) {
	if step.Delay <= 0 {
		return
	}
	end := now() + step.Delay
	for now() < end {
		if iw.latch != nil && iw.latch.isSet() {
			return
		}
		runtime.Gosched()
	}
}

// recheck is the ReadWork of a park (PROTOCOL.md "Parking"): after the
// worker announced itself, is there a reason not to block? Work visible in
// any queue; for a joiner, its latch set; in the main loop, the pool
// finished (closed and every accepted computation done, [C1]) or the
// worker surplus (it retires instead: resize.go).
//
// Why the surplus check cannot be left to the top of findWork's loop:
// SetWorkers stores the lowered count and then wakes each surplus worker
// that is in the idle list (wakeWorker, under sleep.mu). A worker that
// checked the count before the store and enters the idle list after
// wakeWorker looked is woken by nobody, and would sleep as a surplus
// worker in the idle list until some post picked it. Here, after it
// entered the list under sleep.mu, it reads the count: either its entry
// came after wakeWorker's look under the same lock, so the store happened
// before and it sees itself surplus, or wakeWorker found it in the list
// and sends it a token. TestSetWorkersReachesAWorkerAboutToPark.
func (iw *idleWait) recheck() bool {
	p := iw.w.pool
	if iw.latch != nil {
		return iw.latch.isSet() || p.workVisible()
	}
	return p.workVisible() || p.finished() || iw.w.surplus()
}

// testBeforePark, when set (tests only), runs in a worker's main loop just
// before it parks without a timeout: between its last check of the active
// count and its entry in the idle list. Atomic, because the workers of
// every pool in the test binary read it.
var testBeforePark atomic.Pointer[func(*Worker)]
