package par_test

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"

	"github.com/worksteal/worksteal"
	"github.com/worksteal/worksteal/par"
)

// run runs f on a fresh 2-worker pool.
func run[T any](f func(w *worksteal.Worker) T) T {
	p, err := worksteal.New(worksteal.Config{Workers: 2})
	if err != nil {
		panic(err)
	}
	defer p.Close()
	v, _ := worksteal.Run(p, f)
	return v
}

func ExampleFor() {
	squares := make([]int, 8)
	run(func(w *worksteal.Worker) int {
		par.For(w, 0, len(squares), func(_ *worksteal.Worker, i int) { squares[i] = i * i })
		return 0
	})
	fmt.Println(squares)
	// Output: [0 1 4 9 16 25 36 49]
}

// ForRange hands out whole chunks, so the inner loop is plain Go code.
func ExampleForRange() {
	data := make([]float64, 1000)
	run(func(w *worksteal.Worker) int {
		par.ForRange(w, 0, len(data), func(_ *worksteal.Worker, lo, hi int) {
			for i := lo; i < hi; i++ {
				data[i] = float64(i) / 2
			}
		})
		return 0
	})
	fmt.Println(data[0], data[999])
	// Output: 0 499.5
}

func ExampleForEach() {
	names := []string{"ada", "grace", "barbara"}
	run(func(w *worksteal.Worker) int {
		par.ForEach(w, names, func(_ *worksteal.Worker, i int, s *string) { *s = strings.ToUpper(*s) })
		return 0
	})
	fmt.Println(names)
	// Output: [ADA GRACE BARBARA]
}

func ExampleMap() {
	lengths := run(func(w *worksteal.Worker) []int {
		return par.Map(w, []string{"a", "bb", "ccc"}, func(_ *worksteal.Worker, s string) int { return len(s) })
	})
	fmt.Println(lengths)
	// Output: [1 2 3]
}

// Pieces are combined in index order: a non-commutative combine is fine.
func ExampleReduce() {
	s := run(func(w *worksteal.Worker) string {
		return par.Reduce(w, []string{"work", "-", "steal"}, "", func(a, b string) string { return a + b })
	})
	fmt.Println(s)
	// Output: work-steal
}

// The map-reduce of the benchmark suite: Σ x² mod 1e9+7 over [0, n).
func ExampleReduceRange() {
	sum := run(func(w *worksteal.Worker) uint64 {
		return par.ReduceRange(w, 0, 1_000_000, 0, func(_ *worksteal.Worker, lo, hi int, acc uint64) uint64 {
			for x := uint64(lo); x < uint64(hi); x++ {
				acc += x * x % 1000000007
			}
			return acc
		}, func(a, b uint64) uint64 { return a + b })
	})
	fmt.Println(sum)
	// Output: 493486003624585
}

func ExampleMapReduce() {
	total := run(func(w *worksteal.Worker) int {
		return par.MapReduce(w, []string{"fork", "join"}, 0,
			func(_ *worksteal.Worker, s string) int { return len(s) },
			func(a, b int) int { return a + b })
	})
	fmt.Println(total)
	// Output: 8
}

func ExampleFilter() {
	evens := run(func(w *worksteal.Worker) []int {
		return par.Filter(w, []int{1, 2, 3, 4, 5, 6}, func(_ *worksteal.Worker, v int) bool { return v%2 == 0 })
	})
	fmt.Println(evens)
	// Output: [2 4 6]
}

func ExampleIndex() {
	xs := make([]int, 100_000)
	for i := range xs {
		xs[i] = i * 3
	}
	i := run(func(w *worksteal.Worker) int {
		return par.Index(w, xs, func(_ *worksteal.Worker, v int) bool { return v > 1000 })
	})
	fmt.Println(i, xs[i])
	// Output: 334 1002
}

func ExampleAny() {
	found := run(func(w *worksteal.Worker) bool {
		return par.Any(w, []int{1, 3, 5, 6, 7}, func(_ *worksteal.Worker, v int) bool { return v%2 == 0 })
	})
	fmt.Println(found)
	// Output: true
}

func ExampleAll() {
	ok := run(func(w *worksteal.Worker) bool {
		return par.All(w, []int{2, 4, 8}, func(_ *worksteal.Worker, v int) bool { return v%2 == 0 })
	})
	fmt.Println(ok)
	// Output: true
}

func ExampleMin() {
	run(func(w *worksteal.Worker) int {
		v, ok := par.Min(w, []float64{2.5, -1, 7})
		fmt.Println(v, ok)
		_, ok = par.Min(w, []float64{})
		fmt.Println(ok)
		return 0
	})
	// Output:
	// -1 true
	// false
}

