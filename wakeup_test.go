package worksteal

import (
	"fmt"
	"math/rand/v2"
	"sync/atomic"
	"testing"
	"time"

	"github.com/worksteal/worksteal/policy"
)

// TestNoLostWakeup posts bursts of work to a pool whose workers park almost
// at once, cycle after cycle, so that posting races with parking in every
// way the protocol allows (PROTOCOL.md "Parking"). A lost wake-up would
// leave a burst's work queued while every worker sleeps; the watchdog fails
// the test if no task completes for 10 s while work is outstanding.
//
// Each cycle posts 1–8 tasks through a random entry (the injector, a
// worker's inbox, round-robin inboxes, or spawned from inside a task onto a
// deque), waits for all of them, and sometimes lets the pool go idle first.
func TestNoLostWakeup(t *testing.T) {
	cycles := 1_000_000
	switch {
	case testing.Short():
		cycles = 20_000
	case raceEnabled:
		cycles = 100_000
	}
	seed := rand.Uint64()
	t.Logf("seed %d, %d cycles", seed, cycles)
	rng := rand.New(rand.NewPCG(seed, 1))

	// Park after one short round: the protocol is exercised on every cycle.
	p := newTestPool(t, Config{Workers: 4, Idle: policy.Idle{Rounds: 1, Base: 50 * time.Nanosecond, Cap: 200 * time.Nanosecond}})

	var completed atomic.Int64
	var outstanding atomic.Int64
	done := make(chan struct{}, 1)
	finish := func() {
		completed.Add(1)
		if outstanding.Add(-1) == 0 {
			done <- struct{}{}
		}
	}

	// Watchdog: progress must never stop while work is outstanding.
	stopWatch := make(chan struct{})
	watchErr := make(chan string, 1)
	go func() {
		last := int64(-1)
		tick := time.NewTicker(10 * time.Second)
		defer tick.Stop()
		for {
			select {
			case <-stopWatch:
				return
			case <-tick.C:
				c := completed.Load()
				if c == last && outstanding.Load() > 0 {
					st := p.Stats().Total()
					watchErr <- fmt.Sprintf("stall: %d tasks outstanding, no progress for 10s; sleep state %x; stats %+v",
						outstanding.Load(), p.sleep.state.Load(), st)
					return
				}
				last = c
			}
		}
	}()
	defer close(stopWatch)

	for c := 0; c < cycles; c++ {
		k := 1 + rng.IntN(8)
		outstanding.Store(int64(k))
		switch rng.IntN(4) {
		case 0:
			for i := 0; i < k; i++ {
				p.Submit(func(*Worker) { finish() })
			}
		case 1:
			target := rng.IntN(p.Workers())
			for i := 0; i < k; i++ {
				p.SubmitTo(target, func(*Worker) { finish() })
			}
		case 2:
			for i := 0; i < k; i++ {
				p.SubmitSpread(func(*Worker) { finish() })
			}
		case 3: // a task running on the pool posts the rest, then finishes
			p.Submit(func(w *Worker) {
				for i := 1; i < k; i++ {
					w.pool.Submit(func(*Worker) { finish() })
				}
				finish()
			})
		}
		select {
		case <-done:
		case msg := <-watchErr:
			t.Fatalf("cycle %d: %s", c, msg)
		}
		if rng.IntN(64) == 0 { // let every worker reach the parked state
			time.Sleep(20 * time.Microsecond)
		}
	}
}

// TestNoLostWakeupJoin: fork-join bursts from outside with workers parking
// between them; the Join's pushes must wake sleepers and latches must wake
// parked joiners.
func TestNoLostWakeupJoin(t *testing.T) {
	cycles := 100_000
	if testing.Short() || raceEnabled {
		cycles = 5_000
	}
	defer watchdog(t, 3*time.Minute)()
	p := newTestPool(t, Config{Workers: 3, Idle: policy.Idle{Rounds: 1, Base: 50 * time.Nanosecond, Cap: 200 * time.Nanosecond}})
	for c := 0; c < cycles; c++ {
		n := 2 + c%9
		if got, _ := Run(p, func(w *Worker) int { return fibJoin(w, n) }); got != fibSeq(n) {
			t.Fatalf("cycle %d: fib(%d) = %d", c, n, got)
		}
	}
}
