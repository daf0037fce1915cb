package bench

import (
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/worksteal/worksteal"
	"github.com/worksteal/worksteal/internal/proctest"
	"github.com/worksteal/worksteal/par"
)

// The parallel-loop benchmarks of the loop issue, at the anchor sizes:
//
//	go test -run '^$' -bench 'MapReduce|Sort|Mandel|SmallLoop|Grain' ./internal/bench/
//
// Each runs at 1 and 2 workers (GOMAXPROCS set to match for the goroutine
// baselines), or at the counts listed in WS_BENCH_WORKERS (e.g.
// "1,2,4,8,16"), and checks its result
// against the anchors' reference.

// benchWorkers is the worker counts the loop benchmarks run at.
func benchWorkers() []int {
	v := os.Getenv("WS_BENCH_WORKERS")
	if v == "" {
		return []int{1, 2}
	}
	var ws []int
	for _, f := range strings.Split(v, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			panic(fmt.Sprintf("WS_BENCH_WORKERS=%q: %q is not a worker count", v, f))
		}
		ws = append(ws, n)
	}
	return ws
}

func withProcs(b *testing.B, n int, f func(b *testing.B)) {
	old := runtime.GOMAXPROCS(n)
	defer runtime.GOMAXPROCS(old)
	f(b)
}

// cpuLoop runs body in a b.Loop and reports the process's CPU time per
// iteration (cpu-ms/op: every thread, idle workers' searching included): on
// the shared 2-core box, where other processes take turns on the cores, it
// moves much less than the wall time. It also reports the median
// iteration after the first (p50-ms), as the anchor suite's harness times
// its repetitions after a warm-up: ns/op includes the first iteration on
// a fresh pool, and one slow iteration in ten moves the mean.
func cpuLoop(b *testing.B, body func()) {
	c0 := proctest.CPUTime()
	var ds []time.Duration
	for b.Loop() {
		t0 := time.Now()
		body()
		ds = append(ds, time.Since(t0))
	}
	if c0 >= 0 {
		b.ReportMetric(float64(proctest.CPUTime()-c0)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
	}
	if len(ds) > 1 {
		ds = ds[1:]
		slices.Sort(ds)
		b.ReportMetric(float64(ds[len(ds)/2])/float64(time.Millisecond), "p50-ms")
	}
}

func wsPool(b *testing.B, workers int) *worksteal.Pool {
	p, err := worksteal.New(worksteal.Config{Workers: workers})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { p.Close() })
	return p
}

func BenchmarkMapReduce(b *testing.B) {
	n := MapReduceN
	check := func(b *testing.B, got uint64) {
		if got != MapReduceResult {
			b.Fatalf("map-reduce = %d; want %d", got, uint64(MapReduceResult))
		}
	}
	b.Run("impl=go-seq/workers=1", func(b *testing.B) {
		cpuLoop(b, func() { check(b, MapReduceSeq(0, uint64(n))) })
	})
	// leaf=mulhi: the leaf written as LLVM compiles rayon's
	// (MapReduceMulhiSeq), so that go-seq runs level with rust-seq.
	b.Run("impl=go-seq/leaf=mulhi/workers=1", func(b *testing.B) {
		cpuLoop(b, func() { check(b, MapReduceMulhiSeq(0, uint64(n))) })
	})
	for _, workers := range benchWorkers() {
		b.Run(fmt.Sprintf("impl=ws/workers=%d", workers), func(b *testing.B) {
			p := wsPool(b, workers)
			cpuLoop(b, func() {
				v, _ := worksteal.Run(p, func(w *worksteal.Worker) uint64 { return MapReduceWS(w, n) })
				check(b, v)
			})
		})
		b.Run(fmt.Sprintf("impl=ws/leaf=mulhi/workers=%d", workers), func(b *testing.B) {
			p := wsPool(b, workers)
			cpuLoop(b, func() {
				v, _ := worksteal.Run(p, func(w *worksteal.Worker) uint64 { return mapReduceWS(w, n, MapReduceMulhiSeq) })
				check(b, v)
			})
		})
		b.Run(fmt.Sprintf("impl=go-static/workers=%d", workers), func(b *testing.B) {
			withProcs(b, workers, func(b *testing.B) {
				cpuLoop(b, func() { check(b, MapReduceStatic(n)) })
			})
		})
		b.Run(fmt.Sprintf("impl=go-counter/workers=%d", workers), func(b *testing.B) {
			withProcs(b, workers, func(b *testing.B) {
				for b.Loop() {
					check(b, MapReduceCounter(n))
				}
			})
		})
	}
}

