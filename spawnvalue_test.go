package worksteal

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
)

// TestSpawnValueWaitReturnsEachResult: SpawnValue: Wait returns each result.
func TestSpawnValueWaitReturnsEachResult(t *testing.T) {
	defer watchdog(t)()
	ctx := context.Background()
	p := newTestPool(t, Config{Workers: 3})
	err := p.Scope(ctx, func(w *Worker, s *Scope) error {
		futures := make([]*Future[int], 20)
		for i := range futures {
			futures[i] = SpawnValue(s, w, func(w *Worker) int { return fibJoin(w, i) })
		}
		label := SpawnValue(s, w, func(*Worker) string { return "done" })
		for i := len(futures) - 1; i >= 0; i-- {
			if got, want := futures[i].Wait(w), fibSeq(i); got != want {
				return fmt.Errorf("future %d: Wait = %d; want %d", i, got, want)
			}
		}
		if got := label.Wait(w); got != "done" {
			return fmt.Errorf("string future: Wait = %q", got)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestSpawnValueWaitOnStolenTask: SpawnValue: Wait on a task that was stolen.
func TestSpawnValueWaitOnStolenTask(t *testing.T) {
	defer watchdog(t)()
	ctx := context.Background()
	p := newTestPool(t, Config{Workers: 2})
	for rep := range 5 {
		var waiter, runner int
		var got int
		err := p.Scope(ctx, func(w *Worker, s *Scope) error {
			started, release := make(chan struct{}), make(chan struct{})
			var fu *Future[int]
			fu = SpawnValue(s, w, func(w *Worker) int {
				runner = w.ID()
				close(started)
				<-release
				for fu.finished.state.Load() != latchSleeping { // the waiter sleeps in Wait
					runtime.Gosched()
				}
				return 42
			})
			w.Blocking(func() { <-started }) // another worker (or a spare) took it
			waiter = w.ID()
			if _, ok := fu.Get(); ok {
				return errors.New("Get reported the task finished while it waits for release")
			}
			close(release)
			got = fu.Wait(w)
			return nil
		})
		if err != nil {
			t.Fatalf("rep %d: %v", rep, err)
		}
		if got != 42 {
			t.Errorf("rep %d: Wait = %d; want 42", rep, got)
		}
		if waiter == runner {
			t.Errorf("rep %d: the task ran on the waiting worker %d; want it stolen", rep, waiter)
		}
	}
}

// TestSpawnValueWaitFromAnotherTask: SpawnValue: Wait from another task.
func TestSpawnValueWaitFromAnotherTask(t *testing.T) {
	defer watchdog(t)()
	ctx := context.Background()
	p := newTestPool(t, Config{Workers: 2})
	var got atomic.Int64
	err := p.Scope(ctx, func(w *Worker, s *Scope) error {
		fu := SpawnValue(s, w, func(w *Worker) int { return fibJoin(w, 15) })
		s.Spawn(w, func(w *Worker) { got.Store(int64(fu.Wait(w))) })
		return nil
	})
	if err != nil || got.Load() != 610 {
		t.Fatalf("Scope = %v, Wait = %d; want nil, 610", err, got.Load())
	}
}

// TestSpawnValueGetBeforeAndAfter: SpawnValue: Get before and after.
func TestSpawnValueGetBeforeAndAfter(t *testing.T) {
	defer watchdog(t)()
	ctx := context.Background()
	// One worker: the task waits in the deque while the body runs.
	p := newTestPool(t, Config{Workers: 1})
	var fu *Future[string]
	var before bool
	err := p.Scope(ctx, func(w *Worker, s *Scope) error {
		fu = SpawnValue(s, w, func(*Worker) string { return "x" })
		_, before = fu.Get()
		return nil
	})
	if err != nil || before {
		t.Fatalf("Scope = %v, Get before the task ran reported %v; want nil, false", err, before)
	}
	if v, ok := fu.Get(); v != "x" || !ok {
		t.Fatalf("Get after Scope = %q, %v; want \"x\", true", v, ok)
	}
}

// TestSpawnValueWaitRepanicsAndScopeToo: SpawnValue: Wait re-panics and Scope re-panics too.
func TestSpawnValueWaitRepanicsAndScopeToo(t *testing.T) {
	defer watchdog(t)()
	ctx := context.Background()
	p := newTestPool(t, Config{Workers: 2})
	var fromWait any
	r := catchPanic(func() {
		p.Scope(ctx, func(w *Worker, s *Scope) error {
			fu := SpawnValue(s, w, func(w *Worker) int { scopeTaskPanics(w, "future"); return 0 })
			fromWait = catchPanic(func() { fu.Wait(w) })
			return nil // the body swallowed the panic; the scope still has it
		})
	})
	pw, ok1 := fromWait.(*PanicError)
	ps, ok2 := r.(*PanicError)
	if !ok1 || !ok2 || pw.Value != "future" || pw != ps {
		t.Fatalf("Wait panicked with %v, Scope with %v; want the same *PanicError{future}", fromWait, r)
	}
}

// TestSpawnValueWaitOnSkippedTaskReturnsZero: SpawnValue: Wait on a skipped task returns the zero value.
func TestSpawnValueWaitOnSkippedTaskReturnsZero(t *testing.T) {
	defer watchdog(t)()
	ctx := context.Background()
	p := newTestPool(t, Config{Workers: 2})
	parent, cancel := context.WithCancel(ctx)
	var got int
	err := p.Scope(parent, func(w *Worker, s *Scope) error {
		cancel()
		got = SpawnValue(s, w, func(*Worker) int { return 7 }).Wait(w)
		return nil
	})
	if !errors.Is(err, context.Canceled) || got != 0 {
		t.Fatalf("Scope = %v, Wait = %d; want context.Canceled, 0", err, got)
	}
}
