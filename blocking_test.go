package worksteal

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/worksteal/worksteal/internal/testdeadline"
)

// These tests are in package worksteal (not worksteal_test) so that they can
// look at the spare set; they use newTestPool and watchdog from
// helpers_test.go.

func TestBlockingLetsSparesRunWhatUnblocksWorkers(t *testing.T) {
	defer watchdog(t)()

	// The canonical case for Blocking: every regular worker waits for
	// something that only a queued task provides. Without compensation
	// (MaxBlocking < 0) this deadlocks; with it, a spare runs the third task.
	t.Run("two blocked workers and a third task that unblocks them", func(t *testing.T) {
		p := newTestPool(t, Config{Workers: 2})
		ch := make(chan struct{})
		var entered, done sync.WaitGroup
		entered.Add(2)
		done.Add(3)
		for range 2 {
			mustSubmit(t, p, func(w *Worker) {
				defer done.Done()
				entered.Done()
				w.Blocking(func() { <-ch })
			})
		}
		entered.Wait() // both regular workers are busy with a blocker now
		mustSubmit(t, p, func(*Worker) {
			defer done.Done()
			close(ch)
		})
		done.Wait()
		if got := len(p.Stats().Workers); got <= p.Workers() {
			t.Errorf("len(Stats().Workers) = %d; want spares beyond the %d workers", got, p.Workers())
		}
	})

	// The same inside a Scope: the blockers are spawned tasks, and the task
	// that unblocks them is spawned by a third task that the body's worker
	// cannot run because it is blocked itself.
	t.Run("blocked scope tasks are unblocked by a spawned sibling", func(t *testing.T) {
		p := newTestPool(t, Config{Workers: 2})
		ch := make(chan struct{})
		var entered sync.WaitGroup
		entered.Add(2)
		err := p.Scope(context.Background(), func(w *Worker, s *Scope) error {
			for range 2 {
				s.Spawn(w, func(w *Worker) {
					entered.Done()
					w.Blocking(func() { <-ch })
				})
			}
			w.Blocking(entered.Wait) // body's worker blocks too: three waits on two workers
			s.Spawn(w, func(*Worker) { close(ch) })
			w.Blocking(func() { <-ch })
			return nil
		})
		if err != nil {
			t.Fatalf("Scope = %v; want nil", err)
		}
	})

	// Workers + MaxBlocking tasks can all be inside Blocking at the same
	// time: each blocked worker starts one spare, which takes the next task.
	t.Run("Workers+MaxBlocking tasks block at once", func(t *testing.T) {
		const workers, spares = 2, 6
		p := newTestPool(t, Config{Workers: workers, MaxBlocking: spares})
		const n = workers + spares
		var arrived atomic.Int32
		all := make(chan struct{})
		var done sync.WaitGroup
		done.Add(n)
		for range n {
			mustSubmit(t, p, func(w *Worker) {
				defer done.Done()
				w.Blocking(func() {
					if arrived.Add(1) == n {
						close(all)
					}
					<-all // a barrier: needs all n tasks running at once
				})
			})
		}
		done.Wait()
		st := p.Stats()
		if got := len(st.Workers); got != n {
			t.Errorf("len(Stats().Workers) = %d; want %d (%d workers + %d spares)", got, n, workers, spares)
		}
	})

	// Many short Blocking regions, from submitted tasks, scope tasks and
	// both halves of Joins, all at once.
	t.Run("many concurrent Blocking regions", func(t *testing.T) {
		n := 2000
		if testing.Short() {
			n = 300
		}
		p := newTestPool(t, Config{Workers: 2})
		var regions atomic.Int64
		block := func(w *Worker) {
			w.Blocking(func() {
				regions.Add(1)
				time.Sleep(10 * time.Microsecond)
			})
		}
		var done sync.WaitGroup
		done.Add(n)
		for range n {
			mustSubmit(t, p, func(w *Worker) { defer done.Done(); block(w) })
		}
		err := p.Scope(context.Background(), func(w *Worker, s *Scope) error {
			for range n {
				s.Spawn(w, func(w *Worker) {
					Join(w,
						func(w *Worker) int { block(w); return 0 },
						func(w *Worker) int { block(w); return 0 })
				})
			}
			return nil
		})
		if err != nil {
			t.Fatalf("Scope = %v; want nil", err)
		}
		done.Wait()
		if got, want := regions.Load(), int64(3*n); got != want {
			t.Fatalf("%d Blocking regions ran; want %d", got, want)
		}
	})

	// Spares started for Blocking go back to the free list once nobody
	// blocks, and Close stops them (the cleanup's Close must return).
	t.Run("spares retire", func(t *testing.T) {
		p := newTestPool(t, Config{Workers: 2, MaxBlocking: 4})
		for round := range 3 {
			ch := make(chan struct{})
			var entered, done sync.WaitGroup
			entered.Add(4)
			done.Add(5)
			for range 4 {
				mustSubmit(t, p, func(w *Worker) {
					defer done.Done()
					w.Blocking(func() { entered.Done(); <-ch })
				})
			}
			entered.Wait()
			mustSubmit(t, p, func(*Worker) { defer done.Done(); close(ch) })
			done.Wait()
			// A spare retires when it finds no work and fewer workers block
			// than spares run; work posted now wakes parked workers.
			waitUntil(t, fmt.Sprintf("round %d: every spare retired", round), func() bool {
				mustSubmit(t, p, func(*Worker) {})
				return p.spares.nactive.Load() == 0
			})
		}
		st := p.Stats()
		if got := len(st.Workers); got <= p.Workers() || got > p.Workers()+4 {
			t.Errorf("len(Stats().Workers) = %d; want spares in (%d, %d]", got, p.Workers(), p.Workers()+4)
		}
	})
}

