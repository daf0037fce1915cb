package worksteal

import (
	"context"
	"sync/atomic"
	"testing"
	"time"
)

// spinNoPoll busy-waits for d without a poll point: no Join, no Poll, no
// Blocking, so nothing inside it can publish a latent frame of its worker.
func spinNoPoll(d time.Duration) {
	for t0 := time.Now(); time.Since(t0) < d; {
	}
}

// TestJoinFuncLazyOffersItsHalfOnlyWhenTheFirstHalfAsks: the second half
// of a JoinFuncLazy stays on its worker while the first half neither waits
// nor polls, even with the other worker idle; once the first half enters
// Blocking, another worker takes it (the first half here waits until the
// second has started, so without that the test hangs), and it reads the
// flag of NotifyBlocking set.
//
// Red with JoinFunc in place of JoinFuncLazy (the first subtest: a Join
// at the root of a job is eager, and the idle worker takes the half while
// the first half spins), and with Blocking's promote removed (the second:
// it hangs).
func TestJoinFuncLazyOffersItsHalfOnlyWhenTheFirstHalfAsks(t *testing.T) {
	p := newTestPool(t, Config{Workers: 2})
	defer watchdog(t)()
	t.Run("first half that neither waits nor polls", func(t *testing.T) {
		for round := range 10 {
			waitAsleep(p, 1) // the other worker is idle, and would take a public half
			ids, err := Run(p, func(w *Worker) [2]int {
				a, b := JoinFuncLazy(w, func(w *Worker, _ struct{}) int {
					spinNoPoll(2 * time.Millisecond)
					return w.ID()
				}, struct{}{}, func(w *Worker, _ struct{}) int { return w.ID() }, struct{}{})
				return [2]int{a, b}
			})
			if err != nil {
				t.Fatal(err)
			}
			if ids[0] != ids[1] {
				t.Fatalf("round %d: the second half ran on worker %d, the first on %d; want both on one worker (nothing offered the half)", round, ids[1], ids[0])
			}
		}
	})
	t.Run("first half that waits for the second", func(t *testing.T) {
		for round := range 10 {
			var blocked atomic.Bool
			started := make(chan struct{})
			sawFlag, err := Run(p, func(w *Worker) bool {
				prev := w.NotifyBlocking(&blocked)
				defer w.NotifyBlocking(prev)
				_, saw := JoinFuncLazy(w, func(w *Worker, _ struct{}) struct{} {
					w.Blocking(func() { <-started })
					return struct{}{}
				}, struct{}{}, func(w *Worker, _ struct{}) bool {
					close(started)
					return blocked.Load()
				}, struct{}{})
				return saw
			})
			if err != nil {
				t.Fatal(err)
			}
			if !sawFlag {
				t.Fatalf("round %d: the worker that took the second half read the NotifyBlocking flag false; Blocking sets it before it publishes the half", round)
			}
		}
	})
}

// TestNotifyBlockingNestsAndStaysWithItsTask: Blocking sets the flag that
// NotifyBlocking installed, the previous flag comes back for restoring,
// and a task that the worker runs while it waits inside the flagged task
// (here: a Scope's task, which the pool's only worker runs itself in the
// Scope's wait) does not set the flag with its own Blocking.
//
// Red with execute's reset of the flag removed (the third check).
func TestNotifyBlockingNestsAndStaysWithItsTask(t *testing.T) {
	p := newTestPool(t, Config{Workers: 1})
	defer watchdog(t)()
	p.Do(func(w *Worker) {
		var outer, inner atomic.Bool
		if prev := w.NotifyBlocking(&outer); prev != nil {
			t.Errorf("a task's first NotifyBlocking returned %p; want nil", prev)
		}
		if prev := w.NotifyBlocking(&inner); prev != &outer {
			t.Errorf("NotifyBlocking returned %p; want the flag set before (%p)", prev, &outer)
		}
		w.Blocking(func() {})
		if !inner.Load() || outer.Load() {
			t.Errorf("after Blocking: inner %v, outer %v; want true, false (only the flag installed last)", inner.Load(), outer.Load())
		}
		w.NotifyBlocking(&outer)
		_ = w.Scope(context.Background(), func(w *Worker, s *Scope) error {
			s.Spawn(w, func(w *Worker) { w.Blocking(func() {}) })
			return nil
		})
		if outer.Load() {
			t.Errorf("a task run inside the flagged task's wait set its flag with its own Blocking")
		}
		w.NotifyBlocking(nil)
		w.Blocking(func() {})
		if outer.Load() {
			t.Errorf("Blocking set a flag after NotifyBlocking(nil)")
		}
	})
}
