package worksteal

import (
	"context"
	"fmt"
	"log"
	"sync"
	"sync/atomic"
	"time"

	"github.com/worksteal/worksteal/deque"
	"github.com/worksteal/worksteal/internal/pad"
)

// Pool is a set of workers, each with its own work-stealing deque, plus an
// injection queue for work that arrives from outside the pool.
//
// Work enters a pool from a plain goroutine through [Run], [Pool.Scope] and
// [Pool.Submit]; inside the pool, tasks fork through the [*Worker] handle
// they receive ([Join], [JoinFunc], [Worker.Scope]).
//
// A Pool must be closed with [Pool.Close] to stop its goroutines.
type Pool struct {
	cfg      Config
	workers  []*Worker
	stealers []deque.Stealer[job] // stealers[i] steals from workers[i]
	injector queue
	sleep    sleepState

	rr atomic.Uint32 // round-robin cursor of SubmitSpread
	// submitMu orders submissions with Close: a submission holds it shared
	// from its check of refusing until its job is pushed, so once Close has
	// set refusing under the exclusive lock, every accepted job is queued.
	submitMu sync.RWMutex
	refusing bool           // guarded by submitMu
	closed   atomic.Bool    // set after refusing: workers exit once inflight is 0
	running  sync.WaitGroup // worker goroutines, spares included
	// inflight counts accepted computations (Run, Scope, Submit*) not yet
	// finished: added under submitMu with the push, subtracted as the last
	// thing their root job does. Every job in any queue belongs to one of
	// them, so closed && inflight == 0 means the pool is finished ([C1]).
	inflight atomic.Int64
	live     atomic.Int32 // regular worker goroutines that have not exited
	closeMu  sync.Mutex   // serialises Close

	blocking atomic.Int64 // workers inside Blocking regions
	spares   spareSet
	resize   resizeState  // the active set (SetWorkers, resize.go)
	governor *governorRun // Config.Governor; nil when off (governor.go)
	mon      *monitor     // the stall monitor; nil when Config.StallAfter < 0 (monitor.go)

	start     time.Time     // when New made the pool: event time 0
	startMono time.Duration // now() at start

	counters *poolCounters // Config.Counters; nil when off (counters.go)

	panicMu    sync.Mutex
	firstPanic *PanicError // first unhandled panic of a submitted task
	_          pad.Line
}

// New starts a pool configured by cfg. It returns an error naming the
// offending field when cfg is invalid.
func New(cfg Config) (*Pool, error) {
	cfg, err := cfg.normalize()
	if err != nil {
		return nil, err
	}
	p := &Pool{cfg: cfg, start: time.Now(), startMono: now(), counters: newPoolCounters(cfg)}
	n := cfg.Workers
	p.workers = make([]*Worker, n)
	p.stealers = make([]deque.Stealer[job], n)
	for i := range p.workers {
		w := newWorker(p, i, n, false)
		p.workers[i] = w
		p.stealers[i] = w.dq.Stealer()
	}
	p.spares.init(p, max(0, cfg.MaxBlocking))
	// Every worker starts parked: in the idle list, counted as a sleeper
	// (main waits for its first token). Nobody searches an empty pool.
	p.sleep.idle = append(make([]*Worker, 0, n), p.workers...)
	for i, w := range p.workers {
		w.idleIdx = i
	}
	p.sleep.state.Store(uint64(n) * sleeper1)
	p.live.Store(int32(n))
	p.resize.active.Store(int32(n))
	p.running.Add(n)
	for _, w := range p.workers {
		go w.main(true)
	}
	p.startMonitor()
	p.governor = p.startGovernor()
	return p, nil
}

// Workers returns the number of workers (spares for Blocking not counted).
func (p *Pool) Workers() int { return len(p.workers) }

// Config returns the pool's configuration with every default filled in.
func (p *Pool) Config() Config { return p.cfg }

