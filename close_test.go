package worksteal

import (
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
)

// TestCloseKeepsWorkersForComputationsInFlight: a computation that is
// running when Close begins still has the whole pool. The Run below waits
// until Close has begun and the other worker has gone idle (parked, or
// exited), then forks; its first half waits until the second half has
// started — on another worker — or until the other worker's goroutine has
// exited. Only the first is allowed: a Close that let workers leave while
// a computation was in flight would turn the rest of it serial.
func TestCloseKeepsWorkersForComputationsInFlight(t *testing.T) {
	defer watchdog(t)()
	for rep := 0; rep < 20; rep++ {
		p, err := New(Config{Workers: 2})
		if err != nil {
			t.Fatal(err)
		}
		running := make(chan struct{})
		type result struct{ a, b int }
		res := make(chan result, 1)
		go func() {
			r, _ := Run(p, func(w *Worker) result {
				close(running)
				for !p.closed.Load() {
					runtime.Gosched()
				}
				for {
					if _, searching := counts(p.sleep.state.Load()); searching == 0 {
						break // the other worker parked or left
					}
					runtime.Gosched()
				}
				var bOn atomic.Int32
				bOn.Store(-1)
				a, b := Join(w, func(w *Worker) int {
					for bOn.Load() < 0 && p.live.Load() == 2 {
						runtime.Gosched()
					}
					return w.ID()
				}, func(w *Worker) int { bOn.Store(int32(w.ID())); return w.ID() })
				return result{a, b}
			})
			res <- r
		}()
		<-running
		if err := p.Close(); err != nil {
			t.Fatal(err)
		}
		r := <-res
		if r.a == r.b {
			t.Fatalf("rep %d: after Close began, both halves ran on worker %d: the other worker left while the computation was in flight", rep, r.a)
		}
		if n := p.live.Load(); n != 0 {
			t.Fatalf("after Close %d workers still live", n)
		}
	}
}

// Close called from a task would wait for that task to finish: it is
// reported by a panic that says what to do, from a task of the pool
// itself (inside Blocking too, which does not help here), and from a task
// of another pool outside Blocking (like a nested Run). Inside Blocking,
// a task may close another pool. The pool stays usable after the misuse.
func TestCloseInsideTaskIsReported(t *testing.T) {
	defer watchdog(t)()
	p := newTestPool(t, Config{Workers: 2})
	other, err := New(Config{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	calls := []struct {
		name string
		call func(w *Worker)
		want string
	}{
		{"own pool", func(*Worker) { p.Close() }, "from a task of the same pool"},
		{"own pool, inside Blocking", func(w *Worker) { w.Blocking(func() { p.Close() }) }, "from a task of the same pool"},
		{"another pool", func(*Worker) { other.Close() }, "called from inside a task"},
	}
	for _, c := range calls {
		var msg string
		if !within(t, func() { msg = panicMessage(func() { Run(p, func(w *Worker) int { c.call(w); return 0 }) }) }) {
			dieHung(c.name + ": Close inside a task did not return before the test's deadline (it waits for itself)")
		}
		if !strings.Contains(msg, c.want) || !strings.Contains(msg, "Close") {
			t.Errorf("%s: Close inside a task panicked with %q; want a message containing %q", c.name, msg, c.want)
		}
	}
	// Inside Blocking, closing another pool is fine.
	if _, err := Run(p, func(w *Worker) int {
		w.Blocking(func() {
			if err := other.Close(); err != nil {
				t.Errorf("other.Close inside Blocking: %v", err)
			}
		})
		return 0
	}); err != nil {
		t.Fatalf("Run: %v", err)
	}
	if _, err := Run(other, func(*Worker) int { return 0 }); err != ErrClosed {
		t.Errorf("Run on the pool closed inside Blocking: %v; want ErrClosed", err)
	}
	if got, err := Run(p, func(w *Worker) int { return fibJoin(w, 10) }); err != nil || got != 55 {
		t.Errorf("after the misuse Run = %d, %v; want 55 (the pool must still work)", got, err)
	}
}
