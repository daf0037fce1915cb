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
// searching+1) and sends it exactly one token, on its wake channel or its
// futex word as it parked (parkMode) — unless the worker removes itself,
// which sends nothing. So a wake channel (capacity 1) or futex word never
// holds more than one token and no token is ever left over (checked under
// invariants: checkSleepLocked).
type sleepState struct {
	_     pad.Line
	state atomic.Uint64
	_     pad.Line
	mu    sync.Mutex
	idle  []*Worker
	// chanParked is how many workers in idle parked on their wake channel
	// (parkChan); the others wait on their futex word (parkFutex).
	chanParked int
	// futex: this pool's regular workers may park on a futex word
	// (parkModeLocked). Set at creation, with pool.
	futex bool
	pool  *Pool
}

// parkMode is how a worker in the idle list waits for its token, chosen
// when it parks and fixed until it has the token (guarded by sleep.mu for
// wakers; the owner, its only writer, reads it freely).
//
//   - parkChan: it receives on its wake channel. The goroutine a channel
//     send readies waits in the run-next slot of the sender's P, so it
//     runs at once if the sender blocks next (Run's caller) or yields
//     (posted). The zero value: every worker starts parked so.
//   - parkFutex (Linux): it blocks in futex(2) on its token word, so its
//     own thread is what the kernel wakes, and the waker runs on without
//     a yield. Waking a goroutine from a channel instead makes Go start
//     an idle thread to run one of the two, and on the 2-vCPU development
//     VM (no cache topology exposed, so Linux does not move a woken thread
//     to an idle sibling) that thread was often queued on the busy vCPU
//     for a time slice (3–4 ms) while the other idled (docs/measured.md,
//     "Coarse leaves").
//
// Which (parkModeLocked): a worker parks on its futex while a computation
// is in flight, or while another already waits on its channel; the first to
// park in an idle pool parks on its channel. Wakes from outside the pool
// prefer a channel sleeper, wakes from a worker a futex sleeper (wakeOne).
// So a Run on an idle pool starts on its caller's CPU as before, and the
// workers it then needs wake on their own threads. Measured on that VM
// (docs/measured.md, "Two ways to park"): the coarse tree 0.2–1.1 % faster
// and within 0.4–0.8 % of rayon, fine-grained fork-join level, and a pool
// running a small loop every 10 ms using about one point more of a core.
//
// A futex sleeper's thread holds its P in a system call until sysmon takes
// it back (at most 10 ms while other Ps are idle): only a pool with no
// more workers than GOMAXPROCS parks so (New), and spares never do.
type parkMode uint8

const (
	parkChan parkMode = iota
	parkFutex
)

// parkModeLocked chooses how w parks now (see parkMode). Caller holds mu.
func (s *sleepState) parkModeLocked(w *Worker) parkMode {
	if !s.futex || w.spare {
		return parkChan
	}
	if s.chanParked == 0 && w.pool.inflight.Load() == 0 {
		return parkChan
	}
	return parkFutex
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

// notify is called after new work was published from outside the pool
// (event PushWork): it wakes one sleeper if wakeNeeded, preferring one
// parked on its channel. It reports whether it woke one.
func (s *sleepState) notify() bool {
	if !s.wakeNeeded() {
		return false
	}
	woke, _ := s.wakeOne(false)
	return woke
}

// posted is notify for a worker that published work of its own (a
// promotion, a spawn) and goes on running: if it woke a sleeper parked on
// its channel, it yields its P to the woken worker at once
// (runtime.Gosched). A sleeper parked on its futex wakes on its own thread
// and needs no yield (parkMode); posted wakes one of those if any sleeps.
//
// Why the yield: a goroutine readied by a channel send waits in the run-next slot
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
	s := &w.pool.sleep
	if s.wakeNeeded() {
		if _, yield := s.wakeOne(true); yield {
			runtime.Gosched()
		}
	}
}

// startSearching counts the calling worker as searching.
func (s *sleepState) startSearching() {
	st := s.state.Add(searcher1)
	if invariants {
		checkSearchers(st, 1)
	}
}

