package worksteal

import "sync/atomic"

// job is what deques and queues hold: the second half of a Join (a frame), a
// task of a Scope, or a task submitted from outside. run is the typed owner of
// the job (set once when the job is made) and executes it.
type job struct {
	run jobRunner
	// done is used by Join frames only: the joiner waits on it when the frame
	// was stolen. See "Join" in PROTOCOL.md.
	done latch
	// thief is the id of the worker that ran a stolen frame, so a joiner
	// waiting for it can look for work there first ("leapfrogging").
	thief atomic.Int32
	// fork marks a Join frame's second half (set once, by newFrame). A
	// worker's Join frames sit in its deque oldest first, each the sibling
	// of a subtree that holds all the younger ones, so the oldest is about
	// as much work as the rest together: a thief takes a fork alone, even
	// under policy.StealHalf (trySteal), as the deque-based joins of rayon,
	// Cilk and oneTBB do; spawned tasks, siblings of one another, go by
	// half.
	fork bool
}

// jobRunner executes a job on worker w. Implementations never let a panic
// escape: it is recovered and stored where the job's waiter will find it.
type jobRunner interface {
	runJob(w *Worker)
}

// Latch states.
//
//	latchUnset:    not finished.
//	latchSleeping: not finished, and the waiter is parked (or about to park);
//	               whoever sets the latch must wake it.
//	latchSet:      finished; the result (or panic) is published. The setter
//	               uses Swap, which is the happens-before edge [L1]: every
//	               write of the finished work happens before a waiter's Load
//	               that observes latchSet.
const (
	latchUnset uint32 = iota
	latchSleeping
	latchSet
)

// latch is a one-shot completion flag with a waiter that may park. waiter is
// the worker that waits for it; it never changes while the latch is in use.
type latch struct {
	state  atomic.Uint32
	waiter *Worker
}

func (l *latch) isSet() bool { return l.state.Load() == latchSet }

// set marks the latch finished and wakes its waiter if it parked.
// Once the latch is set, the waiter may go on at once and reuse what the
// latch guards (a Join frame is handed to the next Join at its depth), so
// the setter must write nothing it guards after set, and must read before
// set every field it needs — except waiter (below).
//
// waiter is read after the Swap, and only if the waiter announced that it
// sleeps: its write of waiter happens before its CAS to latchSleeping [L2].
// A frame's waiter (its owner) never changes, so reading it after the frame
// was handed back is safe.
func (l *latch) set() {
	if l.state.Swap(latchSet) == latchSleeping { // [L1]
		w := l.waiter
		w.pool.wakeWorker(w)
	}
}

// reset makes a finished latch reusable; only the waiter calls it, after it
// observed latchSet.
func (l *latch) reset() { l.state.Store(latchUnset) }
