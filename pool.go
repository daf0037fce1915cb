package worksteal

import (
	"context"
	"fmt"
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
	closed   atomic.Bool    // set after refusing: workers may exit once drained
	running  sync.WaitGroup // worker goroutines, spares included
	closeMu  sync.Mutex     // serialises Close

	blocking atomic.Int64 // workers inside Blocking regions
	spares   spareSet

	start     time.Time     // when New made the pool: event time 0
	startMono time.Duration // now() at start

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
	p := &Pool{cfg: cfg, start: time.Now(), startMono: now()}
	n := cfg.Workers
	p.workers = make([]*Worker, n)
	p.stealers = make([]deque.Stealer[job], n)
	for i := range p.workers {
		w := newWorker(p, i, n, false)
		p.workers[i] = w
		p.stealers[i] = w.dq.Stealer()
	}
	p.spares.init(p, max(0, cfg.MaxBlocking))
	for _, w := range p.workers {
		p.running.Add(1)
		go w.main()
	}
	return p, nil
}

// Workers returns the number of workers (spares for Blocking not counted).
func (p *Pool) Workers() int { return len(p.workers) }

// Config returns the pool's configuration with every default filled in.
func (p *Pool) Config() Config { return p.cfg }

// Close stops the pool gracefully: it refuses new external work (Run,
// Scope, Submit then return [ErrClosed]), lets every task already queued or
// running finish — including tasks they spawn — and waits for the worker
// goroutines to exit. It returns the first panic of a task started with
// Submit that no Config.OnPanic handler took, as a *PanicError, or nil.
// Concurrent calls all wait until the pool has drained; a call after that
// returns nil at once.
//
// Close must not be called from a task running on the pool (it would wait
// for itself).
func (p *Pool) Close() error {
	p.closeMu.Lock()
	defer p.closeMu.Unlock()
	if p.closed.Load() {
		return nil
	}
	p.submitMu.Lock()
	p.refusing = true
	p.submitMu.Unlock()
	p.closed.Store(true)
	p.sleep.wakeAll() // see PROTOCOL.md "Closing"
	p.spares.wakeAll()
	p.running.Wait()
	p.panicMu.Lock()
	defer p.panicMu.Unlock()
	if p.firstPanic != nil {
		return p.firstPanic
	}
	return nil
}

// Submit queues f on the pool's shared injection queue and returns without
// waiting. A panic in f goes to Config.OnPanic (or is returned by Close).
// It returns ErrClosed after Close.
func (p *Pool) Submit(f func(w *Worker)) error {
	if f == nil {
		return fmt.Errorf("worksteal: Submit of a nil func")
	}
	return p.inject(&p.injector, &newSubmitted(f).job)
}

// inject pushes j onto q unless the pool refuses work, then posts it.
func (p *Pool) inject(q *queue, j *job) error {
	p.submitMu.RLock()
	if p.refusing {
		p.submitMu.RUnlock()
		return ErrClosed
	}
	q.push(j) // PushWork
	p.submitMu.RUnlock()
	p.sleep.notify()
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
	p.submitMu.RLock()
	if p.refusing {
		p.submitMu.RUnlock()
		return ErrClosed
	}
	w.inbox.push(&newSubmitted(f).job) // PushWork
	p.submitMu.RUnlock()
	// Wake the target itself if it sleeps; otherwise anyone.
	if !p.wakeWorker(w) {
		p.sleep.notify()
	}
	return nil
}

// SubmitSpread queues f on the workers' inboxes in round-robin order,
// spreading a batch of external tasks across the pool instead of funnelling
// them through one shared queue.
func (p *Pool) SubmitSpread(f func(w *Worker)) error {
	i := int(p.rr.Add(1)-1) % len(p.workers)
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
	normal := false
	defer func() {
		if !normal {
			w.pool.reportPanic(failure(recover()))
		}
	}()
	t.f(w)
	normal = true
}

func (p *Pool) reportPanic(pe *PanicError) {
	if h := p.cfg.OnPanic; h != nil {
		h(pe)
		return
	}
	p.panicMu.Lock()
	if p.firstPanic == nil {
		p.firstPanic = pe
	}
	p.panicMu.Unlock()
}

// Run runs f on a worker of p and returns its result. It blocks only the
// calling goroutine, which must not be a worker of p (inside the pool, call
// f(w) directly). A panic in f, or in any task it joins, is re-raised here as
// a *PanicError. Run returns ErrClosed after Close.
func Run[T any](p *Pool, f func(w *Worker) T) (T, error) {
	var zero T
	t := &rootTask[T]{f: f, finished: make(chan struct{})}
	t.run = t
	if err := p.inject(&p.injector, &t.job); err != nil {
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
	normal := false
	defer func() {
		if !normal {
			t.pe = failure(recover())
		}
		close(t.finished)
	}()
	t.v = t.f(w)
	normal = true
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