// stopSearching is called by a searcher (a worker) that found work (chain
// == true) or that leaves the pool. If it was the last searcher, workers
// sleep, and work is still visible after it stopped (its ReadWork, after
// the add that is its ReadState), it wakes one: so queued work never waits
// behind a sleeping pool while the pool has idle workers (PROTOCOL.md
// "Posting work", case (a)), and a worker that found the only job there
// is does not delay it to wake a worker with nothing to take. It reports
// whether the caller should yield to the worker it woke (wakeOne).
func (s *sleepState) stopSearching(chain bool) (yield bool) {
	st := s.state.Add(minusSearcher)
	if invariants {
		checkSearchers(st, -1)
	}
	sleepers, searching := counts(st)
	if chain && searching == 0 && sleepers != 0 && s.pool.workVisible() {
		_, yield = s.wakeOne(true)
	}
	return yield
}

// wakeOne wakes a parked worker, if any, and reports whether there was one
// and whether it was parked on its channel, so that a waker that goes on
// running should yield to it (posted). A worker waker (fromWorker) takes
// the most recently parked futex sleeper, anyone else the most recently
// parked channel sleeper, and either takes the most recently parked
// worker when none is parked the way it prefers (parkMode).
func (s *sleepState) wakeOne(fromWorker bool) (woke, yield bool) {
	s.mu.Lock()
	n := len(s.idle)
	if n == 0 {
		s.mu.Unlock()
		return false, false
	}
	i := n - 1
	if s.chanParked != 0 && s.chanParked != n {
		want := parkChan
		if fromWorker {
			want = parkFutex
		}
		for j := n - 1; j >= 0; j-- {
			if s.idle[j].parkMode == want {
				i = j
				break
			}
		}
	}
	w := s.idle[i]
	mode := w.parkMode
	s.removeLocked(w)
	s.mu.Unlock()
	w.stampWake()
	w.sendToken(mode)
	return true, mode == parkChan
}

// sendToken gives w the one token its removal from the idle list owes it,
// the way it parked (mode, read under mu by the remover). Never blocks.
func (w *Worker) sendToken(mode parkMode) {
	if mode == parkFutex {
		w.ftoken.Store(1) // the store the parker's load pairs with
		futexWake(&w.ftoken)
		return
	}
	w.wake <- struct{}{} // capacity 1, and one token per removal
}

// takeFutexToken waits on w's futex word until a remover's token is there
// and consumes it, or until timeout passes when timeout > 0; it reports
// whether it took the token. Owner only. Only one remover stores 1 per
// park, and only the owner stores 0, so a token is never lost or doubled:
// futex(2) returns at once if the word is no longer 0, and a spurious
// return only loops.
func (w *Worker) takeFutexToken(timeout time.Duration) bool {
	var deadline time.Duration
	if timeout > 0 {
		deadline = now() + timeout
	}
	for {
		if w.ftoken.Load() == 1 {
			w.ftoken.Store(0)
			return true
		}
		var d time.Duration
		if timeout > 0 {
			if d = deadline - now(); d <= 0 {
				return false
			}
		}
		futexWait(&w.ftoken, 0, d)
	}
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
	mode := w.parkMode
	s.removeLocked(w)
	s.mu.Unlock()
	w.stampWake()
	w.sendToken(mode)
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
	modes := make([]parkMode, len(woken))
	for i, w := range woken {
		modes[i] = w.parkMode
		s.removeLocked(w)
	}
	s.mu.Unlock()
	for i, w := range woken {
		w.stampWake()
		w.sendToken(modes[i])
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
	if w.parkMode == parkChan {
		s.chanParked--
	}
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
	mode := s.parkModeLocked(w)
	w.parkMode = mode
	if mode == parkChan {
		s.chanParked++
	}
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
	if mode == parkFutex {
		if timeout <= 0 {
			w.st.parks++
			w.publish()
			w.takeFutexToken(0)
			if w.tuner != nil {
				w.tuner.Woken(now() - time.Duration(w.wokenAt.Load()))
			}
		} else if !w.takeFutexToken(timeout) {
			w.unpark()
		}
		return
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
	if w.parkMode == parkFutex {
		w.takeFutexToken(0)
		return
	}
	<-w.wake
}
