package worksteal

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/worksteal/worksteal/internal/pad"
)

// The sleep state packs two counters into one word so that a pusher reads
// both with one load (see PROTOCOL.md "Posting work"):
//
//	bits 32..63: sleepers  — workers in the idle list (parked or about to)
//	bits  0..31: searching — workers looking for work (stealing, backing off)
const (
	searcher1 = 1
	sleeper1  = 1 << 32
	// toSearching moves one worker from sleeping to searching:
	// sleepers−1, searching+1, as a wrapping add.
	toSearching = ^uint64(sleeper1-searcher1) + 1
	// minusSearcher is searching−1 as a wrapping add.
	minusSearcher = ^uint64(0)
)

// sleepState is the pool's idle protocol state. Invariants (under mu):
// a worker is in idle iff its idleIdx >= 0, and sleepers == len(idle).
// Whoever removes a worker from idle does its accounting (sleepers−1,
// searching+1) and sends it exactly one token on its wake channel — unless
// the worker removes itself, which sends nothing. So a wake channel (capacity
// 1) never holds more than one token and no token is ever left over.
type sleepState struct {
	_     pad.Line
	state atomic.Uint64
	_     pad.Line
	mu    sync.Mutex
	idle  []*Worker
}

// counts decodes the state word. Every reader of the word goes through it.
func counts(st uint64) (sleepers, searching uint32) { return uint32(st >> 32), uint32(st) }

// wakeNeeded is ReadState of PROTOCOL.md "Posting work": whether a worker
// that just published work must wake a sleeper — some sleep and none
// searches. If one searches, it is certain to see the work or, when it
// stops, to wake a sleeper (the chain wake-up).
func (s *sleepState) wakeNeeded() bool {
	sleepers, searching := counts(s.state.Load())
	return sleepers != 0 && searching == 0
}

// notify is called after new work was published (event PushWork): it wakes
// one sleeper if wakeNeeded. It reports whether it woke one.
func (s *sleepState) notify() bool {
	return s.wakeNeeded() && s.wakeOne()
}

// posted is notify for a worker that published work of its own (a
// promotion, a spawn) and goes on running: if it woke a sleeper, it yields
// its P to the woken worker at once (runtime.Gosched).
//
// Why: a goroutine readied by a channel send waits in the run-next slot
// of the sender's P, where the Go scheduler lets another thread take it
// only after a pause, and not always: the sender, computing on (a Join's
// first half, a leaf without a poll point), keeps its P until it blocks
// or is preempted. Measured on the 2-core development VM with a pool idle
// before each Run (BenchmarkStartDelay, .dev/coarse3/startdelay), the woken
// worker started 0.14 ms after the wake at the median and, in about a
// third of the runs, only when the sender's 2 ms half ended; plain
// goroutines show the same. Yielding puts the woken worker on the
// sender's P at once (about 1.5 µs) and the sender on the global run queue,
// where the thread that the wake-up started takes it (about 35 µs). The
// cost falls only on a post that woke a sleeper: one in a thousand
// Joins or fewer, and none while every worker is busy.
func (w *Worker) posted() {
	if w.pool.sleep.notify() {
		runtime.Gosched()
	}
}

// startSearching counts the calling worker as searching.
func (s *sleepState) startSearching() {
	st := s.state.Add(searcher1)
	if invariants {
		checkSearchers(st, 1)
	}
}

// stopSearching is called by a searcher that found work (chain == true) or
// that leaves the pool. If it was the last searcher and workers sleep, it
// wakes one, so queued work never waits behind a sleeping pool while the
// pool has idle workers.
func (s *sleepState) stopSearching(chain bool) bool {
	st := s.state.Add(minusSearcher)
	if invariants {
		checkSearchers(st, -1)
	}
	sleepers, searching := counts(st)
	return chain && searching == 0 && sleepers != 0 && s.wakeOne()
}

