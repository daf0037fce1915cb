package worksteal

import (
	"fmt"
	"sync"
	"sync/atomic"
)

// resizeState is the pool's active set (Pool.SetWorkers): regular workers
// 0 … active−1 take work; the others, the surplus, finish the job they run
// and then park for good, in the retired list, until SetWorkers raises the
// count again or the pool closes. See PROTOCOL.md "Resizing".
//
// Invariants (under mu): a worker is in retired iff it is parked for good;
// a retired worker's id is ≥ active; it is not in the sleep state's idle
// list and is counted neither as a sleeper nor as a searcher; its deque is
// empty (it retires only after popping its own deque empty, and only its
// owner pushes onto it). Whoever removes a worker from retired sends it
// exactly one token on its wake channel; nobody else sends it one while it
// is there (it is in no other list).
type resizeState struct {
	active  atomic.Int32
	mu      sync.Mutex
	retired []*Worker
}

// SetWorkers sets how many of the pool's workers take work, from 1 to
// Workers(), while computations run. Workers n … Workers()−1 finish the
// job they are running (helping, as any joiner does, while they wait for
// its stolen parts), then park until SetWorkers raises the count again;
// they are not picked as victims and not woken for new work. Nothing queued
// is lost: a surplus worker first runs what its own deque holds (other
// workers may steal it meanwhile), and work submitted to its inbox
// (SubmitTo) is taken by the active workers. Raising the count wakes the
// parked workers at once. It returns an error naming n if n is out of range.
//
// Blocking's spare workers are not counted: they start and retire as
// before.
func (p *Pool) SetWorkers(n int) error {
	if n < 1 || n > len(p.workers) {
		return fmt.Errorf("worksteal: SetWorkers(%d): want 1 to %d (the workers the pool was created with)", n, len(p.workers))
	}
	r := &p.resize
	r.mu.Lock()
	old := int(r.active.Swap(int32(n)))
	var woken []*Worker
	if n > old {
		r.retired = removeRetired(r.retired, func(w *Worker) bool { return w.id < n }, &woken)
	}
	r.mu.Unlock()
	for _, w := range woken {
		w.wake <- struct{}{} // one token per removal from retired
	}
	if n > old {
		// Workers that were waiting at a latch as surplus (waitSurplus)
		// take work again: wake them (a no-op for the others).
		for _, w := range p.workers[old:n] {
			p.wakeWorker(w)
		}
	}
	if n < old {
		// The surplus workers parked in the idle list are woken, so that
		// they move to the retired list now instead of at the next posted
		// work (each one woken then passes the wake-up on, but the first
		// few posts would be slower).
		for _, w := range p.workers[n:old] {
			p.wakeWorker(w)
		}
	}
	return nil
}

// ActiveWorkers returns the number of workers that take work: Workers(),
// unless SetWorkers (or Config.Governor) lowered it.
func (p *Pool) ActiveWorkers() int { return int(p.resize.active.Load()) }

// surplus reports whether regular worker w is outside the active set.
func (w *Worker) surplus() bool {
	return !w.spare && w.id >= int(w.pool.resize.active.Load())
}

// Surplus reports whether SetWorkers (or Config.Governor) has left w out
// of the pool's active workers while it runs a task. Such a worker hands
// its work back at its poll points: every latent Join half goes public
// (this call does that too), its joins wait for the active workers to run
// the halves instead of taking them back, and it parks as soon as its
// task returns. Code that holds the rest of a long computation in its own
// variables — a loop over a range — should split it and offer the rest
// when Surplus is true, as package par's loops do, so that a resize takes
// effect within one chunk instead of at the end of the loop.
func (w *Worker) Surplus() bool {
	checkWorker(w)
	if w.surplus() {
		w.handBack()
		return true
	}
	return false
}

// handBack is what a surplus worker does at a poll point: it promotes
// every latent frame, and it ends a heartbeat's hold on gate ([P4]: after
// a beat the rest of the promoted Join's first half makes plain calls,
// and promote, finding no latent frame, would leave them so). With gate
// back at lo + LatentFrames the Joins still to come open frames, which
// the next poll point hands back too, so a retiring worker keeps only the
// leaf it is in and the plain halves already on its stack, not the whole
// subtree below its last frame. Owner only.
func (w *Worker) handBack() {
	w.promote()
	w.setLo(w.lo)
}

// waitSurplus parks a surplus worker at latch l, taking no work, until l
// is set or w is active again. It is counted neither as a sleeper nor as
// a searcher (no pusher relies on it), and idle in the statistics.
//
// Protocol: under sleep.mu it sets surplusWait, then CASes l to
// latchSleeping ([L2]), then re-checks l and the active count. The latch's
// setter Swaps in latchSet and then calls wakeWorker, which clears
// surplusWait under mu and sends one token; SetWorkers stores the raised
// count, then calls wakeWorker likewise. Either the re-check sees the set
// latch or the raise, or the waker finds surplusWait set. A worker that
// cancels clears surplusWait itself, or, if a waker cleared it first,
// takes that waker's token: no token is left over.
func (w *Worker) waitSurplus(l *latch) {
	s := &w.pool.sleep
	w.beginIdle()
	defer w.endIdle()
	for !l.isSet() && w.surplus() {
		s.mu.Lock()
		w.surplusWait = true
		s.mu.Unlock()
		l.state.CompareAndSwap(latchUnset, latchSleeping) // [L2]
		if l.isSet() || !w.surplus() {
			s.mu.Lock()
			mine := w.surplusWait
			w.surplusWait = false
			s.mu.Unlock()
			if !mine {
				<-w.wake // a waker cleared it: take its token
			}
			return
		}
		if w.rec != nil {
			w.rec.record(EvPark, -1, 0)
		}
		w.st.parks++
		w.publish()
		<-w.wake
		if w.rec != nil {
			w.rec.record(EvWake, -1, 0)
		}
	}
}

// retire parks a surplus worker for good, from findWork after its own
// deque and inbox were found empty and it stopped searching. It returns at
// once if w is no longer surplus or the pool is finished, else when
// SetWorkers raises the count over w.id or the pool finishes.
//
// Both checks are made under mu, where SetWorkers changes the count and
// wakeRetired empties the list, so a raise or a close that happens as w
// retires either is seen here or finds w in the list (no lost wake-up).
func (w *Worker) retire() {
	p := w.pool
	r := &p.resize
	r.mu.Lock()
	if w.id < int(r.active.Load()) || p.finished() {
		r.mu.Unlock()
		return
	}
	r.retired = append(r.retired, w)
	r.mu.Unlock()
	if w.rec != nil {
		w.rec.record(EvPark, -1, 0)
		defer w.rec.record(EvWake, -1, 0)
	}
	w.st.parks++
	w.publish()
	<-w.wake
}

// wakeRetired wakes every retired worker (the pool finished: they exit).
func (p *Pool) wakeRetired() {
	r := &p.resize
	r.mu.Lock()
	woken := r.retired
	r.retired = nil
	r.mu.Unlock()
	for _, w := range woken {
		w.wake <- struct{}{}
	}
}

// retiredCount is the number of workers parked for good (tests).
func (p *Pool) retiredCount() int {
	p.resize.mu.Lock()
	defer p.resize.mu.Unlock()
	return len(p.resize.retired)
}

func removeRetired(list []*Worker, take func(*Worker) bool, out *[]*Worker) []*Worker {
	kept := list[:0]
	for _, w := range list {
		if take(w) {
			*out = append(*out, w)
		} else {
			kept = append(kept, w)
		}
	}
	clear(list[len(kept):])
	return kept
}
