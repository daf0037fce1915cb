package worksteal

import (
	"context"
	"strings"
	"testing"
)

// panicMessage runs f and returns the text of its panic ("" if none),
// looking through a *PanicError.
func panicMessage(f func()) (msg string) {
	defer func() {
		r := recover()
		if pe, ok := r.(*PanicError); ok {
			r = pe.Value
		}
		if r != nil {
			msg, _ = r.(string)
			if msg == "" {
				msg = "non-string panic"
			}
		}
	}()
	f()
	return ""
}

// A Run (or Pool.Scope, Profile) inside a task fails with a message that
// says what to do — on every pool size, though it only deadlocks on one
// worker — and works inside Blocking, which compensates for the wait.
func TestNestedRunIsReported(t *testing.T) {
	defer watchdog(t)()
	for _, workers := range []int{1, 2} {
		p := newTestPool(t, Config{Workers: workers})
		nested := map[string]func(){
			"Run":        func() { Run(p, func(*Worker) int { return 1 }) },
			"Pool.Scope": func() { p.Scope(context.Background(), func(*Worker, *Scope) error { return nil }) },
			"Profile":    func() { Profile(p, func(*Worker) int { return 1 }) },
			"Pool.Do":    func() { p.Do(func(*Worker) {}) },
			"Pool.DoErr": func() { p.DoErr(func(*Worker) error { return nil }) },
		}
		for name, call := range nested {
			msg := panicMessage(func() { Run(p, func(*Worker) int { call(); return 0 }) })
			if !strings.Contains(msg, "called from inside a task") || !strings.Contains(msg, "task's *Worker") {
				t.Errorf("workers=%d: nested %s panicked with %q; want the nested-Run message", workers, name, msg)
			}
		}
		got, err := Run(p, func(w *Worker) int {
			var v int
			w.Blocking(func() { v, _ = Run(p, func(*Worker) int { return 7 }) })
			return v
		})
		if err != nil || got != 7 {
			t.Errorf("workers=%d: Run inside Blocking = %d, %v; want 7", workers, got, err)
		}
	}
}

// A fork through a nil *Worker says where the handle comes from.
func TestNilWorkerIsReported(t *testing.T) {
	p := newTestPool(t, Config{Workers: 1})
	var s *Scope
	p.Scope(context.Background(), func(w *Worker, sc *Scope) error { s = sc; return nil })
	calls := map[string]func(){
		"Join":       func() { Join(nil, func(*Worker) int { return 1 }, func(*Worker) int { return 2 }) },
		"JoinFunc":   func() { JoinFunc(nil, func(*Worker, int) int { return 1 }, 0, func(*Worker, int) int { return 2 }, 0) },
		"Scope":      func() { (*Worker)(nil).Scope(context.Background(), func(*Worker, *Scope) error { return nil }) },
		"Spawn":      func() { s.Spawn(nil, func(*Worker) {}) },
		"SpawnValue": func() { SpawnValue(s, nil, func(*Worker) int { return 1 }) },
		"Blocking":   func() { (*Worker)(nil).Blocking(func() {}) },
		"Poll":       func() { (*Worker)(nil).Poll() },
	}
	for name, call := range calls {
		if msg := panicMessage(call); msg != errNilWorker {
			t.Errorf("%s(nil): panic %q; want %q", name, msg, errNilWorker)
		}
	}
}
