package worksteal

import (
	"context"
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

// The tests in this file pin down "both halves always run to completion"
// when a worker's goroutine exits through runtime.Goexit (t.FailNow inside
// a par.For body in a test is enough) while a Join or a Scope waits on it:
// the computation is reported failed with ErrGoexit only after everything
// it started has finished, and no frame a thief still owns is reused.

// window is how long a still-running half lingers after the Goexit, so that
// a Run that returns too early is caught returning before the half ended.
// It widens a window; no assertion depends on how long anything took.
const window = 20 * time.Millisecond

// wantGoexit fails the test unless r is the *PanicError of ErrGoexit.
func wantGoexit(t *testing.T, r any) {
	t.Helper()
	if pe, ok := r.(*PanicError); !ok || pe.Value != ErrGoexit {
		t.Fatalf("the computation ended with %v; want a panic with the *PanicError of ErrGoexit", r)
	}
}

// spinUntil waits until b is set, yielding the processor.
func spinUntil(b *atomic.Bool) {
	for !b.Load() {
		runtime.Gosched()
	}
}

// spinUntilPolling is spinUntil inside a Join's first half that waits for
// its own second half to start elsewhere: it polls, so the latent half is
// offered to idle workers (PROTOCOL.md "Join").
func spinUntilPolling(w *Worker, b *atomic.Bool) {
	for !b.Load() {
		w.Poll()
		runtime.Gosched()
	}
}

// A joiner whose second half was stolen helps while it waits; the job it
// helps with (a piece of the thief's work) calls Goexit. The Join must not
// let its computation end, nor free its frame, before the thief finished
// the second half; a later computation's Joins must not see the first
// one's failure through the reused frame.
func TestGoexitWhileJoinerHelpsWaitsForStolenHalf(t *testing.T) {
	defer watchdog(t)()
	p := newTestPool(t, Config{Workers: 2})
	var bStarted, helped, bFinished atomic.Bool
	var finishedAtReturn bool
	r := catchPanic(func() {
		defer func() { finishedAtReturn = bFinished.Load() }()
		_, _ = Run(p, func(w *Worker) int {
			a, b := Join(w,
				func(w *Worker) int { spinUntilPolling(w, &bStarted); return 1 }, // so that fb is stolen
				func(w *Worker) int { // on the thief
					defer bFinished.Store(true)
					bStarted.Store(true)
					x, y := Join(w,
						func(w *Worker) int {
							spinUntilPolling(w, &helped) // its fb can only be taken by the waiting joiner
							time.Sleep(window)
							return 1
						},
						func(*Worker) int { helped.Store(true); runtime.Goexit(); return 0 })
					return x + y
				})
			return a + b
		})
	})
	wantGoexit(t, r)
	if !finishedAtReturn {
		t.Fatalf("Run returned while the stolen second half was still running")
	}
	// The thief's half ended by panicking with the Goexit of its own second
	// half; none of that may reach a later computation's Joins through the
	// reused frame (the loop outlasts the thief's half when a broken Join
	// let Run return early).
	for i, after := 0, 0; after < 100; i++ {
		if bFinished.Load() {
			after++
		}
		var got int
		r := catchPanic(func() {
			got, _ = Run(p, func(w *Worker) int {
				var started atomic.Bool
				a, b := Join(w, // the frame type of the Join above, at its depth
					func(w *Worker) int { spinUntilPolling(w, &started); return 1 }, // fb is stolen
					func(*Worker) int { started.Store(true); return 2 })
				return a + b
			})
		})
		if r != nil {
			t.Fatalf("run %d after the Goexit: an unrelated computation's Join panicked with %v", i, r)
		}
		if got != 3 {
			t.Fatalf("run %d after the Goexit: Join's halves returned %d in all; want 1 + 2", i, got)
		}
	}
}

// A joiner runs the jobs pushed above its frame before taking its second
// half back; one of them calls Goexit. The second half is still queued
// then: it must run before the computation ends (one worker: nobody else
// can take it).
func TestGoexitAboveTheFrameStillRunsTheSecondHalf(t *testing.T) {
	defer watchdog(t)()
	p := newTestPool(t, Config{Workers: 1})
	var bRan bool
	r := catchPanic(func() {
		_, _ = Run(p, func(w *Worker) int {
			_ = w.Scope(context.Background(), func(w *Worker, s *Scope) error {
				Join(w,
					func(w *Worker) int {
						s.Spawn(w, func(*Worker) { runtime.Goexit() }) // above the frame
						return 1
					},
					func(*Worker) int { bRan = true; return 2 })
				return nil
			})
			return 0
		})
	})
	wantGoexit(t, r)
	if !bRan {
		t.Fatalf("the computation ended without running the second half of its Join")
	}
	for i := range 50 {
		if got, _ := Run(p, func(w *Worker) int { return fibJoin(w, 10) }); got != 55 {
			t.Fatalf("run %d after the Goexit: fib(10) = %d; want 55", i, got)
		}
	}
}

// A Scope body calls Goexit while a task it spawned runs on another worker:
// Pool.Scope must not return before that task has finished.
func TestGoexitInScopeBodyWaitsForTasks(t *testing.T) {
	defer watchdog(t)()
	p := newTestPool(t, Config{Workers: 2})
	var started, exiting, finished atomic.Bool
	var finishedAtReturn bool
	r := catchPanic(func() {
		defer func() { finishedAtReturn = finished.Load() }()
		_ = p.Scope(context.Background(), func(w *Worker, s *Scope) error {
			s.Spawn(w, func(*Worker) {
				defer finished.Store(true)
				started.Store(true)
				spinUntil(&exiting)
				time.Sleep(window)
			})
			spinUntil(&started) // taken by the other worker
			exiting.Store(true)
			runtime.Goexit()
			return nil
		})
	})
	wantGoexit(t, r)
	if !finishedAtReturn {
		t.Fatalf("Pool.Scope returned while a task of the scope was still running")
	}
}

// A worker waiting in Worker.Scope helps with a task of the scope that
// calls Goexit while another task still runs: the Scope must wait for it.
func TestGoexitWhileScopeHelpsWaitsForTasks(t *testing.T) {
	defer watchdog(t)()
	p := newTestPool(t, Config{Workers: 2})
	var started, helped, finished atomic.Bool
	var finishedAtReturn bool
	r := catchPanic(func() {
		defer func() { finishedAtReturn = finished.Load() }()
		_, _ = Run(p, func(w *Worker) error {
			return w.Scope(context.Background(), func(w *Worker, s *Scope) error {
				s.Spawn(w, func(w *Worker) { // on the other worker
					defer finished.Store(true)
					started.Store(true)
					s.Spawn(w, func(*Worker) { helped.Store(true); runtime.Goexit() })
					spinUntil(&helped) // taken by the worker waiting in Scope
					time.Sleep(window)
				})
				spinUntil(&started)
				return nil
			})
		})
	})
	wantGoexit(t, r)
	if !finishedAtReturn {
		t.Fatalf("Run returned while a task of the scope was still running")
	}
}

// A task that calls runtime.Goexit (as t.FailNow, t.Fatal and t.SkipNow
// do) — the function of a Run, a submitted task, or a stolen Join half —
// is reported as failed (never as success), nobody waiting for it hangs,
// and the pool keeps all its workers: Goexit cannot be recovered, so the
// worker's goroutine exits and a replacement takes over the worker.
func TestGoexitInTaskIsReportedAndWorkerReplaced(t *testing.T) {
	cases := []struct {
		name    string
		workers int
		run     func(p *Pool) (panicked any, err error)
	}{
		{"Run's f calls Goexit", 1, func(p *Pool) (any, error) {
			var err error
			r := catchPanic(func() { _, err = Run(p, func(*Worker) int { runtime.Goexit(); return 1 }) })
			return r, err
		}},
		{"a submitted task calls Goexit", 1, func(p *Pool) (any, error) { // reported to OnPanic (set below)
			ran := make(chan struct{})
			if err := p.Submit(func(*Worker) { close(ran); runtime.Goexit() }); err != nil {
				return nil, err
			}
			<-ran
			return "submitted", nil // nothing to report to; the pool must survive
		}},
		{"a stolen Join half calls Goexit", 2, func(p *Pool) (any, error) {
			var err error
			r := catchPanic(func() {
				_, err = Run(p, func(w *Worker) int {
					var stolen atomic.Bool
					a, b := Join(w,
						func(w *Worker) int {
							for !stolen.Load() { // fb can only start on the other worker
								w.Poll() // fb is offered at poll points
								runtime.Gosched()
							}
							return 1
						},
						func(*Worker) int { stolen.Store(true); runtime.Goexit(); return 2 })
					return a + b
				})
			})
			return r, err
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p, err := New(Config{Workers: tc.workers, StallAfter: -1, OnPanic: func(*PanicError) {}}) // no spare in the barrier
			if err != nil {
				t.Fatal(err)
			}
			var r any
			if !within(t, func() { r, err = tc.run(p) }) {
				t.Fatalf("the call did not return before the test's deadline (its goroutine and the pool stay blocked)")
			}
			if r == nil && err == nil {
				t.Errorf("Run returned a nil error without panicking: Goexit in f looks like success")
			}
			// The pool must still have all its workers.
			var ids map[int]bool
			if !within(t, func() { ids = onEveryWorkerNoFatal(p) }) || len(ids) != tc.workers {
				t.Fatalf("after Goexit the pool no longer runs a task on each of its %d workers (got %v): a worker goroutine died", tc.workers, ids)
			}
			if !within(t, func() { err = p.Close() }) {
				t.Fatalf("Close did not return before the test's deadline")
			}
		})
	}
}
