package worksteal

import (
	"runtime"
	"slices"
	"sync/atomic"
	"testing"
	"time"
)

// burnPolling burns about d of CPU, polling every 50 µs like a leaf that
// follows Poll's advice.
func burnPolling(w *Worker, d time.Duration) {
	t0 := time.Now()
	for next := 50 * time.Microsecond; time.Since(t0) < d; {
		if time.Since(t0) >= next {
			w.Poll()
			next += 50 * time.Microsecond
		}
	}
}

// rangeJoin runs leaf over [lo, hi) as a binary Join tree: the shape of a
// par loop or a divide and conquer, without importing par.
func rangeJoin(w *Worker, lo, hi int, leaf func(w *Worker, i int)) {
	if hi-lo == 1 {
		leaf(w, lo)
		return
	}
	mid := lo + (hi-lo)/2
	Join(w, func(w *Worker) struct{} { rangeJoin(w, lo, mid, leaf); return struct{}{} },
		func(w *Worker) struct{} { rangeJoin(w, mid, hi, leaf); return struct{}{} })
}

// BenchmarkResizeUnderNeighbour: issue 30's "resizing acts on running
// work", measured with a CPU-bound neighbour. A pool with one worker per P
// runs a long Join tree of 1 ms leaves (polling every 50 µs, as Poll's doc
// advises) beside a one-thread CPU-bound neighbour process, so the
// neighbour shares the CPUs with every worker; then the pool is lowered,
// which should give the neighbour a whole CPU. Two ways to decide:
//
//   - decision=SetWorkers: 300 ms in, the program lowers the pool by one
//     worker, as Config.Governor does when it decides;
//   - decision=governor: Config.Governor (readings every 100 ms, its
//     other defaults) decides by itself; the decision's time is taken in
//     its OnChange, right after its SetWorkers (a run in which it does
//     not lower the pool within 5 s counts in no-decision).
//
// Reported, medians over the decisions:
//
//   - share-ms: from the decision until the neighbour runs at its share,
//     the first 20 ms of its own timeline (TestNeighbourProcess) at 90 %
//     or more of its solo rate; 400 if not within 400 ms (the target is
//     100 ms);
//   - handback-ms: from the decision until the pool's last worker (surplus
//     after any lowering) stops running tasks (its progress word shows it
//     idle: waiting at a join as surplus, or retired), sampled every
//     100 µs;
//   - nb-before, nb-after: the neighbour's rate in the 250 ms before the
//     decision and from 100 to 400 ms after it, as a share of its solo
//     rate (nb-solo-units/s, measured first, alone).
//
// Run: go test -run '^$' -bench ResizeUnderNeighbour -benchtime 5x .
func BenchmarkResizeUnderNeighbour(b *testing.B) {
	workers := runtime.GOMAXPROCS(0)
	if workers < 2 || runtime.NumCPU() < 2 {
		b.Skip("needs 2 CPUs")
	}
	nb := startNeighbour(b)
	defer nb.stop()
	time.Sleep(200 * time.Millisecond)
	t := time.Now()
	time.Sleep(500 * time.Millisecond)
	solo := rateOver(nb.timeline(b, t), t, time.Now())
	if solo == 0 {
		b.Fatal("the neighbour recorded no timeline")
	}
	b.Run("decision=SetWorkers", func(b *testing.B) {
		resizeUnderNeighbour(b, nb, solo, workers, false)
	})
	b.Run("decision=governor", func(b *testing.B) {
		resizeUnderNeighbour(b, nb, solo, workers, true)
	})
}

func resizeUnderNeighbour(b *testing.B, nb *neighbour, solo float64, workers int, gov bool) {
	var share, handback, before, after []float64
	undecided := 0
	for range b.N {
		decided := make(chan time.Time, 1)
		cfg := Config{Workers: workers}
		if gov {
			cfg.Governor = &Governor{Interval: 100 * time.Millisecond, OnChange: func(c GovernorChange) {
				if c.To < c.From {
					select {
					case decided <- time.Now():
					default:
					}
				}
			}}
		}
		p, err := New(cfg)
		if err != nil {
			b.Fatal(err)
		}
		var stop atomic.Bool
		done := make(chan struct{})
		start := time.Now()
		go func() {
			defer close(done)
			Run(p, func(w *Worker) int {
				rangeJoin(w, 0, 1<<20, func(w *Worker, _ int) {
					if !stop.Load() {
						burnPolling(w, time.Millisecond)
					}
				})
				return 0
			})
		}()
		var t0 time.Time
		if gov {
			select {
			case t0 = <-decided:
			case <-time.After(5 * time.Second):
			}
		} else {
			time.Sleep(300 * time.Millisecond) // every worker busy
			t0 = time.Now()
			if err := p.SetWorkers(workers - 1); err != nil {
				b.Fatal(err)
			}
		}
		if !t0.IsZero() {
			last := p.workers[workers-1]
			for last.mon.Load()&monIdle == 0 && time.Since(t0) < 10*time.Second {
				time.Sleep(100 * time.Microsecond)
			}
			handback = append(handback, float64(time.Since(t0).Microseconds())/1000)
			time.Sleep(time.Until(t0.Add(450 * time.Millisecond)))
			ss := nb.timeline(b, t0.Add(-300*time.Millisecond))
			before = append(before, rateOver(ss, later(start, t0.Add(-250*time.Millisecond)), t0)/solo)
			after = append(after, rateOver(ss, t0.Add(100*time.Millisecond), t0.Add(400*time.Millisecond))/solo)
			reached := 400.0
			for _, s := range ss {
				at := time.Unix(0, s.t)
				if at.Before(t0) {
					continue
				}
				if at.After(t0.Add(400 * time.Millisecond)) {
					break
				}
				if rateOver(ss, at, at.Add(20*time.Millisecond)) >= 0.9*solo {
					reached = float64(at.Sub(t0).Microseconds()) / 1000
					break
				}
			}
			share = append(share, reached)
		} else {
			undecided++
		}
		stop.Store(true)
		<-done
		p.Close()
	}
	med := func(xs []float64) float64 {
		if len(xs) == 0 {
			return -1
		}
		s := slices.Clone(xs)
		slices.Sort(s)
		return s[len(s)/2]
	}
	b.ReportMetric(med(share), "share-ms")
	b.ReportMetric(med(handback), "handback-ms")
	b.ReportMetric(med(before), "nb-before")
	b.ReportMetric(med(after), "nb-after")
	b.ReportMetric(solo, "nb-solo-units/s")
	b.ReportMetric(float64(undecided), "no-decision")
	b.Logf("workers %d, lowered; share ms %v; handback ms %v; neighbour's share before %.2f, after %.2f; runs without a decision %d", workers, share, handback, before, after, undecided)
}

// later returns the later of a and b.
func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}
