package worksteal

import (
	"context"
	"fmt"
	"math"
	"reflect"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/worksteal/worksteal/policy"
)

// TestStatsCounters runs known work, closes the pool (which publishes every
// worker's counters) and checks the accounting identities.
func TestStatsCounters(t *testing.T) {
	defer watchdog(t)()
	n := 22
	if testing.Short() {
		n = 18
	}
	joins := uint64(fibSeq(n+1) - 1) // fibJoin(n) joins once per call with n ≥ 2
	cases := []struct {
		name string
		cfg  Config
	}{
		{"2 workers", Config{Workers: 2}},
		{"3 workers steal half", Config{Workers: 3, Steal: policy.StealHalf}},
		{"4 workers locality", Config{Workers: 4, Victim: policy.Locality, Groups: policy.EvenGroups(4, 2)}},
		{"2 workers largest", Config{Workers: 2, Victim: policy.Largest}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p, err := New(tc.cfg)
			if err != nil {
				t.Fatal(err)
			}
			// Roots: 3 Runs, 1 Pool.Scope (a Run), 5 Submits.
			const roots = 3 + 1 + 5
			var scopeTasks uint64 = 40
			for range 3 {
				if got, _ := Run(p, func(w *Worker) int { return fibJoin(w, n) }); got != fibSeq(n) {
					t.Fatalf("fib(%d) = %d", n, got)
				}
			}
			err = p.Scope(context.Background(), func(w *Worker, s *Scope) error {
				for i := range scopeTasks {
					if i%2 == 0 {
						s.Spawn(w, func(*Worker) {})
					} else {
						SpawnValue(s, w, func(*Worker) int { return 0 })
					}
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			var wg sync.WaitGroup
			wg.Add(5)
			for range 5 {
				mustSubmit(t, p, func(*Worker) { wg.Done() })
			}
			wg.Wait()
			if err := p.Close(); err != nil {
				t.Fatal(err)
			}

			st := p.Stats()
			tot := st.Total()
			t.Logf("total %+v; steal rate %.3f, utilization %.3f, imbalance %.3f", tot, st.StealRate(), st.Utilization(), st.Imbalance())
			if len(st.Workers) != tc.cfg.Workers {
				t.Errorf("len(Workers) = %d; want %d", len(st.Workers), tc.cfg.Workers)
			}
			if want := 3*joins + scopeTasks; tot.Spawned != want {
				t.Errorf("Total().Spawned = %d; want 3 × %d joins + %d scope tasks = %d", tot.Spawned, joins, scopeTasks, want)
			}
			if tot.Executed != tot.Spawned+roots {
				t.Errorf("Total().Executed = %d; want Spawned %d + %d root tasks = %d", tot.Executed, tot.Spawned, roots, tot.Spawned+roots)
			}
			if tot.Stolen != tot.StolenFrom {
				t.Errorf("Σ Stolen = %d; want Σ StolenFrom = %d", tot.Stolen, tot.StolenFrom)
			}
			for i, w := range st.Workers {
				if w.FailedSteals > w.StealAttempts {
					t.Errorf("worker %d: FailedSteals %d > StealAttempts %d", i, w.FailedSteals, w.StealAttempts)
				}
				successes := w.StealAttempts - w.FailedSteals
				if tc.cfg.Steal == policy.StealOne && w.Stolen != successes {
					t.Errorf("worker %d (steal one): Stolen %d; want StealAttempts − FailedSteals = %d", i, w.Stolen, successes)
				}
				if w.Stolen < successes || w.Stolen > successes*policy.MaxBatch {
					t.Errorf("worker %d: Stolen %d outside [%d, %d × MaxBatch] for %d successful steals", i, w.Stolen, successes, successes, successes)
				}
				if tc.cfg.Steal == policy.StealOne && w.StealAttempts < w.Stolen {
					t.Errorf("worker %d: StealAttempts %d < Stolen %d", i, w.StealAttempts, w.Stolen)
				}
				if w.Busy < 0 || w.Idle < 0 {
					t.Errorf("worker %d: Busy %v, Idle %v; want both ≥ 0", i, w.Busy, w.Idle)
				}
			}
			if u := st.Utilization(); u < 0 || u > 1 {
				t.Errorf("Utilization() = %v; want it in [0, 1]", u)
			}
			if im := st.Imbalance(); im < 1 || im > float64(len(st.Workers))+1e-9 {
				t.Errorf("Imbalance() = %v; want it in [1, %d]", im, len(st.Workers))
			}
			if r := st.StealRate(); r < 0 || r > 1 {
				t.Errorf("StealRate() = %v; want it in [0, 1]: every stolen job is executed", r)
			}
			if tot.Busy <= 0 {
				t.Errorf("Total().Busy = %v after real work; want > 0", tot.Busy)
			}
		})
	}

	t.Run("spares are counted after the workers", func(t *testing.T) {
		p, err := New(Config{Workers: 2})
		if err != nil {
			t.Fatal(err)
		}
		// Both workers block; the fib runs on spares.
		var got atomic.Int64
		err = p.Scope(context.Background(), func(w *Worker, s *Scope) error {
			release := make(chan struct{})
			blocked := make(chan struct{})
			s.Spawn(w, func(w *Worker) { close(blocked); w.Blocking(func() { <-release }) })
			w.Blocking(func() { <-blocked })
			s.Spawn(w, func(w *Worker) { got.Store(int64(fibJoin(w, 15))); close(release) })
			w.Blocking(func() { <-release })
			return nil
		})
		if err != nil || got.Load() != 610 {
			t.Fatalf("Scope = %v, fib(15) = %d", err, got.Load())
		}
		if err := p.Close(); err != nil {
			t.Fatal(err)
		}
		st := p.Stats()
		tot := st.Total()
		if len(st.Workers) <= 2 {
			t.Fatalf("len(Workers) = %d; want the spares listed after the 2 workers", len(st.Workers))
		}
		if tot.Executed != tot.Spawned+1 {
			t.Errorf("Total().Executed = %d; want Spawned %d + 1 root", tot.Executed, tot.Spawned)
		}
		if tot.Stolen != tot.StolenFrom {
			t.Errorf("Σ Stolen = %d; want Σ StolenFrom = %d", tot.Stolen, tot.StolenFrom)
		}
		if u := st.Utilization(); u < 0 || u > 1 {
			t.Errorf("Utilization() = %v; want it in [0, 1]", u)
		}
	})

	t.Run("NoStats reads all zero", func(t *testing.T) {
		p, err := New(Config{Workers: 2, NoStats: true})
		if err != nil {
			t.Fatal(err)
		}
		Run(p, func(w *Worker) int { return fibJoin(w, n) })
		p.Close()
		st := p.Stats()
		if len(st.Workers) != 2 {
			t.Fatalf("len(Workers) = %d; want 2", len(st.Workers))
		}
		for i, w := range st.Workers {
			if w != (WorkerStats{}) {
				t.Errorf("worker %d: %+v; want all zero with NoStats", i, w)
			}
		}
		if st.StealRate() != 0 || st.Utilization() != 0 || st.Imbalance() != 1 {
			t.Errorf("StealRate %v, Utilization %v, Imbalance %v; want 0, 0, 1", st.StealRate(), st.Utilization(), st.Imbalance())
		}
	})

	t.Run("snapshots while running never go backwards", func(t *testing.T) {
		p := newTestPool(t, Config{Workers: 2})
		stop := make(chan struct{})
		errs := make(chan error, 1)
		go func() {
			var last WorkerStats
			for {
				select {
				case <-stop:
					errs <- nil
					return
				default:
				}
				cur := p.Stats().Total()
				if cur.Executed < last.Executed || cur.Spawned < last.Spawned || cur.Stolen < last.Stolen || cur.Busy < last.Busy {
					errs <- fmt.Errorf("snapshot went backwards: %+v after %+v", cur, last)
					return
				}
				last = cur
				time.Sleep(50 * time.Microsecond)
			}
		}()
		for range 5 {
			Run(p, func(w *Worker) int { return fibJoin(w, n) })
		}
		close(stop)
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	})

	t.Run("Sub of two snapshots of a live pool", func(t *testing.T) {
		p, err := New(Config{Workers: 2})
		if err != nil {
			t.Fatal(err)
		}
		Run(p, func(w *Worker) int { return fibJoin(w, n) })
		first := p.Stats()
		Run(p, func(w *Worker) int { return fibJoin(w, n) })
		p.Close() // publishes everything
		last := p.Stats()
		phase := last.Sub(first).Total()
		if want := last.Total().Executed - first.Total().Executed; phase.Executed != want || phase.Executed > last.Total().Executed {
			t.Errorf("last.Sub(first).Total().Executed = %d; want %d", phase.Executed, want)
		}
		if zero := last.Sub(last); !reflect.DeepEqual(zero, Stats{Workers: make([]WorkerStats, len(last.Workers))}) {
			t.Errorf("s.Sub(s) = %+v; want every worker zero", zero)
		}
	})
}

// TestStatsMath checks the Stats methods on hand-made snapshots.
func TestStatsMath(t *testing.T) {
	ws := func(executed, stolen uint64, busy, idle time.Duration) WorkerStats {
		return WorkerStats{Executed: executed, Stolen: stolen, StolenFrom: stolen, Busy: busy, Idle: idle}
	}
	cases := []struct {
		name                   string
		s                      Stats
		stealRate, util, imbal float64
	}{
		{"empty", Stats{}, 0, 0, 1},
		{"idle workers", Stats{Workers: []WorkerStats{{}, {}}}, 0, 0, 1},
		{"balanced", Stats{Workers: []WorkerStats{ws(10, 1, time.Second, time.Second), ws(10, 3, time.Second, time.Second)}}, 0.2, 0.5, 1},
		{"one worker does all", Stats{Workers: []WorkerStats{ws(8, 0, 3*time.Second, 0), ws(0, 0, 0, 3*time.Second), ws(0, 0, 0, 3*time.Second)}}, 0, 1.0 / 3, 3},
		{"3:1", Stats{Workers: []WorkerStats{ws(4, 2, 3*time.Second, time.Second), ws(4, 2, time.Second, 3*time.Second)}}, 0.5, 0.5, 1.5},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.s.StealRate(); !near(got, tc.stealRate) {
				t.Errorf("StealRate() = %v; want %v", got, tc.stealRate)
			}
			if got := tc.s.Utilization(); !near(got, tc.util) {
				t.Errorf("Utilization() = %v; want %v", got, tc.util)
			}
			if got := tc.s.Imbalance(); !near(got, tc.imbal) {
				t.Errorf("Imbalance() = %v; want %v", got, tc.imbal)
			}
		})
	}

	// fill sets field i of a WorkerStats to k·(i+1), so that these checks
	// cover any field added later.
	fill := func(k int) WorkerStats {
		var w WorkerStats
		v := reflect.ValueOf(&w).Elem()
		for i := range v.NumField() {
			switch f := v.Field(i); f.Kind() {
			case reflect.Uint64:
				f.SetUint(uint64(k * (i + 1)))
			case reflect.Int64:
				f.SetInt(int64(k * (i + 1)))
			case reflect.Pointer:
				// Counters: nil here (no counts); TestCountersMath covers them.
			default:
				t.Fatalf("WorkerStats.%s has kind %v; teach fill about it", v.Type().Field(i).Name, f.Kind())
			}
		}
		return w
	}

	t.Run("Total sums every field", func(t *testing.T) {
		got := Stats{Workers: []WorkerStats{fill(1), fill(10), fill(100)}}.Total()
		if want := fill(111); got != want {
			t.Errorf("Total() = %+v; want %+v", got, want)
		}
	})

	t.Run("Sub subtracts every field worker by worker", func(t *testing.T) {
		earlier := Stats{Workers: []WorkerStats{fill(1), fill(2)}}
		later := Stats{Workers: []WorkerStats{fill(11), fill(2), fill(5)}} // a spare appeared in between
		got := later.Sub(earlier)
		want := Stats{Workers: []WorkerStats{fill(10), {}, fill(5)}}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("Sub() = %+v; want %+v", got, want)
		}
		if later.Workers[0] != fill(11) {
			t.Errorf("Sub modified its receiver: %+v", later.Workers[0])
		}
	})
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

