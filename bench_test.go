package worksteal

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/worksteal/worksteal/internal/proctest"
)

const fib30Joins = 1346268 // fib(31) − 1

// BenchmarkJoin measures fork-join overhead on fib(30), a join at every call.
// ns/join = time per op / joins; compare with seq to get the cost of one
// join nobody steals: (ns/join at workers=1) − (ns/join of seq).
func BenchmarkJoin(b *testing.B) {
	// cpu-ns/join divides the process's CPU time instead of the wall time:
	// on a loaded machine it is the steadier of the two at 1 worker.
	cpu := func(b *testing.B, c0 time.Duration) {
		if c := proctest.CPUTime(); c >= 0 {
			b.ReportMetric(float64(c-c0)/float64(b.N)/fib30Joins, "cpu-ns/join")
		}
	}
	b.Run("seq", func(b *testing.B) {
		c0 := proctest.CPUTime()
		for b.Loop() {
			fibSeq(30)
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/fib30Joins, "ns/join")
		cpu(b, c0)
	})
	for _, workers := range []int{1, 2} {
		p := newTestPool(b, Config{Workers: workers})
		b.Run(fmt.Sprintf("JoinFunc/workers=%d", workers), func(b *testing.B) {
			b.ReportAllocs()
			before := p.Stats()
			c0 := proctest.CPUTime()
			for b.Loop() {
				Run(p, func(w *Worker) int { return fibJoin(w, 30) })
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/fib30Joins, "ns/join")
			if workers == 1 {
				cpu(b, c0)
			}
			b.ReportMetric(float64(p.Stats().Sub(before).Total().Stolen)/float64(b.N), "steals/op")
		})
		b.Run(fmt.Sprintf("Join/workers=%d", workers), func(b *testing.B) {
			b.ReportAllocs()
			c0 := proctest.CPUTime()
			for b.Loop() {
				Run(p, func(w *Worker) int { return fibClosure(w, 30) })
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/fib30Joins, "ns/join")
			if workers == 1 {
				cpu(b, c0)
			}
		})
	}
}

func fibClosure(w *Worker, n int) int {
	if n < 2 {
		return n
	}
	a, b := Join(w,
		func(w *Worker) int { return fibClosure(w, n-2) },
		func(w *Worker) int { return fibClosure(w, n-1) })
	return a + b
}

// BenchmarkStatsOverhead compares fib(30) on one worker with the counters
// on and off (Config.NoStats). The target is under 3%.
func BenchmarkStatsOverhead(b *testing.B) {
	for _, noStats := range []bool{false, true} {
		p := newTestPool(b, Config{Workers: 1, NoStats: noStats})
		b.Run(fmt.Sprintf("stats=%v", !noStats), func(b *testing.B) {
			for b.Loop() {
				Run(p, func(w *Worker) int { return fibJoin(w, 30) })
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/fib30Joins, "ns/join")
		})
	}
}

// BenchmarkWakeLatency measures the time from Submit to the task starting
// on a pool whose workers are all parked (each op first waits until every
// worker has parked). Reports p50 and p99 in µs.
func BenchmarkWakeLatency(b *testing.B) {
	p := newTestPool(b, Config{})
	lat := make([]time.Duration, 0, 1024)
	started := make(chan time.Duration, 1)
	for b.Loop() {
		waitAllParked(p)
		t0 := time.Now()
		p.Submit(func(*Worker) { started <- time.Since(t0) })
		lat = append(lat, <-started)
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Nanoseconds())/1e3, "p50-µs")
	b.ReportMetric(float64(lat[len(lat)*99/100].Nanoseconds())/1e3, "p99-µs")
}

// waitAllParked spins until every worker of p is in the idle list.
func waitAllParked(p *Pool) {
	for {
		sleepers, searching := counts(p.sleep.state.Load())
		if int(sleepers) == p.Workers() && searching == 0 {
			return
		}
		time.Sleep(50 * time.Microsecond)
	}
}

// BenchmarkIdleCPU measures the CPU the process burns while a pool sits idle
// for 100 ms after a burst of work (including the search before parking).
// Reports the share of one core; the target is under 1%.
func BenchmarkIdleCPU(b *testing.B) {
	if proctest.CPUTime() < 0 {
		b.Skip("the process's CPU time is not available on this system (cputime_*_test.go)")
	}
	p := newTestPool(b, Config{})
	var share float64
	for b.Loop() {
		Run(p, func(w *Worker) int { return fibJoin(w, 20) })
		time.Sleep(5 * time.Millisecond) // let the workers park
		c0 := proctest.CPUTime()
		t0 := time.Now()
		time.Sleep(100 * time.Millisecond)
		share += float64(proctest.CPUTime()-c0) / float64(time.Since(t0))
	}
	b.ReportMetric(100*share/float64(b.N), "%core")
}
