package worksteal

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/worksteal/worksteal/internal/testdeadline"
	"github.com/worksteal/worksteal/policy"
)

// TestNoLostWakeup posts bursts of work to a pool whose workers park almost
// at once, cycle after cycle, so that posting races with parking in every
// way the protocol allows (PROTOCOL.md "Parking"). A lost wake-up would
// leave a burst's work queued while every worker sleeps; the watchdog ends
// the test binary with every goroutine's stack (dieHung) if no task
// completes for 10 s while work is outstanding.
//
// Each cycle posts 1–8 tasks through a random way work becomes visible —
// the injector, a worker's inbox, round-robin inboxes, the injector from
// inside a task, a Join whose latent second half only a thief can run (its
// first half polls until one has: a poll promotes the half and wakes a
// sleeper), the same Join forked while every worker is busy (the others
// park after the fork, so only a later poll can offer the half), and a
// Scope's spawns that must be spread over the workers (a barrier) — waits for all of them, and sometimes lets the pool go idle first. Half
// the cycles run on a pool that parks after one round and steals one; the
// other half on a pool that steals half (moving items into thieves'
// deques) and sleeps between rounds (timed parks, woken like any park).
func TestNoLostWakeup(t *testing.T) {
	cycles := 1_000_000
	switch {
	case testing.Short():
		cycles = 20_000
	case raceEnabled:
		cycles = 60_000
	}
	seed := rand.Uint64()
	t.Logf("seed %d, %d cycles", seed, cycles)
	rng := rand.New(rand.NewPCG(seed, 1))
	configs := []Config{
		{Workers: 4, Idle: policy.Idle{Rounds: 1, Base: 50 * time.Nanosecond, Cap: 200 * time.Nanosecond}},
		{Workers: 4, Steal: policy.StealHalf, Idle: policy.Idle{Rounds: 3, Base: 30 * time.Microsecond, Cap: 60 * time.Microsecond, Jitter: 1}},
	}
	for i, cfg := range configs {
		lostWakeupCycles(t, newTestPool(t, cfg), rng, cycles/len(configs), fmt.Sprintf("pool %d (seed %d)", i, seed))
	}
}

func lostWakeupCycles(t *testing.T, p *Pool, rng *rand.Rand, cycles int, name string) {
	var completed atomic.Int64
	var outstanding atomic.Int64
	done := make(chan struct{}, 1)
	finish := func() {
		completed.Add(1)
		if outstanding.Add(-1) == 0 {
			done <- struct{}{}
		}
	}

	// Watchdog: progress must never stop while work is outstanding. A lost
	// wake-up stops it for good, so the watchdog looks at a third of the
	// time left before the test's deadline (not a fixed few seconds, which a
	// loaded machine can spend without running a task).
	stopWatch := make(chan struct{})
	watchErr := make(chan string, 1)
	period := testdeadline.Left(t) / 3
	go func() {
		last := int64(-1)
		tick := time.NewTicker(period)
		defer tick.Stop()
		for {
			select {
			case <-stopWatch:
				return
			case <-tick.C:
				c := completed.Load()
				if c == last && outstanding.Load() > 0 {
					st := p.Stats().Total()
					watchErr <- fmt.Sprintf("stall: %d tasks outstanding, no progress for %v; sleep state %x; stats %+v",
						outstanding.Load(), period, p.sleep.state.Load(), st)
					return
				}
				last = c
			}
		}
	}()
	defer close(stopWatch)

	spin := func(cond func() bool) {
		for !cond() {
			runtime.Gosched()
		}
	}
	for c := 0; c < cycles; c++ {
		k := 1 + rng.IntN(8)
		outstanding.Store(int64(k))
		switch rng.IntN(7) {
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
		case 4: // Joins whose second half can only run on a thief: the
			// first half polls until it has (PROTOCOL.md "Join": the
			// poll promotes the latent half and wakes a sleeper)
			p.Submit(func(w *Worker) {
				for i := 1; i < k; i++ {
					var ran atomic.Bool
					Join(w, func(w *Worker) int { spinPolling(w, ran.Load); return 0 },
						func(*Worker) int { ran.Store(true); finish(); return 0 })
				}
				finish()
			})
		case 6: // a Join forked while every worker is busy (a barrier of
			// one task per worker): the others go idle and park only
			// after the fork, so only a later poll can offer its half
			n := p.Workers()
			outstanding.Store(int64(n + 1))
			var arrived atomic.Int32
			for i := 0; i < n; i++ {
				p.Submit(func(w *Worker) {
					if arrived.Add(1) == int32(n) {
						var ran atomic.Bool
						Join(w, func(w *Worker) int {
							// every other worker runs its barrier task now
							spinPolling(w, ran.Load)
							return 0
						}, func(*Worker) int { ran.Store(true); finish(); return 0 })
					} else {
						spin(func() bool { return arrived.Load() == int32(n) })
					}
					finish()
				})
			}
		case 5: // Spawns: m tasks that wait for each other need m workers
			m := min(k, p.Workers())
			outstanding.Store(int64(m))
			p.Submit(func(w *Worker) {
				var arrived atomic.Int32
				w.Scope(context.Background(), func(w *Worker, s *Scope) error {
					for range m {
						s.Spawn(w, func(*Worker) {
							arrived.Add(1)
							spin(func() bool { return arrived.Load() == int32(m) })
							finish()
						})
					}
					return nil
				})
			})
		}
		select {
		case <-done:
		case msg := <-watchErr:
			// Not t.Fatalf: the cleanup's Close would wait for the stuck
			// work, and the diagnosis would never print.
			dieHung(fmt.Sprintf("%s, cycle %d: %s", name, c, msg))
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
	defer watchdog(t)()
	p := newTestPool(t, Config{Workers: 3, Idle: policy.Idle{Rounds: 1, Base: 50 * time.Nanosecond, Cap: 200 * time.Nanosecond}})
	for c := 0; c < cycles; c++ {
		n := 2 + c%9
		if got, _ := Run(p, func(w *Worker) int { return fibJoin(w, n) }); got != fibSeq(n) {
			t.Fatalf("cycle %d: fib(%d) = %d", c, n, got)
		}
	}
}

// spinPolling waits for cond inside a Join's first half, polling so that
// the Join's latent second half is offered to idle workers.
func spinPolling(w *Worker, cond func() bool) {
	for !cond() {
		w.Poll()
		runtime.Gosched()
	}
}
