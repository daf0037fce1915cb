package worksteal

import (
	"context"
	"testing"
	"time"

	"github.com/worksteal/worksteal/policy"
)

// sleepyIdle makes every backoff a ten-minute timed sleep: a pool that
// relied on a timer to resume a worker would stall, so a test that
// finishes shows that every sleeper was woken by whoever had work for it.
var sleepyIdle = policy.Idle{Rounds: 3, Base: 10 * time.Minute, Cap: 10 * time.Minute}

// waitAsleep blocks until n workers of p are in the idle list.
func waitAsleep(p *Pool, n int) {
	for {
		if sleepers, _ := counts(p.sleep.state.Load()); int(sleepers) >= n {
			return
		}
		time.Sleep(10 * time.Microsecond)
	}
}

// TestWaitersWokenNotTimed: a worker waiting at a Join whose second half
// was stolen, at a Scope, or at a Future, that falls asleep before the
// awaited task finishes is woken by that task's completion — not when its
// sleep times out. Each awaited task waits until its waiter is asleep, so
// every cycle takes the sleeping path; the schedule's sleeps are ten
// minutes long, so a missed wake-up trips the watchdog.
func TestWaitersWokenNotTimed(t *testing.T) {
	defer watchdog(t)()
	p := newTestPool(t, Config{Workers: 2, Idle: sleepyIdle})
	cycles := 100
	if testing.Short() {
		cycles = 20
	}
	// The awaited task runs on the other worker and returns once the
	// waiter (the only other worker) sleeps.
	awaited := func(started chan<- struct{}) func(*Worker) int {
		return func(*Worker) int {
			started <- struct{}{}
			waitAsleep(p, 1)
			return 1
		}
	}
	for c := 0; c < cycles; c++ {
		started := make(chan struct{}, 1)
		got, err := Run(p, func(w *Worker) int {
			a, b := Join(w, func(w *Worker) int { awaitPolling(w, started); return 1 }, awaited(started))
			return a + b
		})
		if err != nil || got != 2 {
			t.Fatalf("join cycle %d: %d, %v", c, got, err)
		}
		started = make(chan struct{}, 1)
		err = p.Scope(context.Background(), func(w *Worker, s *Scope) error {
			s.Spawn(w, func(w *Worker) { awaited(started)(w) })
			<-started // stolen: the body returns, then the Scope waits
			return nil
		})
		if err != nil {
			t.Fatalf("scope cycle %d: %v", c, err)
		}
		started = make(chan struct{}, 1)
		got, err = Run(p, func(w *Worker) int {
			var v int
			w.Scope(context.Background(), func(w *Worker, s *Scope) error {
				fu := SpawnValue(s, w, awaited(started))
				<-started
				v = fu.Wait(w)
				return nil
			})
			return v
		})
		if err != nil || got != 1 {
			t.Fatalf("future cycle %d: %d, %v", c, got, err)
		}
	}
	// And from outside: work submitted to a pool whose workers all sleep
	// runs at once.
	for c := 0; c < cycles; c++ {
		waitAsleep(p, 2)
		done := make(chan struct{})
		if err := p.Submit(func(*Worker) { close(done) }); err != nil {
			t.Fatal(err)
		}
		<-done
	}
}