// wakeOne wakes the most recently parked worker, if any, and reports
// whether there was one.
func (s *sleepState) wakeOne() bool {
	s.mu.Lock()
	n := len(s.idle)
	if n == 0 {
		s.mu.Unlock()
		return false
	}
	w := s.idle[n-1]
	s.removeLocked(w)
	s.mu.Unlock()
	w.stampWake()
	w.wake <- struct{}{} // never blocks: one token per removal
	return true
}

// wakeWorker wakes w if it is in the idle list and reports whether it did.
//
// A surplus worker waiting at a latch (waitSurplus) is woken too, but the
// result is false: it takes no work, so a caller that posted work must
// still notify.
func (p *Pool) wakeWorker(w *Worker) bool {
	s := &p.sleep
	s.mu.Lock()
	if w.idleIdx < 0 {
		wasWaiting := w.surplusWait
		w.surplusWait = false
		s.mu.Unlock()
		if wasWaiting {
			w.wake <- struct{}{} // one token per clearing of surplusWait
		}
		return false
	}
	s.removeLocked(w)
	s.mu.Unlock()
	w.stampWake()
	w.wake <- struct{}{}
	return true
}

// stampWake records when w's token was sent, for its wake-up latency
// (Idle.Adaptive; the tuner is set at creation, so reading it is safe).
func (w *Worker) stampWake() {
	if w.tuner != nil {
		w.wokenAt.Store(int64(now()))
	}
}

// wakeAll wakes every parked worker (Close).
func (s *sleepState) wakeAll() {
	s.mu.Lock()
	woken := append([]*Worker(nil), s.idle...)
	for _, w := range woken {
		s.removeLocked(w)
	}
	s.mu.Unlock()
	for _, w := range woken {
		w.stampWake()
		w.wake <- struct{}{}
	}
}

// removeLocked takes w out of the idle list and moves it from sleeping to
// searching. Caller holds mu.
func (s *sleepState) removeLocked(w *Worker) {
	i := w.idleIdx
	last := len(s.idle) - 1
	s.idle[i] = s.idle[last]
	s.idle[i].idleIdx = i
	s.idle[last] = nil
	s.idle = s.idle[:last]
	w.idleIdx = -1
	st := s.state.Add(toSearching)
	if invariants {
		checkSearchers(st, 1)
		s.checkSleepLocked()
	}
}

// park blocks the calling worker until it is woken, or until timeout
// passes when timeout > 0. The worker must be counted as searching, and it
// is counted as searching again when park returns. recheck runs after the
// worker announced itself as a sleeper (events IncSleepers, then ReadWork in
// PROTOCOL.md "Parking"); if it reports work, the worker cancels the park
// instead of blocking.
func (w *Worker) park(recheck func() bool, timeout time.Duration) {
	s := &w.pool.sleep
	s.mu.Lock()
	w.idleIdx = len(s.idle)
	s.idle = append(s.idle, w)
	st := s.state.Add(sleeper1 - searcher1) // IncSleepers: sleepers+1, searching−1
	if invariants {
		checkSearchers(st, -1)
		s.checkSleepLocked()
	}
	s.mu.Unlock()

	if recheck() { // ReadWork
		w.unpark()
		return
	}
	if w.rec != nil {
		w.rec.record(EvPark, -1, 0)
		defer w.rec.record(EvWake, -1, 0)
	}
	if timeout <= 0 {
		w.st.parks++
		w.publish()
		<-w.wake
		if w.tuner != nil {
			w.tuner.Woken(now() - time.Duration(w.wokenAt.Load()))
		}
		return
	}
	if w.timer == nil {
		w.timer = time.NewTimer(timeout)
	} else {
		w.timer.Reset(timeout)
	}
	select {
	case <-w.wake:
		w.timer.Stop()
	case <-w.timer.C:
		w.unpark()
	}
}

// unpark cancels the calling worker's own announcement as a sleeper, or, if
// a waker removed it from the idle list first, takes the token that waker
// owes it (PROTOCOL.md "Posting work", subtle point 2).
func (w *Worker) unpark() {
	s := &w.pool.sleep
	s.mu.Lock()
	if w.idleIdx >= 0 {
		s.removeLocked(w)
		s.mu.Unlock()
		return
	}
	s.mu.Unlock()
	<-w.wake
}
