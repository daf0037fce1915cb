package par

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/worksteal/worksteal"
)

// SortFunc's quicksort on the inputs that break naive pivots and
// partitions: sorted, reversed, all equal, two values, organ pipe, and
// random, on 1 and 2 workers, above the sequential cut-off.
func TestSortFuncShapes(t *testing.T) {
	n := 50_000
	shapes := map[string]func(i int) int{
		"sorted":    func(i int) int { return i },
		"reversed":  func(i int) int { return n - i },
		"equal":     func(int) int { return 7 },
		"two":       func(i int) int { return i % 2 },
		"organpipe": func(i int) int { return min(i, n-i) },
		"random":    func(i int) int { return int(rand.Uint64() >> 1) },
	}
	for _, workers := range []int{1, 2} {
		p := newTestPool(t, worksteal.Config{Workers: workers})
		for name, f := range shapes {
			s := make([]int, n)
			for i := range s {
				s[i] = f(i)
			}
			want := slices.Clone(s)
			slices.Sort(want)
			worksteal.Run(p, func(w *worksteal.Worker) int { SortFunc(w, s, cmp.Compare[int]); return 0 })
			if !slices.Equal(s, want) {
				t.Errorf("workers=%d %s: SortFunc result differs from slices.Sort", workers, name)
			}
		}
	}
}

// On one active worker, and below the sequential cut-off on any number,
// SortFunc is slices.SortFunc and nothing else (issue 30: at 1 worker it
// must be at least as fast): the same comparisons in the same order, so
// the same permutation of equal keys and the same number of calls to cmp,
// no extra pass over the data. Keys collide (values 0..999) so that an
// unstable sort's placement of equal keys tells the algorithms apart.
func TestSortFuncOnOneWorkerIsSlicesSortFunc(t *testing.T) {
	type rec struct{ key, pos int }
	p1 := newTestPool(t, worksteal.Config{Workers: 1})
	p2 := newTestPool(t, worksteal.Config{Workers: 2})
	for _, tc := range []struct {
		name string
		p    *worksteal.Pool
		n    int
	}{
		{"1 worker", p1, 200_000},
		{"2 workers, at the cut-off", p2, quickSeqMax},
	} {
		r := rand.New(rand.NewPCG(30, uint64(tc.n)))
		in := make([]rec, tc.n)
		for i := range in {
			in[i] = rec{r.IntN(1000), i}
		}
		var calls [2]int
		counting := func(k int) func(a, b rec) int {
			return func(a, b rec) int { calls[k]++; return cmp.Compare(a.key, b.key) }
		}
		want := slices.Clone(in)
		slices.SortFunc(want, counting(0))
		got := slices.Clone(in)
		worksteal.Run(tc.p, func(w *worksteal.Worker) int { SortFunc(w, got, counting(1)); return 0 })
		if !slices.Equal(got, want) || calls[1] != calls[0] {
			t.Errorf("%s: SortFunc made %d comparisons (slices.SortFunc %d), same order: %v; want slices.SortFunc's exactly",
				tc.name, calls[1], calls[0], slices.Equal(got, want))
		}
	}
}

