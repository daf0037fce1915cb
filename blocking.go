package worksteal

import (
	"sync"
	"sync/atomic"
)

// Blocking runs f, which may block (I/O, a lock, a channel), while the pool
// compensates: it starts a spare worker (up to Config.MaxBlocking at once)
// so that the pool keeps Workers() goroutines running tasks. The blocked
// worker's queued jobs stay visible to thieves meanwhile.
//
// Without Blocking, a task that waits on something only another task can
// provide may deadlock a pool whose every worker waits the same way.
//
// Blocking costs about a goroutine wake-up; use it around waits that are
// long compared with that (microseconds or more), not around every lock.
// A wait outside Blocking is compensated too, but only once the stall
// monitor has seen the worker blocked for Config.StallAfter (monitor.go).
func (w *Worker) Blocking(f func()) {
	checkWorker(w)
	w.blocks++
	if f := w.onBlock; f != nil {
		// Before the promote: a thief that takes a half published below
		// acquires through the deque what this store released ([J1]), so
		// it reads the flag true (NotifyBlocking).
		f.Store(true)
	}
	w.promote() // the halves w's joins hold must stay takeable while it blocks
	p := w.pool
	p.blocking.Add(1)
	p.spares.start(p)
	outer := w.mon.Load() & monBlocking
	w.setMonBits(monBlocking, monBlocking) // compensated: not a stall
	defer func() {
		w.setMonBits(monBlocking, outer)
		p.blocking.Add(-1)
	}()
	f()
}

// BlockingCalls reports how many times w has entered [Worker.Blocking]
// (or BlockingErr, BlockingValue). A loop that compares it before and
// after a piece of its body learns that the body waits, so that its time
// is the wait's, not work's: package par's loops then hand their remaining
// iterations out one by one, as a goroutine per iteration would run them,
// instead of keeping them in chunks that would wait one after another.
//
// Call it only from the task w was passed to, like every *Worker method.
func (w *Worker) BlockingCalls() uint64 {
	checkWorker(w)
	return w.blocks
}

// NotifyBlocking makes every later [Worker.Blocking] of w (BlockingErr,
// BlockingValue) store true into *flag as it starts, before it makes the
// halves of w's Joins takeable, until the next NotifyBlocking; nil stops
// it. It returns the flag set before, which the caller restores when done,
// so that uses nest:
//
//	prev := w.NotifyBlocking(&blocked)
//	defer w.NotifyBlocking(prev)
//
// Another worker that takes one of those halves reads the flag true: it
// learns that the half was published because its owner waits, not because
// a worker was idle or the heartbeat beat. Package par's loops run their
// first chunk so, with the rest of the range as a Join's second half: a
// rest taken while the first iteration waits goes out at once as a task
// per iteration, as a goroutine per iteration would run them, instead of
// waiting for that first wait to end.
//
// The flag is read by other goroutines: it must be an atomic. Call it only
// from the task w was passed to, like every *Worker method.
func (w *Worker) NotifyBlocking(flag *atomic.Bool) (prev *atomic.Bool) {
	checkWorker(w)
	prev, w.onBlock = w.onBlock, flag
	return prev
}

// spareSet holds the spare workers. Spares are made on demand and kept; an
// idle spare waits on its wake channel in the free list. A spare is active
// while it runs the normal worker loop; it retires (back to the free list)
// when more spares are active than workers are inside Blocking.
type spareSet struct {
	mu      sync.Mutex
	max     int
	all     []*Worker                 // every spare ever made (append-only, under mu)
	list    atomic.Pointer[[]*Worker] // a copy of all, for lock-free readers; nil until the first spare
	free    []*Worker                 // retired spares waiting for work (under mu)
	nactive atomic.Int64
	pool    *Pool // set once by init
}

func (s *spareSet) init(p *Pool, max int) { s.pool, s.max = p, max }

// start activates one spare: a retired one, or a new one while under max.
//
// Spares start during Close too: a task that blocks while the pool drains
// may be waiting for queued work that only a spare can run.
//
// It reports whether a spare was activated (false: MaxBlocking are active).
func (s *spareSet) start(p *Pool) bool {
	s.mu.Lock()
	if n := len(s.free); n > 0 {
		sp := s.free[n-1]
		s.free = s.free[:n-1]
		s.nactive.Add(1)
		s.mu.Unlock()
		sp.wake <- struct{}{}
		return true
	}
	if len(s.all) >= s.max {
		s.mu.Unlock()
		return false
	}
	sp := newWorker(p, len(p.workers)+len(s.all), len(p.workers), true)
	s.all = append(s.all, sp)
	list := append([]*Worker(nil), s.all...)
	s.list.Store(&list)
	s.nactive.Add(1)
	p.running.Add(1)
	s.mu.Unlock()
	go sp.main(false)
	return true
}

// shouldRetire reports whether more spares run than workers block: inside
// Blocking, or blocked outside it as the stall monitor found them.
func (s *spareSet) shouldRetire() bool {
	return s.nactive.Load() > s.pool.blocking.Load()+s.pool.mon.blockedCount()
}

// active reports whether any spare exists whose deque may hold work.
func (s *spareSet) active() bool { return s.list.Load() != nil }

// get returns spare i, or nil.
func (s *spareSet) get(i int) *Worker {
	l := s.list.Load()
	if l == nil || i < 0 || i >= len(*l) {
		return nil
	}
	return (*l)[i]
}

func (s *spareSet) each(f func(*Worker)) {
	if l := s.list.Load(); l != nil {
		for _, w := range *l {
			f(w)
		}
	}
}

// stealFrom makes one steal attempt on each spare whose deque holds work.
func (s *spareSet) stealFrom(w *Worker) *job {
	l := s.list.Load()
	if l == nil {
		return nil
	}
	n := len(w.pool.workers)
	for i, sp := range *l {
		if sp != w && sp.dq.Stealer().Len() > 0 {
			if j := w.trySteal(n + i); j != nil {
				return j
			}
		}
	}
	return nil
}

func (s *spareSet) workVisible() bool {
	l := s.list.Load()
	if l == nil {
		return false
	}
	for _, sp := range *l {
		if sp.dq.Stealer().Len() > 0 {
			return true
		}
	}
	return false
}

// wakeAll releases retired spares so they see the pool closed and exit.
func (s *spareSet) wakeAll() {
	s.mu.Lock()
	free := s.free
	s.free = nil
	s.mu.Unlock()
	for _, sp := range free {
		sp.wake <- struct{}{}
	}
}

// spareRetire parks a spare in the free list until Blocking needs it again
// or the pool closes. Its deque is empty: it retires only from findWork,
// after its own deque was found empty.
func (w *Worker) spareRetire() {
	p := w.pool
	s := &p.spares
	s.mu.Lock()
	if p.finished() {
		// The pool is finished and its last computation has woken the
		// free list already ([C1], under mu): never park after it.
		s.nactive.Add(-1)
		s.mu.Unlock()
		return
	}
	s.free = append(s.free, w)
	s.nactive.Add(-1)
	s.mu.Unlock()
	w.publish()
	<-w.wake
}