// Close stops the pool gracefully: it refuses new external work (Run,
// Scope, Submit then return [ErrClosed]) and waits until every computation
// accepted before — each Run, Scope and Submit call, with every task it
// spawns or joins — has finished; then the worker goroutines exit. Until
// then every worker stays and keeps taking work, so a computation in flight
// when Close begins still runs in parallel on the whole pool.
//
// It returns the first panic of a task started with Submit that no
// Config.OnPanic handler took, as a *PanicError, or nil. Concurrent calls
// all wait until the pool has finished; a call after that returns nil at
// once.
//
// Close must not be called from a task running on the pool: it would wait
// for itself, so it panics with a message saying so (inside Blocking too).
// From a task of another pool it panics like a nested [Run], unless inside
// [Worker.Blocking].
func (p *Pool) Close() error {
	p.checkCloseNotInTask()
	p.closeMu.Lock()
	defer p.closeMu.Unlock()
	if p.closed.Load() {
		return nil
	}
	p.governor.stop()
	p.submitMu.Lock()
	p.refusing = true
	p.submitMu.Unlock()
	p.closed.Store(true)
	// [C1]: if a computation is still in flight, the one that finishes last
	// wakes everyone (computationDone); if none is, we do. Both sides store
	// then load (closed, inflight) in opposite order, so at least one of
	// them sees the pool finished. See PROTOCOL.md "Closing".
	if p.inflight.Load() == 0 {
		p.wakeForClose()
	}
	p.running.Wait()
	p.stopMonitor()
	p.counters.close()
	p.panicMu.Lock()
	defer p.panicMu.Unlock()
	if p.firstPanic != nil {
		return p.firstPanic
	}
	return nil
}

// finished reports whether the pool is closed and every accepted
// computation has finished: then no work exists or can arrive, and workers
// exit ([C1]).
func (p *Pool) finished() bool { return p.closed.Load() && p.inflight.Load() == 0 }

// computationDone is the last thing the root job of an accepted computation
// does. The one that ends the last computation of a closed pool wakes every
// parked worker and retired spare, so they see the pool finished ([C1]:
// its decrement comes before its load of closed, Close's store of closed
// before its own wake-up, and a parking worker's IncSleepers before its
// ReadWork of both; so a worker that parks after reading inflight != 0, or
// closed unset, is in the idle list when one of the two wakes everyone).
func (p *Pool) computationDone() {
	if p.inflight.Add(-1) == 0 && p.closed.Load() {
		p.wakeForClose()
	}
}

// wakeForClose wakes every parked worker, retired spare and surplus
// worker (SetWorkers).
func (p *Pool) wakeForClose() {
	p.monitorWake()
	p.sleep.wakeAll()
	p.spares.wakeAll()
	p.wakeRetired()
}

// Submit queues f on the pool's shared injection queue and returns without
// waiting. A panic in f goes to Config.OnPanic (or is returned by Close).
// It returns ErrClosed after Close.
func (p *Pool) Submit(f func(w *Worker)) error {
	if f == nil {
		return fmt.Errorf("worksteal: Submit of a nil func")
	}
	return p.inject(&p.injector, &newSubmitted(f).job, nil)
}

// inject accepts the root job j of a computation unless the pool refuses
// work: counts it in flight, pushes it onto q, then posts it — waking
// target itself if it is not nil and sleeps, else as notify decides.
func (p *Pool) inject(q *queue, j *job, target *Worker) error {
	p.submitMu.RLock()
	if p.refusing {
		p.submitMu.RUnlock()
		return ErrClosed
	}
	p.inflight.Add(1)
	p.monitorWake()
	q.push(j) // PushWork
	p.submitMu.RUnlock()
	if target == nil || !p.wakeWorker(target) {
		p.sleep.notify()
	}
	return nil
}

// SubmitTo queues f on worker i's inbox: a hint that f should run there
// (for cache affinity). Any idle worker may still take it, so an inbox never
// strands work behind a busy worker. It returns an error if i is out of range
// and ErrClosed after Close.
func (p *Pool) SubmitTo(i int, f func(w *Worker)) error {
	if i < 0 || i >= len(p.workers) {
		return fmt.Errorf("worksteal: SubmitTo worker %d; the pool has workers 0..%d", i, len(p.workers)-1)
	}
	if f == nil {
		return fmt.Errorf("worksteal: SubmitTo of a nil func")
	}
	w := p.workers[i]
	return p.inject(&w.inbox, &newSubmitted(f).job, w)
}

