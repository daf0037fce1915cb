package worksteal

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// TestOnPanicReceivesSubmittedPanics: OnPanic receives submitted panics.
func TestOnPanicReceivesSubmittedPanics(t *testing.T) {
	defer watchdog(t)()
	var mu sync.Mutex
	got := map[any]*PanicError{}
	var handled sync.WaitGroup
	const k = 10
	handled.Add(k)
	p, err := New(Config{Workers: 2, OnPanic: func(pe *PanicError) {
		mu.Lock()
		got[pe.Value] = pe
		mu.Unlock()
		handled.Done()
	}})
	if err != nil {
		t.Fatal(err)
	}
	for i := range k {
		mustSubmit(t, p, func(*Worker) { submittedTaskPanics(i) })
	}
	handled.Wait()
	if err := p.Close(); err != nil {
		t.Errorf("Close = %v; want nil: OnPanic took every panic", err)
	}
	for i := range k {
		pe := got[i]
		if pe == nil {
			t.Errorf("OnPanic never received panic %d", i)
			continue
		}
		if !strings.Contains(string(pe.Stack), "submittedTaskPanics") {
			t.Errorf("panic %d: stack lacks the panicking function:\n%s", i, pe.Stack)
		}
	}
}

// TestCloseReturnsFirstPanicWithoutOnPanic: without OnPanic Close returns the first panic.
func TestCloseReturnsFirstPanicWithoutOnPanic(t *testing.T) {
	defer watchdog(t)()
	// One worker takes the injector in FIFO order: "first" panics first.
	p, err := New(Config{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	var logged bytes.Buffer
	log.SetOutput(&logged)
	defer log.SetOutput(os.Stderr)
	mustSubmit(t, p, func(*Worker) { submittedTaskPanics("first") })
	mustSubmit(t, p, func(*Worker) { submittedTaskPanics("second") })
	err = p.Close()
	var pe *PanicError
	if !errors.As(err, &pe) || pe.Value != "first" {
		t.Fatalf("Close = %v; want *PanicError with Value \"first\"", err)
	}
	// Each panic is also logged, with its stack, for callers that drop
	// Close's result.
	for _, want := range []string{"panicked (set Config.OnPanic to handle it): worksteal: task panicked: first", "task panicked: second", "submittedTaskPanics"} {
		if !strings.Contains(logged.String(), want) {
			t.Errorf("log lacks %q:\n%s", want, logged.String())
		}
	}
	if err := p.Close(); err != nil {
		t.Errorf("second Close = %v; want nil", err)
	}
}

// TestPanicNeverKillsWorker: a panic never kills a worker.
func TestPanicNeverKillsWorker(t *testing.T) {
	defer watchdog(t)()
	const workers = 4
	var handled atomic.Int64
	// StallAfter < 0: the barrier below blocks every worker outside
	// Blocking, and the monitor would start a spare to stand in for one.
	p := newTestPool(t, Config{Workers: workers, StallAfter: -1, OnPanic: func(*PanicError) { handled.Add(1) }})
	// Panics by every route: submitted tasks, Run, Join halves, scope tasks.
	const k = 50
	for i := range k {
		mustSubmit(t, p, func(*Worker) { panic(i) })
	}
	for range k {
		catchPanic(func() {
			Run(p, func(w *Worker) int {
				a, b := Join(w,
					func(w *Worker) int { return fibJoin(w, 8) },
					func(*Worker) int { panic("b") })
				return a + b
			})
		})
		catchPanic(func() {
			p.Scope(context.Background(), func(w *Worker, s *Scope) error {
				s.Spawn(w, func(*Worker) { panic("task") })
				return nil
			})
		})
	}
	waitUntil(t, "OnPanic took every submitted panic", func() bool { return handled.Load() == k })
	// Now all workers must be alive: a barrier that needs one task on
	// each of them at once (no Blocking, so no spare can stand in).
	ids := onEveryWorker(t, p)
	for id := range workers {
		if !ids[id] {
			t.Errorf("worker %d ran none of the barrier tasks (ids %v)", id, ids)
		}
	}
	if got, _ := Run(p, func(w *Worker) int { return fibJoin(w, 15) }); got != 610 {
		t.Errorf("after panics fib(15) = %d; want 610", got)
	}
}

// TestRunReraisesPanicsAsPanicError: Run re-raises panics as *PanicError.
func TestRunReraisesPanicsAsPanicError(t *testing.T) {
	defer watchdog(t)()
	p := newTestPool(t, Config{Workers: 2})
	sentinel := fs.ErrNotExist
	cases := []struct {
		name string
		f    func(w *Worker) int
		site string // function name the stack must show
		is   error  // errors.Is target, if any
	}{
		{"panic in f", func(w *Worker) int { runPanics("boom"); return 0 }, "runPanics", nil},
		{"panic with an error value", func(w *Worker) int { runPanics(sentinel); return 0 }, "runPanics", sentinel},
		{"panic with a wrapped error", func(w *Worker) int { runPanics(fmt.Errorf("open: %w", sentinel)); return 0 }, "runPanics", sentinel},
		{"panic in a joined half", func(w *Worker) int {
			a, b := Join(w,
				func(w *Worker) int { return fibJoin(w, 10) },
				func(w *Worker) int { runPanics("half"); return 0 })
			return a + b
		}, "runPanics", nil},
		{"panic in a nested scope task", func(w *Worker) int {
			w.Scope(context.Background(), func(w *Worker, s *Scope) error {
				s.Spawn(w, func(w *Worker) { runPanics(&customErr{code: 7}) })
				return nil
			})
			return 0
		}, "runPanics", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := catchPanic(func() { Run(p, tc.f) })
			pe, ok := r.(*PanicError)
			if !ok {
				t.Fatalf("Run panicked with %T %v; want *PanicError", r, r)
			}
			if !strings.Contains(string(pe.Stack), tc.site) {
				t.Errorf("stack lacks %s:\n%s", tc.site, pe.Stack)
			}
			if !strings.Contains(pe.Error(), fmt.Sprint(pe.Value)) {
				t.Errorf("Error() = %q; want it to show the value %v", pe.Error(), pe.Value)
			}
			if tc.is != nil && !errors.Is(pe, tc.is) {
				t.Errorf("errors.Is(%v, %v) = false; want true through Unwrap", pe.Value, tc.is)
			}
			if _, isErr := pe.Value.(error); !isErr && pe.Unwrap() != nil {
				t.Errorf("Unwrap() = %v for a non-error value; want nil", pe.Unwrap())
			}
		})
	}
	t.Run("errors.As finds a custom error type", func(t *testing.T) {
		r := catchPanic(func() { Run(p, cases[4].f) })
		var ce *customErr
		if err, _ := r.(error); !errors.As(err, &ce) || ce.code != 7 {
			t.Fatalf("errors.As(%v, *customErr) failed; want code 7", r)
		}
	})
	// The pool survives all of it.
	if got, _ := Run(p, func(w *Worker) int { return fibJoin(w, 12) }); got != 144 {
		t.Errorf("after panics fib(12) = %d; want 144", got)
	}
}

type customErr struct{ code int }

func (e *customErr) Error() string { return fmt.Sprintf("custom error %d", e.code) }

// runPanics and submittedTaskPanics are named so that a test can find the
// panic site in a PanicError's stack.
func runPanics(v any) { panic(v) }

func submittedTaskPanics(v any) { panic(v) }

// catchPanic runs f and returns what it panicked with, or nil.
func catchPanic(f func()) (r any) {
	defer func() { r = recover() }()
	f()
	return nil
}
