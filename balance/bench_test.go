package balance

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"testing"
	"time"
)

// Benchmarks of the pure parts, and a plain-goroutine baseline of the loop
// schedules on uneven work. The pool-backed comparison (work stealing,
// Mandelbrot rows, hedging on a long tail) lands with the runtime.

func lognormalCosts(n int, sigma float64, seed uint64) []float64 {
	r := rand.New(rand.NewPCG(seed, seed))
	costs := make([]float64, n)
	for i := range costs {
		costs[i] = math.Exp(sigma * r.NormFloat64())
	}
	return costs
}

func BenchmarkLPT(b *testing.B) {
	for _, n := range []int{1000, 100000} {
		for _, m := range []int{2, 64} {
			b.Run(fmt.Sprintf("n=%d/workers=%d", n, m), func(b *testing.B) {
				costs := lognormalCosts(n, 1, 1)
				var a Assignment
				for b.Loop() {
					a = LPT(costs, m)
				}
				b.ReportMetric(a.Imbalance(), "max/mean")
			})
		}
	}
}

func BenchmarkLPTSpeeds(b *testing.B) {
	costs := lognormalCosts(100000, 1, 2)
	speeds := make([]float64, 64)
	for w := range speeds {
		speeds[w] = float64(1 + w%4) // four machine types
	}
	var a Assignment
	for b.Loop() {
		a = LPTSpeeds(costs, speeds)
	}
	b.ReportMetric(a.Imbalance(), "max/ideal")
}

func BenchmarkImprove(b *testing.B) {
	for _, n := range []int{20, 1000} {
		b.Run(fmt.Sprintf("n=%d/workers=4", n), func(b *testing.B) {
			costs := lognormalCosts(n, 1.5, 3)
			lpt := LPT(costs, 4)
			var a Assignment
			for b.Loop() {
				a = Improve(costs, lpt)
			}
			b.ReportMetric(lpt.Imbalance(), "lpt-max/mean")
			b.ReportMetric(a.Imbalance(), "max/mean")
		})
	}
}

func BenchmarkJump(b *testing.B) {
	for _, workers := range []int{8, 1024} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			var sink int
			key := uint64(0)
			for b.Loop() {
				key++
				sink += Jump(mix64(key), workers)
			}
			_ = sink
		})
	}
}

func BenchmarkRoute(b *testing.B) {
	keys := make([]string, 1024)
	for i := range keys {
		keys[i] = fmt.Sprintf("user:%d", i)
	}
	var sink, i int
	for b.Loop() {
		sink += route(keys[i%len(keys)], 64)
		i++
	}
	_ = sink
}

// BenchmarkChunkerNext measures the claim of one chunk with all
// GOMAXPROCS goroutines claiming from the same loop.
func BenchmarkChunkerNext(b *testing.B) {
	for _, s := range []Schedule{Static{Chunk: 1}, Dynamic{Chunk: 1}, Guided{}} {
		b.Run(fmt.Sprint(s), func(b *testing.B) {
			var mu sync.Mutex
			worker := 0
			c := s.Start(math.MaxInt32, 1024)
			b.RunParallel(func(pb *testing.PB) {
				mu.Lock()
				w := worker
				worker++
				mu.Unlock()
				for pb.Next() {
					c.Next(w)
				}
			})
		})
	}
}

func BenchmarkHistoryObserve(b *testing.B) {
	h := NewHistory(defaultWindow)
	r := rand.New(rand.NewPCG(4, 4))
	for b.Loop() {
		h.Observe(time.Duration(r.Int64N(int64(time.Second))))
	}
}

// spin burns about units×15 ns of CPU (10 multiply-adds in a dependent
// chain per unit; 16.5 ns measured on the 2-core CI machine).
func spin(units float64) float64 {
	x := 1.0
	for i := 0; i < int(units*10); i++ {
		x = x*1.0000001 + 1e-9
	}
	return x
}

var spinSink float64

// runMeasured drives one loop the way any runner drives a Chunker: one
// goroutine per worker asking for chunks until Next says no. It returns the
// cost each worker ran, for the imbalance: measured in cost units rather
// than busy time, so that it shows the schedule's quality and not the noise
// of a shared machine.
func runMeasured(workers int, c Chunker, costs []float64, body func(lo, hi int)) []float64 {
	work := make([]float64, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for r, ok := c.Next(w); ok; r, ok = c.Next(w) {
				body(r.Lo, r.Hi)
				for _, x := range costs[r.Lo:r.Hi] {
					work[w] += x
				}
			}
		})
	}
	wg.Wait()
	return work
}

// BenchmarkScheduleUneven runs a loop of uneven iterations on 2 plain
// goroutines under each schedule and reports the makespan (ns/op) and the
// imbalance of the cost each worker ran (max/mean, averaged over runs).
// Workloads: "rising" costs grow linearly with the index (like Mandelbrot
// rows approaching the set), "lognormal" has a long tail (σ = 1.5). "lpt" is
// a static assignment by LPT with the costs known in advance. The static
// schedules' imbalance depends only on the costs; the dynamic ones' also on
// how much CPU each goroutine got, so on a loaded machine it shows them
// adapting to a worker that was not scheduled, not a flaw of the schedule.
func BenchmarkScheduleUneven(b *testing.B) {
	const n, workers = 2000, 2
	rising := make([]float64, n)
	for i := range rising {
		rising[i] = 20 * float64(i) / n
	}
	workloads := []struct {
		name  string
		costs []float64
	}{
		{"rising", rising},
		{"lognormal", lognormalCosts(n, 1.5, 5)},
	}
	schedules := []Schedule{Static{}, Static{Chunk: 8}, Dynamic{Chunk: 8}, Guided{}}
	for _, wl := range workloads {
		body := func(lo, hi int) {
			x := 0.0
			for i := lo; i < hi; i++ {
				x += spin(wl.costs[i] * 10)
			}
			spinSink = x
		}
		for _, s := range schedules {
			b.Run(fmt.Sprintf("%s/%v", wl.name, s), func(b *testing.B) {
				var imb float64
				for b.Loop() {
					imb += Imbalance(runMeasured(workers, s.Start(n, workers), wl.costs, body))
				}
				b.ReportMetric(imb/float64(b.N), "max/mean")
			})
		}
		b.Run(wl.name+"/lpt", func(b *testing.B) {
			a := LPT(wl.costs, workers)
			items := a.Items()
			for b.Loop() {
				var wg sync.WaitGroup
				for w := range workers {
					wg.Go(func() {
						for _, i := range items[w] {
							body(i, i+1)
						}
					})
				}
				wg.Wait()
			}
			b.ReportMetric(a.Imbalance(), "max/mean")
		})
	}
}

// BenchmarkLoopOverhead is the cost of Loop itself on an empty body.
func BenchmarkLoopOverhead(b *testing.B) {
	for _, s := range []Schedule{Static{}, Dynamic{Chunk: 64}, Guided{}} {
		b.Run(fmt.Sprint(s), func(b *testing.B) {
			for b.Loop() {
				Loop(context.Background(), 10000, 2, s, func(lo, hi int) {})
			}
		})
	}
}