// A pool that waits for its first task is idle, not busy: the workers'
// start-up park used to be added to busy time when they woke (a pool left
// idle for 3 s, then given a 50 ms loop, reported busy 6.1 s and
// utilization 1.00). The pool is closed before the snapshot, so every
// worker has ended its stretch and published it.
func TestStatsStartUpParkIsIdle(t *testing.T) {
	defer watchdog(t)()
	const workers = 2
	const parked = 300 * time.Millisecond
	start := time.Now()
	p, err := New(Config{Workers: workers})
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(parked) // both workers sit in their start-up park
	if got, _ := Run(p, func(w *Worker) int { return fibJoin(w, 20) }); got != 6765 {
		t.Fatalf("fib(20) = %d", got)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	wall := time.Since(start)
	tot := p.Stats().Total()
	if limit := wall * workers; tot.Busy > limit {
		t.Errorf("busy %v in all, more than wall time × workers = %v", tot.Busy, limit)
	}
	// Each worker was parked for at least the sleep; allow half of it,
	// for a goroutine that started late on a loaded machine.
	if least := parked * workers / 2; tot.Idle < least {
		t.Errorf("idle %v in all (busy %v) after %d workers sat parked %v each; want at least %v: the start-up park counted as busy",
			tot.Idle, tot.Busy, workers, parked, least)
	}
}
