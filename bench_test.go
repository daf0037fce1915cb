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
		// The other forms, each on fib 30 like JoinFunc's row.
		for _, form := range []struct {
			name string
			fib  func(w *Worker) int
		}{
			{"JoinFuncLazy", func(w *Worker) int { return fibLazy(w, 30) }},
			{"Unit", func(w *Worker) int { var r int; fibUnit(w, 30, &r); return r }},
			{"UnitStruct", func(w *Worker) int { var r int; fibUnitStruct(w, 30, &r); return r }},
			{"Join", func(w *Worker) int { return fibClosure(w, 30) }},
		} {
			b.Run(fmt.Sprintf("%s/workers=%d", form.name, workers), func(b *testing.B) {
				b.ReportAllocs()
				c0 := proctest.CPUTime()
				for b.Loop() {
					Run(p, form.fib)
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/fib30Joins, "ns/join")
				if workers == 1 {
					cpu(b, c0)
				}
			})
		}
	}
}

// BenchmarkJoinVsCall is the Join's cost measured so that a loaded
// machine barely moves it: one task on a 1-worker pool times fibJoin(23)
// and fibSeq(23) alternately, 25 times each per op, and reports the
// fastest of each over the whole run — short enough (0.1–0.3 ms) to fit
// between two preemptions — as x-call (fibJoin ÷ fibSeq) and ns/join
// ((fibJoin − fibSeq) / Joins). PROTOCOL.md "What a Join costs" quotes it.
func BenchmarkJoinVsCall(b *testing.B) {
	const n, joins = 23, 46367 // fib(24) − 1
	p := newTestPool(b, Config{Workers: 1})
	best := [2]time.Duration{time.Hour, time.Hour}
	sink := 0
	for b.Loop() {
		Run(p, func(w *Worker) int {
			for range 25 {
				t0 := time.Now()
				sink += fibJoin(w, n)
				t1 := time.Now()
				sink += fibSeq(n)
				t2 := time.Now()
				best[0], best[1] = min(best[0], t1.Sub(t0)), min(best[1], t2.Sub(t1))
			}
			return 0
		})
	}
	if sink == 0 {
		b.Fatal("no result")
	}
	b.ReportMetric(float64(best[0])/float64(best[1]), "x-call")
	b.ReportMetric(float64(best[0]-best[1])/joins, "ns/join")
}

// fibLazy is fib through JoinFuncLazy: a frame pushed and popped at every
// Join, and no poll, so at 2 workers nothing is ever offered (fib neither
// waits nor polls) and the second worker stays idle.
func fibLazy(w *Worker, n int) int {
	if n < 2 {
		return n
	}
	a, b := JoinFuncLazy(w, fibLazy, n-2, fibLazy, n-1)
	return a + b
}

// fibUnit is fib through Worker.Join, the form whose halves return
// nothing: each half writes its result through a pointer.
func fibUnit(w *Worker, n int, r *int) {
	if n < 2 {
		*r = n
		return
	}
	var a, b int
	w.Join(func(w *Worker) { fibUnit(w, n-2, &a) }, func(w *Worker) { fibUnit(w, n-1, &b) })
	*r = a + b
}

// fibUnitStruct is fibUnit as it was written before Worker.Join: Join
// with struct{} results.
func fibUnitStruct(w *Worker, n int, r *int) {
	if n < 2 {
		*r = n
		return
	}
	var a, b int
	Join(w, func(w *Worker) struct{} { fibUnitStruct(w, n-2, &a); return struct{}{} },
		func(w *Worker) struct{} { fibUnitStruct(w, n-1, &b); return struct{}{} })
	*r = a + b
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

// BenchmarkJoinArgSize measures what the size of JoinFunc's arguments
// costs: a binary tree of 2^20 leaves split over a span of 8, 16 and 24
// bytes (two, three and five words), each beside the same recursion with
// plain calls. join−seq of a size is the cost of one join with arguments of
// that size. JoinFunc's five arguments fit in Go's nine integer argument
// registers up to three words each; a five-word span goes through memory.
func BenchmarkJoinArgSize(b *testing.B) {
	const leaves = 1 << 20
	p := newTestPool(b, Config{Workers: 1})
	per := func(b *testing.B) {
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/(leaves-1), "ns/join")
	}
	cases := []struct {
		name string
		seq  func() uint64
		join func(w *Worker) uint64
	}{
		{"8B", func() uint64 { return span8Seq(span8{0, leaves}) }, func(w *Worker) uint64 { return span8Join(w, span8{0, leaves}) }},
		{"16B", func() uint64 { return span16Seq(span16{1, 0, leaves}) }, func(w *Worker) uint64 { return span16Join(w, span16{1, 0, leaves}) }},
		{"24B", func() uint64 { return span24Seq(span24{1, 0, leaves, 1, 1}) }, func(w *Worker) uint64 { return span24Join(w, span24{1, 0, leaves, 1, 1}) }},
	}
	for _, c := range cases {
		if got, err := Run(p, c.join); err != nil || got != c.seq() {
			b.Fatalf("%s: join tree %d (%v), plain recursion %d", c.name, got, err, c.seq())
		}
		b.Run(c.name+"/seq", func(b *testing.B) {
			for b.Loop() {
				c.seq()
			}
			per(b)
		})
		b.Run(c.name+"/join", func(b *testing.B) {
			for b.Loop() {
				Run(p, c.join)
			}
			per(b)
		})
	}
}

type span8 struct{ lo, hi int32 }

func span8Seq(s span8) uint64 {
	if s.hi-s.lo == 1 {
		return uint64(s.lo)
	}
	mid := s.lo + (s.hi-s.lo)/2
	return span8Seq(span8{s.lo, mid}) + span8Seq(span8{mid, s.hi})
}

func span8Join(w *Worker, s span8) uint64 {
	if s.hi-s.lo == 1 {
		return uint64(s.lo)
	}
	mid := s.lo + (s.hi-s.lo)/2
	a, c := JoinFunc(w, span8Join, span8{s.lo, mid}, span8Join, span8{mid, s.hi})
	return a + c
}

type span16 struct {
	h      uint64
	lo, hi int32
}

func span16Seq(s span16) uint64 {
	if s.hi-s.lo == 1 {
		return s.h + uint64(s.lo)
	}
	mid := s.lo + (s.hi-s.lo)/2
	return span16Seq(span16{s.h, s.lo, mid}) + span16Seq(span16{s.h, mid, s.hi})
}

func span16Join(w *Worker, s span16) uint64 {
	if s.hi-s.lo == 1 {
		return s.h + uint64(s.lo)
	}
	mid := s.lo + (s.hi-s.lo)/2
	a, c := JoinFunc(w, span16Join, span16{s.h, s.lo, mid}, span16Join, span16{s.h, mid, s.hi})
	return a + c
}

type span24 struct {
	h            uint64
	lo, hi, x, y int32
}

func span24Seq(s span24) uint64 {
	if s.hi-s.lo == 1 {
		return s.h + uint64(s.lo)
	}
	mid := s.lo + (s.hi-s.lo)/2
	return span24Seq(span24{s.h, s.lo, mid, s.x, s.y}) + span24Seq(span24{s.h, mid, s.hi, s.x, s.y})
}

func span24Join(w *Worker, s span24) uint64 {
	if s.hi-s.lo == 1 {
		return s.h + uint64(s.lo)
	}
	mid := s.lo + (s.hi-s.lo)/2
	a, c := JoinFunc(w, span24Join, span24{s.h, s.lo, mid, s.x, s.y}, span24Join, span24{s.h, mid, s.hi, s.x, s.y})
	return a + c
}
