package par

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

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

// BenchmarkSortFunc: par.SortFunc beside slices.SortFunc on 5 M random
// ints (issue 30), at 1 and 2 workers and one per CPU (if more), with the
// merge sort SortFunc used before (mergeSort with slices.SortFunc leaves)
// in the same run. Issue 30's target: par.SortFunc at least as fast as
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
	run := func(b *testing.B, sort func([]int)) {
		for b.Loop() {
			b.StopTimer()
			copy(a, input)
			b.StartTimer()
			sort(a)
		}
		b.StopTimer()
		if !slices.IsSorted(a) {
			b.Fatal("not sorted")
		}
		b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/op")
	}
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