func BenchmarkMandel(b *testing.B) {
	check := func(b *testing.B, got int64) {
		if got != MandelResult {
			b.Fatalf("mandel = %d; want %d", got, MandelResult)
		}
	}
	b.Run("impl=go-seq/workers=1", func(b *testing.B) {
		cpuLoop(b, func() { check(b, MandelSeq(MandelSize)) })
	})
	// leaf=unrolled: the escape loop unrolled by two as LLVM unrolls
	// rayon's (MandelRowUnrolled).
	b.Run("impl=go-seq/leaf=unrolled/workers=1", func(b *testing.B) {
		cpuLoop(b, func() { check(b, mandelSeq(MandelSize, MandelRowUnrolled)) })
	})
	for _, workers := range benchWorkers() {
		b.Run(fmt.Sprintf("impl=ws/workers=%d", workers), func(b *testing.B) {
			p := wsPool(b, workers)
			cpuLoop(b, func() {
				v, _ := worksteal.Run(p, func(w *worksteal.Worker) int64 { return MandelWS(w, MandelSize) })
				check(b, v)
			})
		})
		b.Run(fmt.Sprintf("impl=ws/leaf=unrolled/workers=%d", workers), func(b *testing.B) {
			p := wsPool(b, workers)
			cpuLoop(b, func() {
				v, _ := worksteal.Run(p, func(w *worksteal.Worker) int64 { return mandelWS(w, MandelSize, MandelRowUnrolled) })
				check(b, v)
			})
		})
		for _, impl := range []struct {
			name string
			f    func(int) int64
		}{{"go-static", MandelStatic}, {"go-per-item", MandelPerItem}, {"go-counter", MandelCounter}} {
			b.Run(fmt.Sprintf("impl=%s/workers=%d", impl.name, workers), func(b *testing.B) {
				withProcs(b, workers, func(b *testing.B) {
					for b.Loop() {
						check(b, impl.f(MandelSize))
					}
				})
			})
		}
	}
}

func BenchmarkSort(b *testing.B) {
	input := SortInput(SortN)
	a := make([]uint64, len(input))
	run := func(b *testing.B, sort func([]uint64)) {
		var cpu time.Duration
		for b.Loop() {
			b.StopTimer()
			copy(a, input)
			b.StartTimer()
			c0 := proctest.CPUTime()
			sort(a)
			cpu += proctest.CPUTime() - c0
		}
		b.StopTimer()
		if cpu >= 0 {
			b.ReportMetric(float64(cpu)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
		}
		if got := SortCheck(a); got != SortResult {
			b.Fatalf("sort check = %d; want %d", got, uint64(SortResult))
		}
	}
	b.Run("impl=go-seq/workers=1", func(b *testing.B) { run(b, slices.Sort[[]uint64]) })
	for _, workers := range benchWorkers() {
		p := wsPool(b, workers)
		b.Run(fmt.Sprintf("impl=ws-radix/workers=%d", workers), func(b *testing.B) {
			run(b, func(s []uint64) {
				worksteal.Run(p, func(w *worksteal.Worker) int { par.Sort(w, s); return 0 })
			})
		})
		b.Run(fmt.Sprintf("impl=ws-merge/workers=%d", workers), func(b *testing.B) {
			run(b, func(s []uint64) {
				worksteal.Run(p, func(w *worksteal.Worker) int {
					par.SortFunc(w, s, func(x, y uint64) int {
						switch {
						case x < y:
							return -1
						case x > y:
							return 1
						}
						return 0
					})
					return 0
				})
			})
		})
	}
}

// BenchmarkGrain compares the adaptive loop (no grain argument) with fixed
// grains (recursive halving down to the grain, like oneTBB's
// simple_partitioner) at 2 workers, on uniform work (the map-reduce) and on
// skewed work (the Mandelbrot rows).
func BenchmarkGrain(b *testing.B) {
	p := wsPool(b, 2)
	b.Run("work=uniform/grain=adaptive", func(b *testing.B) {
		for b.Loop() {
			worksteal.Run(p, func(w *worksteal.Worker) uint64 { return MapReduceWS(w, MapReduceN) })
		}
	})
	for _, g := range []int{1_000, 10_000, 100_000, 1_000_000, 10_000_000} {
		b.Run(fmt.Sprintf("work=uniform/grain=%d", g), func(b *testing.B) {
			for b.Loop() {
				worksteal.Run(p, func(w *worksteal.Worker) int64 {
					return FixedGrain(w, 0, MapReduceN, g, func(lo, hi int) int64 { return int64(MapReduceSeq(uint64(lo), uint64(hi))) })
				})
			}
		})
	}
	b.Run("work=mandel/grain=adaptive", func(b *testing.B) {
		for b.Loop() {
			worksteal.Run(p, func(w *worksteal.Worker) int64 { return MandelWS(w, MandelSize) })
		}
	})
	for _, g := range []int{1, 4, 16, 64, 250} {
		b.Run(fmt.Sprintf("work=mandel/grain=%d", g), func(b *testing.B) {
			for b.Loop() {
				worksteal.Run(p, func(w *worksteal.Worker) int64 {
					return FixedGrain(w, 0, MandelSize, g, func(lo, hi int) int64 {
						var s int64
						for py := lo; py < hi; py++ {
							s += MandelRow(py, MandelSize)
						}
						return s
					})
				})
			}
		})
	}
}

// spinFor busy-waits for d.
func spinFor(d time.Duration) {
	t0 := time.Now()
	for time.Since(t0) < d {
	}
}

// BenchmarkSmallLoop: a loop over 10 items of 1 µs each must cost no more
// than running them sequentially plus a few µs. Reports the overhead.
func BenchmarkSmallLoop(b *testing.B) {
	b.Run("impl=go-seq", func(b *testing.B) {
		for b.Loop() {
			for i := 0; i < 10; i++ {
				spinFor(time.Microsecond)
			}
		}
	})
	for _, workers := range benchWorkers() {
		p := wsPool(b, workers)
		b.Run(fmt.Sprintf("impl=ws-inside-pool/workers=%d", workers), func(b *testing.B) {
			// Measured inside one task, so the cost of entering the pool
			// from outside (Run) is not counted.
			worksteal.Run(p, func(w *worksteal.Worker) int {
				for b.Loop() {
					par.For(w, 0, 10, func(*worksteal.Worker, int) { spinFor(time.Microsecond) })
				}
				return 0
			})
		})
	}
}