// SubmitSpread queues f on the active workers' inboxes in round-robin
// order, spreading a batch of external tasks across the pool instead of
// funnelling them through one shared queue.
func (p *Pool) SubmitSpread(f func(w *Worker)) error {
	// The modulo is taken in uint32: converting the cursor to int first
	// made it negative after 2^31 calls where int has 32 bits.
	i := int((p.rr.Add(1) - 1) % uint32(max(1, p.ActiveWorkers())))
	return p.SubmitTo(i, f)
}

// submitted is a task from Submit: fire and forget.
type submitted struct {
	job
	f func(w *Worker)
}

func newSubmitted(f func(w *Worker)) *submitted {
	t := &submitted{f: f}
	t.run = t
	return t
}

func (t *submitted) runJob(w *Worker) {
	defer w.pool.computationDone()
	guard(func() { t.f(w) }, w.pool.reportPanic)
}

func (p *Pool) reportPanic(pe *PanicError) {
	if h := p.cfg.OnPanic; h != nil {
		h(pe)
		return
	}
	LogPanic(pe)
	p.panicMu.Lock()
	if p.firstPanic == nil {
		p.firstPanic = pe
	}
	p.panicMu.Unlock()
}

// LogPanic is what a pool does with the panic of a task started with Submit
// when Config.OnPanic is nil: it writes the panic and its stack to the
// standard logger (package log), so that no panic goes unseen when Close's
// result is dropped (as in defer pool.Close()).
func LogPanic(pe *PanicError) {
	log.Printf("worksteal: a task started with Submit panicked (set Config.OnPanic to handle it): %v", pe)
}

// Run runs f on a worker of p and returns its result. It blocks only the
// calling goroutine, which must not be a worker of p (inside the pool, call
// f(w) directly). A panic in f, or in any task it joins, is re-raised here as
// a *PanicError. Run returns ErrClosed after Close.
func Run[T any](p *Pool, f func(w *Worker) T) (T, error) {
	checkNotInTask()
	var zero T
	t := &rootTask[T]{f: f, finished: make(chan struct{})}
	t.run = t
	if err := p.inject(&p.injector, &t.job, nil); err != nil {
		return zero, err
	}
	<-t.finished
	if t.pe != nil {
		panic(t.pe)
	}
	return t.v, nil
}

// rootTask is the job of a Run: it carries the result back over a channel.
type rootTask[T any] struct {
	job
	f        func(w *Worker) T
	v        T
	pe       *PanicError
	finished chan struct{}
}

func (t *rootTask[T]) runJob(w *Worker) {
	defer w.pool.computationDone()
	defer close(t.finished)
	guard(func() { t.v = t.f(w) }, func(pe *PanicError) { t.pe = pe })
}

// Scope runs body on a worker of p with a new [Scope], and returns when the
// body and every task spawned in the scope have finished; see
// [Worker.Scope]. It blocks only the calling goroutine, which must not be a
// worker of p. It returns ErrClosed after Close.
func (p *Pool) Scope(ctx context.Context, body func(w *Worker, s *Scope) error) error {
	err, runErr := Run(p, func(w *Worker) error { return w.Scope(ctx, body) })
	if runErr != nil {
		return runErr
	}
	return err
}

// queueLen is the victim's queue length as the victim policies see it.
func (p *Pool) queueLen(i int) int { return p.stealers[i].Len() }

// workVisible reports whether any queue holds work; used by the re-check of
// the parking protocol (PROTOCOL.md "Parking", event ReadWork).
func (p *Pool) workVisible() bool {
	if p.injector.len() > 0 {
		return true
	}
	for i, s := range p.stealers {
		if s.Len() > 0 || p.workers[i].inbox.len() > 0 {
			return true
		}
	}
	return p.spares.workVisible()
}