func ExampleMax() {
	v := run(func(w *worksteal.Worker) int { v, _ := par.Max(w, []int{3, 9, 4}); return v })
	fmt.Println(v)
	// Output: 9
}

func ExampleMinFunc() {
	word := run(func(w *worksteal.Worker) string {
		v, _, _ := par.MinFunc(w, []string{"steal", "go", "pool"}, func(a, b string) int { return len(a) - len(b) })
		return v
	})
	fmt.Println(word)
	// Output: go
}

func ExampleMaxFunc() {
	i := run(func(w *worksteal.Worker) int {
		_, i, _ := par.MaxFunc(w, []string{"steal", "go", "worker"}, strings.Compare)
		return i
	})
	fmt.Println(i)
	// Output: 2
}

func ExampleSort() {
	xs := []int{5, -2, 9, 0, 3}
	run(func(w *worksteal.Worker) int { par.Sort(w, xs); return 0 })
	fmt.Println(xs)
	// Output: [-2 0 3 5 9]
}

func ExampleSortFunc() {
	words := []string{"banana", "fig", "apple"}
	run(func(w *worksteal.Worker) int { par.SortFunc(w, words, strings.Compare); return 0 })
	fmt.Println(words)
	// Output: [apple banana fig]
}

func ExampleSortStableFunc() {
	type job struct {
		name string
		prio int
	}
	jobs := []job{{"a", 2}, {"b", 1}, {"c", 2}, {"d", 1}}
	run(func(w *worksteal.Worker) int {
		par.SortStableFunc(w, jobs, func(x, y job) int { return x.prio - y.prio })
		return 0
	})
	fmt.Println(jobs)
	// Output: [{b 1} {d 1} {a 2} {c 2}]
}

// RadixSort takes named integer types too.
func ExampleRadixSort() {
	type userID uint32
	ids := []userID{40, 7, 1 << 30, 7, 0}
	run(func(w *worksteal.Worker) int { par.RadixSort(w, ids); return 0 })
	fmt.Println(ids)
	// Output: [0 7 7 40 1073741824]
}

// Grain options for users who know their work.
func ExampleMinGrain() {
	var chunks [2]int
	run(func(w *worksteal.Worker) int {
		par.ForRange(w, 0, 100, func(_ *worksteal.Worker, lo, hi int) {
			if hi-lo < 10 {
				chunks[0]++
			} else {
				chunks[1]++
			}
		}, par.MinGrain(10), par.MaxGrain(20))
		return 0
	})
	fmt.Println("chunks under the grain:", chunks[0])
	// Output: chunks under the grain: 0
}

// A cancelled context stops the loop handing out chunks.
func ExampleWithContext() {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	ran := run(func(w *worksteal.Worker) int {
		n := 0
		par.For(w, 0, 1000, func(*worksteal.Worker, int) { n++ }, par.WithContext(ctx))
		return n
	})
	fmt.Println(ran, ctx.Err())
	// Output: 0 context canceled
}

// MaxGrain bounds how many iterations a worker runs between two looks for
// idle peers: no chunk is longer.
func ExampleMaxGrain() {
	var longest atomic.Int64
	run(func(w *worksteal.Worker) int {
		par.ForRange(w, 0, 10_000, func(_ *worksteal.Worker, lo, hi int) {
			for n := int64(hi - lo); ; {
				m := longest.Load()
				if n <= m || longest.CompareAndSwap(m, n) {
					break
				}
			}
		}, par.MaxGrain(64))
		return 0
	})
	fmt.Println("longest chunk at most 64:", longest.Load() <= 64)
	// Output: longest chunk at most 64: true
}

// From plain code (main, a handler), pass the pool's worker in with
// Pool.Do, or worksteal.Run for a result: one line for every function of
// this package, and several calls in one computation share its workers.
func Example_fromPlainCode() {
	pool, err := worksteal.New(worksteal.Config{Workers: 2})
	if err != nil {
		panic(err)
	}
	defer pool.Close()
	xs := make([]int, 1000)
	if err := pool.Do(func(w *worksteal.Worker) {
		par.For(w, 0, len(xs), func(_ *worksteal.Worker, i int) { xs[i] = i })
	}); err != nil {
		panic(err) // worksteal.ErrClosed
	}
	sum, err := worksteal.Run(pool, func(w *worksteal.Worker) int {
		return par.Reduce(w, xs, 0, func(a, b int) int { return a + b })
	})
	fmt.Println(sum, err)
	// Output: 499500 <nil>
}