// Blocking compensates while the pool closes too: two tasks that occupy
// both workers and, after Close began, block until a third queued task runs
// get a spare that runs it, so Close returns. (The test unblocks the tasks
// after 5 s so that a missing spare fails the test instead of hanging it.)
func TestBlockingCompensatedDuringClose(t *testing.T) {
	p, err := New(Config{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	ch := make(chan struct{})
	var once sync.Once
	unblock := func() { once.Do(func() { close(ch) }) }
	var started sync.WaitGroup
	started.Add(2)
	for range 2 {
		mustSubmit(t, p, func(w *Worker) {
			started.Done()
			for p.Submit(func(*Worker) {}) != ErrClosed { // until Close has begun
				time.Sleep(100 * time.Microsecond)
			}
			w.Blocking(func() { <-ch })
		})
	}
	mustSubmit(t, p, func(*Worker) { unblock() })
	started.Wait()

	closed := make(chan error, 1)
	go func() { closed <- p.Close() }()
	select {
	case err := <-closed:
		if err != nil {
			t.Fatalf("Close = %v", err)
		}
	case <-time.After(testdeadline.Left(t)):
		t.Errorf("Close did not return before the test's deadline: two tasks blocked in w.Blocking after Close began got no spare, so the queued task that unblocks them never ran")
		unblock()
		<-closed
	}
}

// A spare's time retired in the free list counts as idle, not busy: after
// a long retirement its Busy stays far below the time it spent retired.
func TestRetiredSpareCountsIdle(t *testing.T) {
	defer watchdog(t)()
	gap := 300 * time.Millisecond
	if testing.Short() {
		gap = 100 * time.Millisecond
	}
	p := newTestPool(t, Config{Workers: 1, MaxBlocking: 1})
	blockBriefly := func() {
		if _, err := Run(p, func(w *Worker) int {
			w.Blocking(func() { time.Sleep(time.Millisecond) })
			return 0
		}); err != nil {
			t.Fatal(err)
		}
	}
	retired := func() bool {
		p.spares.mu.Lock()
		defer p.spares.mu.Unlock()
		return len(p.spares.free) == 1
	}
	blockBriefly() // starts the spare
	waitUntil(t, "the spare retired", func() bool {
		mustSubmit(t, p, func(*Worker) {}) // wakes parked workers, the spare among them
		return retired()
	})
	time.Sleep(gap)
	blockBriefly() // reactivates it
	waitUntil(t, "the spare retired again", func() bool {
		mustSubmit(t, p, func(*Worker) {})
		return retired()
	})
	st := p.Stats()
	if len(st.Workers) != 2 {
		t.Fatalf("len(Stats().Workers) = %d; want 2 (1 worker + 1 spare)", len(st.Workers))
	}
	spare := st.Workers[1]
	t.Logf("spare: %+v", spare)
	if spare.Busy >= gap/2 {
		t.Errorf("spare Busy = %v after %v retired in the free list (it ran %d jobs); retired time must not count as busy", spare.Busy, gap, spare.Executed)
	}
}

func mustSubmit(t testing.TB, p *Pool, f func(w *Worker)) {
	t.Helper()
	if err := p.Submit(f); err != nil {
		t.Fatalf("Submit: %v", err)
	}
}

// waitUntil polls cond every millisecond and fails the test if it has not
// held when the test's deadline nears (testdeadline.Left).
func waitUntil(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(testdeadline.Left(t))
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting until %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}
