package worksteal

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
)

// TestScopeTaskPanicRepanicsAfterSiblings: panic in a task re-panics after siblings finished.
func TestScopeTaskPanicRepanicsAfterSiblings(t *testing.T) {
	defer watchdog(t)()
	ctx := context.Background()
	p := newTestPool(t, Config{Workers: 2})
	for rep := range 5 {
		var siblingDone atomic.Bool
		r := catchPanic(func() {
			p.Scope(ctx, func(w *Worker, s *Scope) error {
				started := make(chan struct{})
				s.Spawn(w, func(*Worker) {
					close(started)
					for s.panic.Load() == nil { // still running when the panic happens
						runtime.Gosched()
					}
					siblingDone.Store(true)
				})
				w.Blocking(func() { <-started })
				s.Spawn(w, func(w *Worker) {
					scopeTaskPanics(w, "task")
				})
				return nil
			})
		})
		pe, ok := r.(*PanicError)
		if !ok {
			t.Fatalf("rep %d: Scope panicked with %T %v; want *PanicError", rep, r, r)
		}
		if pe.Value != "task" {
			t.Errorf("rep %d: PanicError.Value = %v; want \"task\"", rep, pe.Value)
		}
		if !strings.Contains(string(pe.Stack), "scopeTaskPanics") {
			t.Errorf("rep %d: stack lacks the panicking function scopeTaskPanics:\n%s", rep, pe.Stack)
		}
		if !siblingDone.Load() {
			t.Errorf("rep %d: Scope re-panicked before the running sibling finished", rep)
		}
	}
}

// TestScopeBodyPanicRepanicsAfterStartedTasks: panic in the body re-panics after started tasks finished.
func TestScopeBodyPanicRepanicsAfterStartedTasks(t *testing.T) {
	defer watchdog(t)()
	ctx := context.Background()
	p := newTestPool(t, Config{Workers: 2})
	var siblingDone atomic.Bool
	r := catchPanic(func() {
		p.Scope(ctx, func(w *Worker, s *Scope) error {
			started := make(chan struct{})
			s.Spawn(w, func(*Worker) {
				close(started)
				for s.panic.Load() == nil { // still running when the body panics
					runtime.Gosched()
				}
				siblingDone.Store(true)
			})
			w.Blocking(func() { <-started })
			scopeBodyPanics(errPanic{"body"})
			return nil
		})
	})
	pe, ok := r.(*PanicError)
	if !ok {
		t.Fatalf("Scope panicked with %T %v; want *PanicError", r, r)
	}
	var ep errPanic
	if !errors.As(pe, &ep) || ep.s != "body" {
		t.Errorf("PanicError.Value = %v; want errPanic{body}", pe.Value)
	}
	if !strings.Contains(string(pe.Stack), "scopeBodyPanics") {
		t.Errorf("stack lacks the panicking function scopeBodyPanics:\n%s", pe.Stack)
	}
	if !siblingDone.Load() {
		t.Errorf("Scope re-panicked before the running task finished")
	}
}

// TestScopePanicWinsOverError: a panic wins over an error.
func TestScopePanicWinsOverError(t *testing.T) {
	defer watchdog(t)()
	ctx := context.Background()
	p := newTestPool(t, Config{Workers: 2})
	r := catchPanic(func() {
		p.Scope(ctx, func(w *Worker, s *Scope) error {
			pStarted, eDone := make(chan struct{}), make(chan struct{})
			s.Spawn(w, func(w *Worker) {
				close(pStarted)
				w.Blocking(func() { <-eDone })
				panic("p")
			})
			s.Go(w, func(w *Worker) error {
				defer close(eDone)
				w.Blocking(func() { <-pStarted })
				return errors.New("e")
			})
			return nil
		})
	})
	if pe, ok := r.(*PanicError); !ok || pe.Value != "p" {
		t.Fatalf("Scope panicked with %v; want *PanicError{p} although a task failed first", r)
	}
}

// TestScopeNestedPanicReachesCallerOnce: a nested scope's panic reaches the outer caller once.
func TestScopeNestedPanicReachesCallerOnce(t *testing.T) {
	defer watchdog(t)()
	ctx := context.Background()
	p := newTestPool(t, Config{Workers: 2})
	r := catchPanic(func() {
		p.Scope(ctx, func(w *Worker, s *Scope) error {
			s.Spawn(w, func(w *Worker) {
				w.Scope(ctx, func(w *Worker, s *Scope) error {
					s.Spawn(w, func(w *Worker) { scopeTaskPanics(w, "inner") })
					return nil
				})
			})
			return nil
		})
	})
	pe, ok := r.(*PanicError)
	if !ok || pe.Value != "inner" {
		t.Fatalf("Scope panicked with %v; want *PanicError{inner}", r)
	}
	if _, nested := pe.Value.(*PanicError); nested {
		t.Errorf("PanicError wraps another PanicError; want the inner one passed up unchanged")
	}
	if !strings.Contains(string(pe.Stack), "scopeTaskPanics") {
		t.Errorf("stack lacks the original panic site:\n%s", pe.Stack)
	}
}

// scopeTaskPanics and scopeBodyPanics are named so that a test can find
// the panic site in a PanicError's stack.
func scopeTaskPanics(_ *Worker, v any) { panic(v) }

func scopeBodyPanics(v any) { panic(v) }
