package bench

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/worksteal/worksteal"
	"github.com/worksteal/worksteal/par"
)

// BenchmarkMandelLost times every row of Mandelbrot (the unrolled leaf,
// MandelRowUnrolled, which runs as fast as the code LLVM makes of rayon's)
// inside the parallel run, and reports where the workers' time outside
// the rows goes, per run:
//
//   - wall-ms: the run's wall time (ns/op also counts the warm-up run);
//   - lost-ms: workers × wall − the rows' time, summed over the workers;
//   - start-ms: from the run's start to each worker's first row;
//   - between-ms: between one row's end and the next row's start on the
//     same worker (splits, steals, and waits for work in the middle);
//   - end-ms: from each worker's last row to the run's end (the loop's
//     end, where one worker runs the last row while the others have
//     nothing left, and the return to the caller);
//   - gaps-over-100us: how many of the between-gaps exceeded 100 µs.
//
// impl=ws is par.ReduceRange, as the anchor suite's go-ws; impl=go-counter
// is two goroutines taking rows from an atomic counter in index order,
// with no scheduler. scripts/mandel-lost.sh runs it beside rayon timed the
// same way (scripts/mandel-lost-rayon prints the same lines), alternating
// the languages, so benchstat -col /impl puts the three side by side.
//
//	go test -run '^$' -bench MandelLost -count 8 ./internal/bench/
func BenchmarkMandelLost(b *testing.B) {
	for _, workers := range benchWorkers() {
		if workers < 2 {
			continue
		}
		b.Run(fmt.Sprintf("impl=ws/leaf=unrolled/workers=%d", workers), func(b *testing.B) {
			p := wsPool(b, workers)
			rt := newRowTimes(workers)
			rt.loop(b, func() int64 {
				v, _ := worksteal.Run(p, func(w *worksteal.Worker) int64 {
					return par.ReduceRange(w, 0, MandelSize, 0, func(w *worksteal.Worker, lo, hi int, acc int64) int64 {
						for py := lo; py < hi; py++ {
							acc += rt.row(w.ID(), py)
						}
						return acc
					}, addI64)
				})
				return v
			})
		})
		b.Run(fmt.Sprintf("impl=go-counter/leaf=unrolled/workers=%d", workers), func(b *testing.B) {
			withProcs(b, workers, func(b *testing.B) {
				rt := newRowTimes(workers)
				rt.loop(b, func() int64 {
					var next, sum atomic.Int64
					var wg sync.WaitGroup
					for id := range workers {
						wg.Go(func() {
							var s int64
							for {
								py := int(next.Add(1) - 1)
								if py >= MandelSize {
									break
								}
								s += rt.row(id, py)
							}
							sum.Add(s)
						})
					}
					wg.Wait()
					return sum.Load()
				})
			})
		})
	}
}

// rowTimes is the per-worker record of one run's rows (BenchmarkMandelLost).
// Slot k is written only by the goroutine of worker k while the run lasts,
// and read by the benchmark after the run has returned (worksteal.Run and
// WaitGroup.Wait order the two).
type rowTimes struct {
	base  time.Time
	slots []rowSlot
}

// rowSlot is one worker's record, in nanoseconds since rowTimes.base; a
// cache line of its own, so the workers' records do not share one.
type rowSlot struct {
	first, last, busy, between, bigGaps int64
	_                                   [64 - 5*8]byte
}

func newRowTimes(workers int) *rowTimes {
	return &rowTimes{base: time.Now(), slots: make([]rowSlot, workers)}
}

// row runs row py on worker id and records its time.
func (rt *rowTimes) row(id, py int) int64 {
	s := int64(time.Since(rt.base))
	v := MandelRowUnrolled(py, MandelSize)
	e := int64(time.Since(rt.base))
	sl := &rt.slots[id]
	if sl.last == 0 {
		sl.first = s
	} else {
		gap := s - sl.last
		sl.between += gap
		if gap > int64(100*time.Microsecond) {
			sl.bigGaps++
		}
	}
	sl.last = e
	sl.busy += e - s
	return v
}

// loop runs body in a b.Loop, checks its result, and reports the run's
// time outside the rows (BenchmarkMandelLost) as means over the runs
// after the first (a warm-up, as the anchor suite's harness has: the first
// run wakes a fresh pool and starts its threads).
func (rt *rowTimes) loop(b *testing.B, body func() int64) {
	// Per run: wall, lost, start, between, end (ns) and gaps over 100 µs.
	var runs [][6]int64
	for b.Loop() {
		clear(rt.slots)
		t0 := int64(time.Since(rt.base))
		if got := body(); got != MandelResult {
			b.Fatalf("mandel = %d; want %d", got, MandelResult)
		}
		t1 := int64(time.Since(rt.base))
		r := [6]int64{t1 - t0}
		for _, sl := range rt.slots {
			if sl.last == 0 { // a worker that ran no row: all of the run lost
				r[1] += t1 - t0
				r[2] += t1 - t0
				continue
			}
			r[1] += t1 - t0 - sl.busy
			r[2] += sl.first - t0
			r[3] += sl.between
			r[4] += t1 - sl.last
			r[5] += sl.bigGaps
		}
		runs = append(runs, r)
	}
	if len(runs) > 1 {
		runs = runs[1:] // the warm-up
	}
	var sum [6]int64
	for _, r := range runs {
		for i, v := range r {
			sum[i] += v
		}
	}
	n := float64(len(runs))
	for i, unit := range []string{"wall-ms/op", "lost-ms/op", "start-ms/op", "between-ms/op", "end-ms/op"} {
		b.ReportMetric(float64(sum[i])/float64(time.Millisecond)/n, unit)
	}
	b.ReportMetric(float64(sum[5])/n, "gaps-over-100us/op")
}
