package worksteal

import (
	"runtime"
	"slices"
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

// BenchmarkResizeUnderNeighbour: a 2-worker pool runs 4,000 leaves of
// 1 ms of CPU (a Join tree, leaves polling every 50 µs) beside a CPU-bound
// one-thread neighbour process. 500 ms in, the program lowers the pool to
// one worker (what the governor does when it decides: Pool.SetWorkers).
// Reported, medians over the runs:
//
//   - handback-ms: from SetWorkers(1) until worker 1 stops running tasks
//     (its progress word shows it idle: waiting at a join as surplus, or
//     retired), sampled every 100 µs;
//   - nb-before, nb-after: the neighbour's work units per second in the
//     500 ms before the decision and in the 500 ms from 100 ms after it,
//     as a share of its rate alone on the machine (nb-solo).
//
// Run: go test -run '^$' -bench ResizeUnderNeighbour -benchtime 3x .
func BenchmarkResizeUnderNeighbour(b *testing.B) {
	if runtime.NumCPU() < 2 {
		b.Skip("needs 2 CPUs")
	}
	nb := startNeighbour(b)
	defer nb.stop()
	rate := func(d time.Duration) float64 {
		u0, t0 := nb.units(b), time.Now()
		time.Sleep(d)
		return float64(nb.units(b)-u0) / time.Since(t0).Seconds()
	}
	time.Sleep(200 * time.Millisecond)
	solo := rate(time.Second)
	var handback, before, after []float64
	for range b.N {
		p, err := New(Config{Workers: 2})
		if err != nil {
			b.Fatal(err)
		}
		done := make(chan struct{})
		go func() {
			defer close(done)
			Run(p, func(w *Worker) int {
				rangeJoin(w, 0, 4000, func(w *Worker, _ int) { burnPolling(w, time.Millisecond) })
				return 0
			})
		}()
		time.Sleep(100 * time.Millisecond) // both workers busy
		before = append(before, rate(400*time.Millisecond)/solo)
		w1 := p.workers[1]
		t0 := time.Now()
		if err := p.SetWorkers(1); err != nil {
			b.Fatal(err)
		}
		for w1.mon.Load()&monIdle == 0 && time.Since(t0) < 10*time.Second {
			time.Sleep(100 * time.Microsecond)
		}
		handback = append(handback, float64(time.Since(t0).Microseconds())/1000)
		time.Sleep(100*time.Millisecond - time.Since(t0))
		after = append(after, rate(500*time.Millisecond)/solo)
		p.SetWorkers(2)
		<-done
		p.Close()
	}
	med := func(xs []float64) float64 {
		s := slices.Clone(xs)
		slices.Sort(s)
		return s[len(s)/2]
	}
	b.ReportMetric(med(handback), "handback-ms")
	b.ReportMetric(med(before), "nb-before")
	b.ReportMetric(med(after), "nb-after")
	b.ReportMetric(solo, "nb-solo-units/s")
	b.Logf("handback ms %v; neighbour share before %v, after %v", handback, before, after)
}
