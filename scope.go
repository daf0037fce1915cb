package worksteal

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// Scope is a group of tasks that may spawn more tasks; [Worker.Scope]
// returns when all of them have finished. Tasks are spawned through the
// worker that runs the spawning code, so they start on that worker's deque
// (where thieves find them) — pass the handle your task received.
//
// A Scope is safe for concurrent use by the scope's tasks. It must not be
// used after the Scope call that created it returned.
type Scope struct {
	ctx    context.Context
	cancel context.CancelFunc

	// pending counts the body plus every spawned task not yet finished; the
	// one that brings it to zero sets done ([S1]: its decrement is the last
	// thing it does with the scope, and done's Swap publishes all results).
	pending atomic.Int64
	done    latch

	// maxSpan and maxBSpan are the longest span and burdened span (ns) of
	// the scope's tasks when they run inside a profiled computation.
	maxSpan, maxBSpan atomic.Int64

	errOnce sync.Once
	err     error                      // first error, guarded by errOnce
	panic   atomic.Pointer[PanicError] // first panic (CAS)
	skipped atomic.Int64               // tasks skipped because ctx was done
}

// Scope runs body on w with a new Scope whose Context is derived from ctx,
// then helps run the scope's tasks until every task spawned in it (and
// transitively by them) has finished. It never blocks the worker while
// work exists.
//
// Errors: the first non-nil error returned by body or by a task started with
// [Scope.Go] cancels the scope's Context and is returned; tasks that have not
// started by then are skipped. If ctx is cancelled, unstarted tasks are
// skipped too and ctx's error is returned (unless a task error came first).
//
// Panics: a panic in body or in any task cancels the scope's Context like an
// error; once every started task has finished, Scope re-panics with the
// first panic as a *PanicError carrying the original stack.
func (w *Worker) Scope(ctx context.Context, body func(w *Worker, s *Scope) error) error {
	checkWorker(w)
	if ctx == nil {
		ctx = context.Background()
	}
	s := &Scope{}
	s.ctx, s.cancel = context.WithCancel(ctx)
	defer s.cancel()
	s.done.waiter = w
	s.pending.Store(1)
	// If the body, or a job this worker runs while it waits, calls
	// runtime.Goexit, the goroutine unwinds past the code below; the
	// deferred call still retires the body and waits for every task, so
	// the computation is not reported failed while its tasks run.
	bodyDone, waited := false, false
	defer func() {
		if !waited {
			if !bodyDone {
				s.finish()
			}
			w.helpUntilExit(&s.done)
		}
	}()
	guard(func() {
		if err := body(w, s); err != nil {
			s.setErr(err)
		}
	}, s.setPanic) // under Goexit: records ErrGoexit, which cancels the scope
	ps := w.prof
	var spanBody, bspanBody time.Duration
	if ps != nil {
		spanBody, bspanBody = ps.cut()
	}
	s.finish()
	bodyDone = true
	w.helpUntil(&s.done, nil)
	waited = true
	if ps != nil { // the scope joins its tasks: continue from the longest path
		ps.resume(max(spanBody, time.Duration(s.maxSpan.Load())), max(bspanBody, time.Duration(s.maxBSpan.Load())))
	}
	if pe := s.panic.Load(); pe != nil {
		panic(pe)
	}
	if s.err != nil {
		return s.err
	}
	if s.skipped.Load() > 0 {
		return ctx.Err()
	}
	return nil
}

// Context returns the scope's context: cancelled when the scope's first
// error or panic happens, when the parent context is done, or when Scope
// returns.
func (s *Scope) Context() context.Context { return s.ctx }

// Spawn queues f as a task of the scope on w's deque and returns at once.
// w must be the handle of the calling task. A panic in f is carried to the
// caller of Scope.
func (s *Scope) Spawn(w *Worker, f func(w *Worker)) {
	t := &scopeTask{s: s, f: f}
	t.run = t
	s.push(w, &t.job, &t.pf)
}

// Go queues f as a task of the scope, like Spawn; a non-nil error from f
// cancels the scope's Context and is returned by Scope if it is the first.
func (s *Scope) Go(w *Worker, f func(w *Worker) error) {
	t := &scopeTask{s: s, fe: f}
	t.run = t
	s.push(w, &t.job, &t.pf)
}

