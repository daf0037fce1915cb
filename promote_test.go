package worksteal

import (
	"context"
	"sync/atomic"
	"testing"
)

// The two places besides poll points that make latent Join halves public
// (PROTOCOL.md "Join"): a worker that starts waiting (helpUntil) and a
// worker that enters Blocking. Each test holds the other worker busy while
// the owner forks, so the Join's own poll finds nobody idle and the half
// stays latent; then frees it, and has the owner wait, without polling,
// for something only the latent half does. Only the promotion at the start
// of the wait can hand the half over.

// latentFork runs, on a fresh 2-worker pool, a Join whose first half calls
// wait(fbDone, giveUp) while the other worker, held busy until release is
// called, goes idle. It returns whether fb ran while the first half
// waited (not only after giveUp, the test's deadline, released it).
func latentFork(t *testing.T, wait func(w *Worker, release func(), fbDone, giveUp <-chan struct{})) (handedOver bool) {
	p := newTestPool(t, Config{Workers: 2, OnStall: func(Stall) {}})
	deadline := untilDeadline(t)
	other, free := holdAWorker(t, p)
	fbDone := make(chan struct{})
	var waited atomic.Bool
	_, err := Run(p, func(w *Worker) int {
		if w.ID() == other {
			t.Errorf("the fork runs on worker %d, the one held busy", other)
		}
		belowEager(w, func(w *Worker) {
			Join(w, func(w *Worker) int {
				wait(w, free, fbDone, deadline)
				waited.Store(true)
				return 0
			}, func(w *Worker) int {
				if waited.Load() {
					t.Errorf("fb ran only after its first half gave up at the test's deadline")
				}
				close(fbDone)
				return 0
			})
		})
		return 0
	})
	if err != nil {
		t.Fatal(err)
	}
	return !t.Failed()
}

// A Scope wait (helpUntil) offers the latent halves of the Joins its
// worker is inside: here the scope's only task waits for the enclosing
// Join's second half. The promotion puts fb above the task in the
// deque, so the waiting worker (or the idle one) runs fb first; without
// it, the waiting worker runs the task, which waits for ever.
func TestHelpUntilPromotesAtItsStart(t *testing.T) {
	ok := latentFork(t, func(w *Worker, release func(), fbDone, giveUp <-chan struct{}) {
		err := w.Scope(context.Background(), func(w *Worker, s *Scope) error {
			s.Spawn(w, func(*Worker) {
				release() // the other worker goes idle only now
				select {  // no poll, no Blocking: only helpUntil's promotion made fb takeable
				case <-fbDone:
				case <-giveUp:
				}
			})
			return nil
		})
		if err != nil {
			t.Error(err)
		}
	})
	if !ok {
		t.Fatal("the Join's second half did not run while the scope's task waited for it: helpUntil did not promote the latent frame when the scope's wait began")
	}
}

// Blocking offers the latent halves before it blocks.
func TestBlockingPromotes(t *testing.T) {
	ok := latentFork(t, func(w *Worker, release func(), fbDone, giveUp <-chan struct{}) {
		release()
		w.Blocking(func() {
			select {
			case <-fbDone:
			case <-giveUp:
			}
		})
	})
	if !ok {
		t.Fatal("the Join's second half did not run while its first half blocked: Blocking did not promote the latent frame")
	}
}