// benchSort times sort on copies of input (in a), reporting wall ms/op
// and the process's CPU ms/op.
func benchSort(b *testing.B, input, a []int, sort func([]int)) {
	var cpu time.Duration
	cpuOK := true
	for b.Loop() {
		b.StopTimer()
		copy(a, input)
		c0, ok0 := processCPU()
		b.StartTimer()
		sort(a)
		b.StopTimer()
		c1, ok1 := processCPU()
		cpu += c1 - c0
		cpuOK = cpuOK && ok0 && ok1
		b.StartTimer()
	}
	b.StopTimer()
	if !slices.IsSorted(a) {
		b.Fatal("not sorted")
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/op")
	if cpuOK {
		// The process's CPU time: on a loaded machine a sort waits
		// for a CPU part of its wall time; its CPU time does not
		// (for the 1-worker comparison; at 2 workers it includes
		// the idle worker's search).
		b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/op")
	}
}

// BenchmarkSortFuncOneWorker: the pair for issue 30's "par.SortFunc at 1
// worker at least as fast as slices.SortFunc", on 1 M random ints, as
// benchstat compares it within one run (-count interleaves the
// sub-benchmarks):
//
//	go test -run '^$' -bench SortFuncOneWorker -count 10 ./par/ > s.txt
//	benchstat -col /impl s.txt
//
// impl=par.SortFunc sorts through worksteal.Run on a 1-worker pool made
// once (the pool's start is not timed: a program makes its pool once);
// impl=par.SortFunc-nomonitor is the same without the stall monitor
// (Config.StallAfter < 0), which samples the pool every 5 ms while the
// sort runs: what is left of the difference is the monitor's.
func BenchmarkSortFuncOneWorker(b *testing.B) {
	const n = 1_000_000
	r := rand.New(rand.NewPCG(5, 30))
	input := make([]int, n)
	for i := range input {
		input[i] = int(r.Uint64() >> 1)
	}
	a := make([]int, n)
	b.Run("impl=slices.SortFunc", func(b *testing.B) {
		benchSort(b, input, a, func(s []int) { slices.SortFunc(s, cmp.Compare[int]) })
	})
	for _, tc := range []struct {
		name       string
		stallAfter time.Duration
	}{{"par.SortFunc", 0}, {"par.SortFunc-nomonitor", -1}} {
		p, err := worksteal.New(worksteal.Config{Workers: 1, StallAfter: tc.stallAfter})
		if err != nil {
			b.Fatal(err)
		}
		b.Run("impl="+tc.name, func(b *testing.B) {
			benchSort(b, input, a, func(s []int) {
				worksteal.Run(p, func(w *worksteal.Worker) int { SortFunc(w, s, cmp.Compare[int]); return 0 })
			})
		})
		p.Close()
	}
}

// BenchmarkSortFunc: par.SortFunc beside slices.SortFunc on 5 M random
// ints (issue 30), at 1 and 2 workers and one per CPU (if more), with the
// sorts SortFunc was before in the same run: seqpart-before, the same
// quicksort with every partition sequential (stops 39 to 42), and
// merge-before, the merge sort with slices.SortFunc leaves (before 39). Issue 30's target: par.SortFunc at least as fast as
// slices.SortFunc at 1 worker, faster at 2.
//
//	go test -run '^$' -bench SortFunc -count 5 ./par/
func BenchmarkSortFunc(b *testing.B) {
	const n = 5_000_000
	r := rand.New(rand.NewPCG(5, 30))
	input := make([]int, n)
	for i := range input {
		input[i] = int(r.Uint64() >> 1)
	}
	a := make([]int, n)
	run := func(b *testing.B, sort func([]int)) { benchSort(b, input, a, sort) }
	b.Run("impl=slices.SortFunc", func(b *testing.B) { run(b, func(s []int) { slices.SortFunc(s, cmp.Compare[int]) }) })
	counts := []int{1, 2}
	if n := runtime.NumCPU(); n > 2 {
		counts = append(counts, n)
	}
	for _, workers := range counts {
		p, err := worksteal.New(worksteal.Config{Workers: workers})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { p.Close() })
		b.Run(fmt.Sprintf("impl=par.SortFunc/workers=%d", workers), func(b *testing.B) {
			run(b, func(s []int) {
				worksteal.Run(p, func(w *worksteal.Worker) int { SortFunc(w, s, cmp.Compare[int]); return 0 })
			})
		})
		b.Run(fmt.Sprintf("impl=seqpart-before/workers=%d", workers), func(b *testing.B) {
			run(b, func(s []int) {
				worksteal.Run(p, func(w *worksteal.Worker) int {
					if workers == 1 {
						slices.SortFunc(s, cmp.Compare[int])
						return 0
					}
					q := newQuicker(cmp.Compare[int], len(s), workers)
					q.parMin = math.MaxInt // every partition sequential
					q.run(w, s)
					return 0
				})
			})
		})
		b.Run(fmt.Sprintf("impl=merge-before/workers=%d", workers), func(b *testing.B) {
			run(b, func(s []int) {
				worksteal.Run(p, func(w *worksteal.Worker) int {
					mergeSort(w, s, func(x, y int) bool { return x < y }, func(x []int) { slices.SortFunc(x, cmp.Compare[int]) })
					return 0
				})
			})
		})
	}
}

