package worksteal

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"sync"
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

// TestEveryEntryPointReturnsErrClosedAfterClose: every entry point returns ErrClosed after Close.
func TestEveryEntryPointReturnsErrClosedAfterClose(t *testing.T) {
	defer watchdog(t)()
	p, err := New(Config{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Close(); err != nil {
		t.Fatalf("Close = %v", err)
	}
	noop := func(*Worker) {}
	if _, err := Run(p, func(*Worker) int { t.Error("Run after Close ran f"); return 0 }); !errors.Is(err, ErrClosed) {
		t.Errorf("Run after Close = %v; want ErrClosed", err)
	}
	err = p.Scope(context.Background(), func(*Worker, *Scope) error { t.Error("Scope after Close ran body"); return nil })
	if !errors.Is(err, ErrClosed) {
		t.Errorf("Scope after Close = %v; want ErrClosed", err)
	}
	if err := p.Submit(noop); !errors.Is(err, ErrClosed) {
		t.Errorf("Submit after Close = %v; want ErrClosed", err)
	}
	if err := p.SubmitTo(1, noop); !errors.Is(err, ErrClosed) {
		t.Errorf("SubmitTo after Close = %v; want ErrClosed", err)
	}
	if err := p.SubmitSpread(noop); !errors.Is(err, ErrClosed) {
		t.Errorf("SubmitSpread after Close = %v; want ErrClosed", err)
	}
}

// TestCloseWaitsForQueuedWorkAndWhatItSpawns: Close waits for queued work and what it spawns.
func TestCloseWaitsForQueuedWorkAndWhatItSpawns(t *testing.T) {
	defer watchdog(t)()
	n := 10000
	if testing.Short() {
		n = 2000
	}
	p, err := New(Config{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	var ran, spawned atomic.Int64
	for i := range n {
		mustSubmit(t, p, func(w *Worker) {
			ran.Add(1)
			if i%100 == 0 { // some tasks fork more work
				_ = w.Scope(context.Background(), func(w *Worker, s *Scope) error {
					for range 10 {
						s.Spawn(w, func(w *Worker) { fibJoin(w, 8); spawned.Add(1) })
					}
					return nil
				})
			}
		})
	}
	if err := p.Close(); err != nil {
		t.Fatalf("Close = %v", err)
	}
	if got := ran.Load(); got != int64(n) {
		t.Errorf("after Close %d of %d submitted tasks ran", got, n)
	}
	if got, want := spawned.Load(), int64(n/100*10); got != want {
		t.Errorf("after Close %d of %d spawned tasks ran", got, want)
	}
	if err := p.Close(); err != nil {
		t.Errorf("second Close = %v; want nil", err)
	}
}

// TestCloseFromManyGoroutines: Close from many goroutines.
func TestCloseFromManyGoroutines(t *testing.T) {
	defer watchdog(t)()
	p, err := New(Config{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	const n = 1000
	var ran atomic.Int64
	for range n {
		mustSubmit(t, p, func(*Worker) { ran.Add(1) })
	}
	var closers sync.WaitGroup
	for g := range 16 {
		closers.Add(1)
		go func() {
			defer closers.Done()
			if err := p.Close(); err != nil {
				t.Errorf("Close (goroutine %d) = %v", g, err)
			}
			// Whichever Close returns, the pool has drained.
			if got := ran.Load(); got != n {
				t.Errorf("Close (goroutine %d) returned after %d of %d tasks ran", g, got, n)
			}
		}()
	}
	closers.Wait()
}

// A submission that races Close either returns ErrClosed or its task runs
// before Close returns: Submit, SubmitTo and Run never accept a task that
// nobody will run. The test stops the call exactly between its acceptance
// and its push (it holds the queue's lock, and sees the call counted in
// flight), starts Close, waits until Close is blocked behind the pending
// push (a writer waits on submitMu: TryRLock fails), then lets the push
// finish.
func TestSubmitRacingCloseNeverStrandsTask(t *testing.T) {
	defer watchdog(t)()
	cases := []struct {
		name  string
		queue func(p *Pool) *queue
		call  func(p *Pool, ran *atomic.Bool) error
	}{
		{"Submit", func(p *Pool) *queue { return &p.injector },
			func(p *Pool, ran *atomic.Bool) error { return p.Submit(func(*Worker) { ran.Store(true) }) }},
		{"SubmitTo", func(p *Pool) *queue { return &p.workers[1].inbox },
			func(p *Pool, ran *atomic.Bool) error { return p.SubmitTo(1, func(*Worker) { ran.Store(true) }) }},
		{"Run", func(p *Pool) *queue { return &p.injector },
			func(p *Pool, ran *atomic.Bool) error {
				_, err := Run(p, func(*Worker) int { ran.Store(true); return 0 })
				return err
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p, err := New(Config{Workers: 2})
			if err != nil {
				t.Fatal(err)
			}
			q := tc.queue(p)
			q.mu.Lock()
			var ran atomic.Bool
			called := make(chan error, 1)
			go func() { called <- tc.call(p, &ran) }()
			for p.inflight.Load() == 0 { // accepted, now waiting to push
				runtime.Gosched()
			}
			closed := make(chan error, 1)
			go func() { closed <- p.Close() }()
			for p.submitMu.TryRLock() { // until Close waits for the pending push
				p.submitMu.RUnlock()
				runtime.Gosched()
			}
			q.mu.Unlock()
			if err := <-closed; err != nil {
				t.Fatalf("Close = %v", err)
			}
			if !ran.Load() {
				t.Errorf("Close returned before the task %s accepted had run", tc.name)
			}
			if err := <-called; err != nil {
				t.Errorf("%s = %v; want nil: it was accepted before Close", tc.name, err)
			}
		})
	}
}
