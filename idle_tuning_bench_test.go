package worksteal

import (
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/worksteal/worksteal/internal/proctest"
	"github.com/worksteal/worksteal/policy"
)

// idleSettings are the schedules BenchmarkIdleTuning compares: fixed
// rounds before parking (2, the default 8, 32) and the adaptive one.
var idleSettings = []struct {
	name string
	idle policy.Idle
}{
	{"fixed2", policy.Idle{Rounds: 2}},
	{"fixed8", policy.Idle{Rounds: 8}},
	{"fixed32", policy.Idle{Rounds: 32}},
	{"adaptive", policy.Idle{Adaptive: true}},
}

var spinSink atomic.Int64

// spinWork burns about n×10 ns of CPU.
func spinWork(n int) int {
	x := 1
	for i := range n {
		x = x*31 + i
	}
	return x
}

// bursty submits bursts of 32 small tasks (~20 µs each) with 200 µs gaps,
// in which the workers go idle and may park: a Submit workload whose cost
// is mostly waking up.
func bursty(p *Pool) {
	var wg sync.WaitGroup
	for range 40 {
		wg.Add(32)
		for range 32 {
			p.Submit(func(*Worker) { spinSink.Store(int64(spinWork(2000))); wg.Done() })
		}
		wg.Wait()
		time.Sleep(200 * time.Microsecond)
	}
}

// BenchmarkIdleTuning runs each workload with every idle schedule of
// idleSettings on 2 workers, the schedules interleaved in each of 5
// rounds (one run, so that the machine's load is shared alike), and
// reports each schedule's median ms per op and how far the adaptive one is
// from the best fixed one (adaptive-vs-best-%, positive: slower).
//
//	go test -run '^$' -bench IdleTuning -benchtime 1x .
func BenchmarkIdleTuning(b *testing.B) {
	workloads := []struct {
		name string
		op   func(p *Pool)
	}{
		{"fib27", func(p *Pool) { Run(p, func(w *Worker) int { return fibJoin(w, 27) }) }},
		{"fib-grain", func(p *Pool) { // fine-grained, many idle stretches: 200 small joins in a row
			for range 200 {
				Run(p, func(w *Worker) int { return fibJoin(w, 12) })
			}
		}},
		{"bursty-submit", bursty},
	}
	const rounds = 5
	for _, wl := range workloads {
		b.Run(wl.name, func(b *testing.B) {
			for range b.N {
				ms := make([][]float64, len(idleSettings))
				for range rounds {
					for i, s := range idleSettings {
						p, err := New(Config{Workers: 2, Idle: s.idle})
						if err != nil {
							b.Fatal(err)
						}
						wl.op(p) // warm
						t0 := time.Now()
						for range 3 {
							wl.op(p)
						}
						ms[i] = append(ms[i], float64(time.Since(t0).Microseconds())/3e3)
						p.Close()
					}
				}
				best := 0.0
				var med []float64
				for i, s := range idleSettings {
					slices.Sort(ms[i])
					m := ms[i][len(ms[i])/2]
					med = append(med, m)
					b.ReportMetric(m, s.name+"-ms")
					if s.idle.Adaptive {
						continue
					}
					if best == 0 || m < best {
						best = m
					}
				}
				b.ReportMetric(100*(med[len(med)-1]/best-1), "adaptive-vs-best-%")
				b.Logf("ms per op, %d rounds: %v", rounds, fmt.Sprint(ms))
			}
		})
	}
}

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