// parPartition keeps partition's promise (s[:m] <= s[m] <= s[m+1:], the
// same elements) on the shapes that break partitions, at chunk sizes from
// one element up, with as many chunks as elements and with one: a chunk's
// left or right part may lie wholly on either side of m, or straddle it.
func TestParPartition(t *testing.T) {
	p := newTestPool(t, worksteal.Config{Workers: 2})
	shapes := map[string]func(i, n int, r *rand.Rand) int{
		"sorted":   func(i, n int, r *rand.Rand) int { return i },
		"reversed": func(i, n int, r *rand.Rand) int { return n - i },
		"equal":    func(i, n int, r *rand.Rand) int { return 7 },
		"two":      func(i, n int, r *rand.Rand) int { return i % 2 },
		"few":      func(i, n int, r *rand.Rand) int { return r.IntN(5) },
		"random":   func(i, n int, r *rand.Rand) int { return r.IntN(1 << 30) },
	}
	for name, f := range shapes {
		for _, n := range []int{1, 2, 3, 17, 1000, 40_001} {
			for _, chunk := range []int{1, 2, 7, 64, 1000, 1 << 16} {
				if n/chunk > 1000 {
					continue // tiny chunks are covered at n = 1000; tens of thousands of tasks only slow the race run
				}
				r := rand.New(rand.NewPCG(uint64(n), uint64(chunk)))
				s := make([]int, n)
				for i := range s {
					s[i] = f(i, n, r)
				}
				want := slices.Sorted(slices.Values(s))
				q := &quicker[int]{cmp: cmp.Compare[int], chunk: chunk}
				q.init()
				m, err := worksteal.Run(p, func(w *worksteal.Worker) int { return q.parPartition(w, s) })
				if err != nil {
					t.Fatal(err)
				}
				if m < 0 || m >= n {
					t.Fatalf("%s n=%d chunk=%d: m=%d out of range", name, n, chunk, m)
				}
				if i := slices.IndexFunc(s[:m], func(x int) bool { return x > s[m] }); i >= 0 {
					t.Fatalf("%s n=%d chunk=%d: s[%d]=%d > pivot s[%d]=%d", name, n, chunk, i, s[i], m, s[m])
				}
				if i := slices.IndexFunc(s[m+1:], func(x int) bool { return x < s[m] }); i >= 0 {
					t.Fatalf("%s n=%d chunk=%d: s[%d]=%d < pivot s[%d]=%d", name, n, chunk, m+1+i, s[m+1+i], m, s[m])
				}
				if got := slices.Sorted(slices.Values(s)); !slices.Equal(got, want) {
					t.Fatalf("%s n=%d chunk=%d: the elements changed", name, n, chunk)
				}
				// Equal keys must not all go one way, or a sort of
				// many equal keys would take quadratic time (a chunk
				// of one element sends its one equal key right; real
				// chunks hold partChunkMin elements or more).
				if name == "equal" && n >= 1000 && chunk > 1 && (m < n/4 || m > 3*n/4) {
					t.Errorf("%s n=%d chunk=%d: m=%d, want near the middle", name, n, chunk, m)
				}
			}
		}
	}
}

// BenchmarkSortFuncSpan measures the work (T1) and span (T∞) of the sorts
// of BenchmarkSortFunc set up for 16 workers (its pieces, chunks and
// leaves), run on one worker so that no strand waits for a core:
// worksteal.Profile's work and span laws then bound their speedup at 16
// workers on any machine whose cores run as this one does. The parallelism
// T1/T∞ is the most any number of workers can give; "x16" is the greedy
// bound T1/(T1/16 + T∞), what a scheduler that never idles while work is
// ready reaches at least.
//
//	go test -run '^$' -bench SortFuncSpan -count 5 ./par/
func BenchmarkSortFuncSpan(b *testing.B) {
	const n, workers = 5_000_000, 16
	r := rand.New(rand.NewPCG(5, 30))
	input := make([]int, n)
	for i := range input {
		input[i] = int(r.Uint64() >> 1)
	}
	a := make([]int, n)
	p, err := worksteal.New(worksteal.Config{Workers: 1})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { p.Close() })
	for _, impl := range []struct {
		name string
		sort func(w *worksteal.Worker, s []int)
	}{
		{"par.SortFunc", func(w *worksteal.Worker, s []int) {
			newQuicker(cmp.Compare[int], len(s), workers).run(w, s)
		}},
		{"seqpart-before", func(w *worksteal.Worker, s []int) {
			q := newQuicker(cmp.Compare[int], len(s), workers)
			q.parMin = math.MaxInt
			q.run(w, s)
		}},
		{"merge-before", func(w *worksteal.Worker, s []int) {
			newMerger(func(x, y int) bool { return x < y }, func(x []int) { slices.SortFunc(x, cmp.Compare[int]) }, len(s), workers).run(w, s)
		}},
	} {
		b.Run("impl="+impl.name, func(b *testing.B) {
			var work, span time.Duration
			for b.Loop() {
				b.StopTimer()
				copy(a, input)
				b.StartTimer()
				_, ws, err := worksteal.Profile(p, func(w *worksteal.Worker) int { impl.sort(w, a); return 0 })
				if err != nil {
					b.Fatal(err)
				}
				work += ws.Work
				span += ws.Span
			}
			if !slices.IsSorted(a) {
				b.Fatal("not sorted")
			}
			t1, tinf := float64(work)/float64(b.N), float64(span)/float64(b.N)
			b.ReportMetric(t1/1e6, "T1-ms")
			b.ReportMetric(tinf/1e6, "Tinf-ms")
			b.ReportMetric(t1/tinf, "parallelism")
			b.ReportMetric(t1/(t1/workers+tinf), "x16")
		})
	}
}