// push queues a task of the scope (a scopeTask or a Future) on w's deque:
// counted pending before it is visible ([S1]), profiled from this fork, and
// posted (PROTOCOL.md "Posting work").
func (s *Scope) push(w *Worker, j *job, pf *profFrame) {
	checkWorker(w)
	if w.idle.Load() != 0 {
		w.promote() // latent frames are older than the task: they go first
	}
	pf.fork(w)
	s.pending.Add(1)
	w.dq.Push(j)
	w.st.spawned++
	if w.rec != nil {
		w.rec.record(EvSpawn, -1, 0)
	}
	w.posted()
}

// runTask runs one task of the scope on w: skipped if the scope's context
// is done, measured as a stolen strand when profiled, its panic recorded
// (and passed to fail, if not nil). Then done, if not nil (a Future's
// latch), is set, and last the task retires from pending ([S1]), so a
// Future is done once its Scope returned. These are deferred calls: they
// run in that order also under runtime.Goexit.
func (s *Scope) runTask(w *Worker, pf *profFrame, body func(w *Worker), fail func(*PanicError), done *latch) {
	defer s.finish()
	if done != nil {
		defer done.set()
	}
	run := func() {
		if s.ctx.Err() != nil {
			s.skipped.Add(1)
			return
		}
		guard(func() { body(w) }, func(pe *PanicError) {
			if fail != nil {
				fail(pe)
			}
			s.setPanic(pe)
		})
	}
	if pf.prof != nil {
		defer s.joinSpan(pf)
		pf.runStolen(w, run)
		return
	}
	run()
}

func (s *Scope) setErr(err error) {
	s.errOnce.Do(func() { s.err = err })
	s.cancel()
}

func (s *Scope) setPanic(pe *PanicError) {
	s.panic.CompareAndSwap(nil, pe)
	s.cancel()
}

// finish retires one pending unit (the body or a task).
func (s *Scope) finish() {
	if s.pending.Add(-1) == 0 { // [S1]
		s.done.set()
	}
}

// scopeTask is one spawned task.
type scopeTask struct {
	job
	s  *Scope
	f  func(w *Worker)
	fe func(w *Worker) error
	pf profFrame
}

func (t *scopeTask) runJob(w *Worker) {
	t.s.runTask(w, &t.pf, t.body, nil, nil)
}

func (t *scopeTask) body(w *Worker) {
	if t.fe != nil {
		if err := t.fe(w); err != nil {
			t.s.setErr(err)
		}
		return
	}
	t.f(w)
}

// joinSpan folds a finished profiled task's path lengths into the scope's.
func (s *Scope) joinSpan(pf *profFrame) {
	atomicMax(&s.maxSpan, int64(pf.sB))
	atomicMax(&s.maxBSpan, int64(pf.bB))
}

func atomicMax(a *atomic.Int64, v int64) {
	for {
		old := a.Load()
		if v <= old || a.CompareAndSwap(old, v) {
			return
		}
	}
}

// Future is the result of a task started with [SpawnValue].
type Future[T any] struct {
	job
	f  func(w *Worker) T
	s  *Scope
	v  T
	pe *PanicError
	// finished is set once v or pe is final (or the task was skipped). It
	// is not the embedded job.done, which only Join frames use.
	finished latch
	pf       profFrame
}

// SpawnValue queues f as a task of scope s, like [Scope.Spawn], and returns
// a Future for its result. A panic in f is carried both to Wait (if called)
// and to the caller of Scope.
func SpawnValue[T any](s *Scope, w *Worker, f func(w *Worker) T) *Future[T] {
	fu := &Future[T]{f: f, s: s}
	fu.run = fu
	s.push(w, &fu.job, &fu.pf)
	return fu
}

func (fu *Future[T]) runJob(w *Worker) {
	fu.s.runTask(w, &fu.pf, func(w *Worker) { fu.v = fu.f(w) }, func(pe *PanicError) { fu.pe = pe }, &fu.finished)
}

// Wait helps run other work on w until the task has finished, then returns
// its result. If the task panicked, Wait re-panics with its *PanicError; if
// it was skipped because the scope was cancelled, Wait returns the zero value.
// Only one worker may Wait on a Future.
func (fu *Future[T]) Wait(w *Worker) T {
	checkWorker(w)
	if !fu.finished.isSet() {
		fu.finished.waiter = w // [L2] written before the CAS to latchSleeping in helpUntil
		w.helpUntil(&fu.finished, nil)
	}
	if fu.pe != nil {
		panic(fu.pe)
	}
	return fu.v
}

// Get returns the result and true if the task has finished (for example
// after its Scope returned), or the zero value and false.
func (fu *Future[T]) Get() (T, bool) {
	if !fu.finished.isSet() {
		var zero T
		return zero, false
	}
	return fu.v, true
}
