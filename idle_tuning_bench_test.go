package worksteal

import (
	"slices"
	"testing"
	"time"

	"github.com/worksteal/worksteal/internal/proctest"
	"github.com/worksteal/worksteal/policy"
)

// BenchmarkIdleAdaptive is BenchmarkIdleCPU and BenchmarkWakeLatency with
// Idle.Adaptive: the idle pool's share of a core (target < 1 %) and the
// wake-up latency of a parked pool (target p99 ≤ 50 µs).
func BenchmarkIdleAdaptive(b *testing.B) {
	b.Run("IdleCPU", func(b *testing.B) {
		if proctest.CPUTime() < 0 {
			b.Skip("the process's CPU time is not available on this system")
		}
		p := newTestPool(b, Config{Idle: policy.Idle{Adaptive: true}})
		var share float64
		for b.Loop() {
			Run(p, func(w *Worker) int { return fibJoin(w, 20) })
			time.Sleep(5 * time.Millisecond)
			c0 := proctest.CPUTime()
			t0 := time.Now()
			time.Sleep(100 * time.Millisecond)
			share += float64(proctest.CPUTime()-c0) / float64(time.Since(t0))
		}
		b.ReportMetric(100*share/float64(b.N), "%core")
	})
	b.Run("WakeLatency", func(b *testing.B) {
		p := newTestPool(b, Config{Idle: policy.Idle{Adaptive: true}})
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
	})
}
