package par

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/worksteal/worksteal"
)

func loopPools(t *testing.T) []*worksteal.Pool {
	var ps []*worksteal.Pool
	for _, n := range []int{1, 2, 4} {
		ps = append(ps, newTestPool(t, worksteal.Config{Workers: n}))
	}
	return ps
}

func TestFor(t *testing.T) {
	defer watchdog(t)()
	for _, p := range loopPools(t) {
		for _, n := range []int{0, 1, 2, 3, 10, 1000, 50_000} {
			t.Run(fmt.Sprintf("workers=%d/n=%d", p.Workers(), n), func(t *testing.T) {
				hits := make([]atomic.Int32, n)
				worksteal.Run(p, func(w *worksteal.Worker) struct{} {
					For(w, 0, n, func(_ *worksteal.Worker, i int) { hits[i].Add(1) })
					return struct{}{}
				})
				for i := range hits {
					if h := hits[i].Load(); h != 1 {
						t.Fatalf("index %d ran %d times", i, h)
					}
				}
			})
		}
	}
}

func TestForRangeIntegerLimits(t *testing.T) {
	p := newTestPool(t, worksteal.Config{Workers: 3})
	cases := []struct{ lo, hi int }{
		{math.MaxInt - 1000, math.MaxInt},
		{math.MinInt, math.MinInt + 1000},
		{-500, 500},
		{5, 5},
		{10, 3}, // empty
	}
	for _, c := range cases {
		var count atomic.Int64
		var sum atomic.Int64 // of offsets from lo, to stay in range
		worksteal.Run(p, func(w *worksteal.Worker) struct{} {
			ForRange(w, c.lo, c.hi, func(_ *worksteal.Worker, lo, hi int) {
				if lo < c.lo || hi > c.hi || lo >= hi {
					t.Errorf("piece [%d,%d) outside [%d,%d)", lo, hi, c.lo, c.hi)
				}
				count.Add(int64(hi - lo))
				for i := lo; i < hi; i++ {
					sum.Add(int64(i - c.lo))
				}
			})
			return struct{}{}
		})
		want := int64(max(0, c.hi-c.lo))
		if count.Load() != want || sum.Load() != want*(want-1)/2 {
			t.Errorf("[%d,%d): %d iterations, offset sum %d; want %d, %d", c.lo, c.hi, count.Load(), sum.Load(), want, want*(want-1)/2)
		}
	}
}

func TestReduceDeterministicOrder(t *testing.T) {
	for _, p := range loopPools(t) {
		words := make([]string, 5000)
		for i := range words {
			words[i] = fmt.Sprint(i % 10)
		}
		want := strings.Join(words, "")
		for rep := 0; rep < 5; rep++ {
			got, _ := worksteal.Run(p, func(w *worksteal.Worker) string {
				return Reduce(w, words, "", func(a, b string) string { return a + b })
			})
			if got != want {
				t.Fatalf("workers=%d: concatenation out of order", p.Workers())
			}
		}
	}
}

func TestMapReduceSum(t *testing.T) {
	p := newTestPool(t, worksteal.Config{Workers: 2})
	n := 1_000_000
	got, _ := worksteal.Run(p, func(w *worksteal.Worker) uint64 {
		return ReduceRange(w, 0, n, 0, func(_ *worksteal.Worker, lo, hi int, acc uint64) uint64 {
			for x := uint64(lo); x < uint64(hi); x++ {
				acc += x * x % 1000000007
			}
			return acc
		}, func(a, b uint64) uint64 { return a + b })
	})
	var want uint64
	for x := uint64(0); x < uint64(n); x++ {
		want += x * x % 1000000007
	}
	if got != want {
		t.Fatalf("sum = %d; want %d", got, want)
	}
	xs := make([]int, 1000)
	for i := range xs {
		xs[i] = i
	}
	sq, _ := worksteal.Run(p, func(w *worksteal.Worker) int {
		return MapReduce(w, xs, 0, func(_ *worksteal.Worker, v int) int { return v * v }, func(a, b int) int { return a + b })
	})
	if sq != 332833500 {
		t.Fatalf("sum of squares = %d", sq)
	}
}

func TestMapFilterForEach(t *testing.T) {
	p := newTestPool(t, worksteal.Config{Workers: 3})
	xs := make([]int, 10000)
	for i := range xs {
		xs[i] = i
	}
	worksteal.Run(p, func(w *worksteal.Worker) struct{} {
		ys := Map(w, xs, func(_ *worksteal.Worker, v int) string { return fmt.Sprint(v) })
		for i, y := range ys {
			if y != fmt.Sprint(i) {
				t.Fatalf("Map[%d] = %q", i, y)
			}
		}
		ev := Filter(w, xs, func(_ *worksteal.Worker, v int) bool { return v%3 == 0 })
		if len(ev) != 3334 || !slices.IsSorted(ev) || ev[1] != 3 {
			t.Fatalf("Filter: %d elements, sorted %v", len(ev), slices.IsSorted(ev))
		}
		if got := Filter(w, []int{}, func(*worksteal.Worker, int) bool { return true }); len(got) != 0 {
			t.Fatalf("Filter(empty) = %v", got)
		}
		zs := slices.Clone(xs)
		ForEach(w, zs, func(_ *worksteal.Worker, i int, v *int) { *v *= 2 })
		for i, z := range zs {
			if z != 2*i {
				t.Fatalf("ForEach[%d] = %d", i, z)
			}
		}
		return struct{}{}
	})
}

// TestFindEarlyExit: once a match is found, Index evaluates no element
// past it that it had not started, and Any starts no new chunk. What a
// worker had started runs on, so the bound is per worker (Index checks
// before each element, Any before each chunk, here at most 1,024): no
// assertion on how far the loop got, which depends on when the OS runs
// the worker that finds the match (CI's 32-bit run, beside the root's
// tests, once saw Any evaluate 500,011 of 1,000,000 before it did).
func TestFindEarlyExit(t *testing.T) {
	const workers, grain = 4, 1024
	p := newTestPool(t, worksteal.Config{Workers: workers})
	xs := make([]int, 1_000_000)
	for i := range xs {
		xs[i] = i
	}
	worksteal.Run(p, func(w *worksteal.Worker) struct{} {
		var found, late atomic.Int64
		found.Store(-1)
		i := Index(w, xs, func(_ *worksteal.Worker, v int) bool {
			if f := found.Load(); f >= 0 && v > int(f) {
				late.Add(1) // started after the match it lies past
			}
			if v >= 1234 && v%2 == 0 {
				for {
					f := found.Load()
					if f >= 0 && f <= int64(v) || found.CompareAndSwap(f, int64(v)) {
						break
					}
				}
				return true
			}
			return false
		})
		if i != 1234 {
			t.Fatalf("Index = %d", i)
		}
		if late.Load() > workers {
			t.Errorf("Index evaluated %d elements past a match found before they started (at most one per worker may have loaded the bound first): no early exit", late.Load())
		}
		if Index(w, xs, func(_ *worksteal.Worker, v int) bool { return v < 0 }) != -1 {
			t.Fatal("Index of nothing != -1")
		}
		var hit atomic.Bool
		late.Store(0)
		if !Any(w, xs, func(_ *worksteal.Worker, v int) bool {
			if hit.Load() {
				late.Add(1)
			}
			if v == 10 {
				hit.Store(true)
				return true
			}
			return false
		}, MaxGrain(grain)) {
			t.Fatal("Any = false")
		}
		if late.Load() > workers*grain {
			t.Errorf("Any evaluated %d elements after its match: more than the %d workers' chunks of at most %d in progress: no early exit", late.Load(), workers, grain)
		}
		if All(w, xs, func(_ *worksteal.Worker, v int) bool { return v < 999_999 }) {
			t.Fatal("All = true")
		}
		if !All(w, []int{}, func(*worksteal.Worker, int) bool { return false }) {
			t.Fatal("All(empty) = false")
		}
		mn, ok := Min(w, []float64{3, 1, 2})
		mx, _ := Max(w, []float64{3, 1, 2})
		if !ok || mn != 1 || mx != 3 {
			t.Fatalf("Min, Max = %v, %v", mn, mx)
		}
		if _, ok := Min(w, []int{}); ok {
			t.Fatal("Min(empty) ok")
		}
		if v, _ := Max(w, []float64{1, math.NaN(), 2}); !math.IsNaN(v) {
			t.Fatalf("Max with NaN = %v", v)
		}
		v, i2, _ := MinFunc(w, []string{"bb", "a", "c", "a"}, strings.Compare)
		if v != "a" || i2 != 1 {
			t.Fatalf("MinFunc = %q at %d; want first minimum", v, i2)
		}
		return struct{}{}
	})
}

func TestLoopPanicAndCancel(t *testing.T) {
	defer watchdog(t)()
	p := newTestPool(t, worksteal.Config{Workers: 3})
	var ran atomic.Int64
	func() {
		defer func() {
			pe, ok := recover().(*worksteal.PanicError)
			if !ok || !strings.Contains(string(pe.Stack), "TestLoopPanicAndCancel") {
				t.Fatalf("recovered %v; want a *PanicError with the panic site", pe)
			}
		}()
		worksteal.Run(p, func(w *worksteal.Worker) struct{} {
			For(w, 0, 1_000_000, func(_ *worksteal.Worker, i int) {
				ran.Add(1)
				if i == 500 {
					panic("boom")
				}
				time.Sleep(time.Microsecond)
			})
			return struct{}{}
		})
	}()
	if ran.Load() > 900_000 {
		t.Errorf("%d iterations ran after the panic: chunks kept being handed out", ran.Load())
	}
	ctx, cancel := context.WithCancel(context.Background())
	ran.Store(0)
	worksteal.Run(p, func(w *worksteal.Worker) struct{} {
		For(w, 0, 1_000_000, func(_ *worksteal.Worker, i int) {
			if ran.Add(1) == 1000 {
				cancel()
			}
		}, WithContext(ctx))
		return struct{}{}
	})
	if ran.Load() >= 1_000_000 {
		t.Errorf("cancelled loop ran all %d iterations", ran.Load())
	}
}

// A panic in a body reaches the code that called For as a
// *worksteal.PanicError with the panic site's stack, also when the body ran
// on the calling worker (one worker: nothing is ever stolen).
func TestLoopPanicOnCallerIsPanicError(t *testing.T) {
	p := newTestPool(t, worksteal.Config{Workers: 1})
	worksteal.Run(p, func(w *worksteal.Worker) struct{} {
		defer func() {
			pe, ok := recover().(*worksteal.PanicError)
			if !ok || pe.Value != "boom" || !strings.Contains(string(pe.Stack), "TestLoopPanicOnCallerIsPanicError") {
				t.Errorf("recovered %v; want a *worksteal.PanicError with value boom and the panic site", pe)
			}
		}()
		For(w, 0, 10, func(_ *worksteal.Worker, i int) {
			if i == 3 {
				panic("boom")
			}
		})
		return struct{}{}
	})
}

// A panic in a loop's first chunk (the probe's first half, first) is a
// *worksteal.PanicError with the panic site too, the rest of the range
// never runs (the lazy Join drops a second half nobody took), and the
// worker's Blocking flag is the caller's again afterwards (a later
// Blocking of the caller does not set the dead loop's flag). Red with
// first's deferred handler reduced to the flag's restore (the panic
// arrives as the body's string, not a *PanicError).
func TestLoopPanicInFirstChunk(t *testing.T) {
	p := newTestPool(t, worksteal.Config{Workers: 2})
	var ran atomic.Int64
	worksteal.Run(p, func(w *worksteal.Worker) struct{} {
		var mine atomic.Bool
		prev := w.NotifyBlocking(&mine)
		defer w.NotifyBlocking(prev)
		func() {
			defer func() {
				r := recover()
				pe, ok := r.(*worksteal.PanicError)
				if !ok || pe.Value != "first" || !strings.Contains(string(pe.Stack), "TestLoopPanicInFirstChunk") {
					t.Errorf("recovered %#v; want a *worksteal.PanicError with value first and the panic site", r)
				}
			}()
			For(w, 0, 1000, func(_ *worksteal.Worker, i int) {
				ran.Add(1)
				if i == 0 {
					panic("first")
				}
			})
		}()
		w.Blocking(func() {})
		if !mine.Load() {
			t.Errorf("after the loop's panic, the caller's Blocking did not set the caller's flag: the loop's flag stayed installed")
		}
		return struct{}{}
	})
	if r := ran.Load(); r != 1 {
		t.Errorf("%d iterations ran; want 1 (the rest of a loop whose first chunk panicked never starts)", r)
	}
}

func TestLoopGrainOptions(t *testing.T) {
	p := newTestPool(t, worksteal.Config{Workers: 2})
	var minSeen atomic.Int64
	minSeen.Store(math.MaxInt64)
	var maxSeen atomic.Int64
	worksteal.Run(p, func(w *worksteal.Worker) struct{} {
		ForRange(w, 0, 100_000, func(_ *worksteal.Worker, lo, hi int) {
			n := int64(hi - lo)
			for {
				m := maxSeen.Load()
				if n <= m || maxSeen.CompareAndSwap(m, n) {
					break
				}
			}
			if hi != 100_000 { // the last chunk may be short
				for {
					m := minSeen.Load()
					if n >= m || minSeen.CompareAndSwap(m, n) {
						break
					}
				}
			}
		}, MinGrain(100), MaxGrain(1000))
		return struct{}{}
	})
	if maxSeen.Load() > 1000 {
		t.Errorf("chunk of %d > MaxGrain 1000", maxSeen.Load())
	}
	if minSeen.Load() < 50 { // a split may halve a piece of 100..199
		t.Errorf("chunk of %d well below MinGrain 100", minSeen.Load())
	}
}

func TestSorts(t *testing.T) {
	defer watchdog(t)()
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 2))
	for _, p := range loopPools(t) {
		sizes := []int{0, 1, 2, 100, 5000, 300_000}
		if testing.Short() || raceEnabled {
			sizes = []int{0, 1, 2, 100, 5000, 150_000}
		}
		for _, n := range sizes {
			name := fmt.Sprintf("workers=%d/n=%d", p.Workers(), n)
			u64 := make([]uint64, n)
			i64 := make([]int64, n)
			i8 := make([]int8, n)
			u32 := make([]uint32, n)
			f64 := make([]float64, n)
			strs := make([]string, n)
			type rec struct{ k, seq int }
			recs := make([]rec, n)
			for i := 0; i < n; i++ {
				u64[i] = rng.Uint64() >> (rng.IntN(4) * 16)
				i64[i] = int64(rng.Uint64())
				i8[i] = int8(rng.Uint64())
				u32[i] = uint32(rng.IntN(1000))
				f64[i] = rng.NormFloat64()
				strs[i] = fmt.Sprint(rng.IntN(n + 1))
				recs[i] = rec{rng.IntN(50), i}
			}
			if n > 10 {
				f64[3] = math.NaN()
			}
			worksteal.Run(p, func(w *worksteal.Worker) struct{} {
				checkSorted(t, name+"/uint64", w, u64)
				checkSorted(t, name+"/int64", w, i64)
				checkSorted(t, name+"/int8", w, i8)
				checkSorted(t, name+"/uint32", w, u32)
				checkSorted(t, name+"/float64", w, f64)
				checkSorted(t, name+"/string", w, strs)
				r2 := slices.Clone(recs)
				SortStableFunc(w, r2, func(a, b rec) int { return a.k - b.k })
				want := slices.Clone(recs)
				slices.SortStableFunc(want, func(a, b rec) int { return a.k - b.k })
				if !slices.Equal(r2, want) {
					t.Errorf("%s: SortStableFunc differs from slices.SortStableFunc", name)
				}
				r3 := slices.Clone(recs)
				SortFunc(w, r3, func(a, b rec) int { return a.k - b.k })
				if !slices.IsSortedFunc(r3, func(a, b rec) int { return a.k - b.k }) {
					t.Errorf("%s: SortFunc not sorted", name)
				}
				type id uint16 // a named type goes through RadixSort directly
				ids := make([]id, n)
				for i := range ids {
					ids[i] = id(rng.Uint64())
				}
				want2 := slices.Clone(ids)
				slices.Sort(want2)
				RadixSort(w, ids)
				if !slices.Equal(ids, want2) {
					t.Errorf("%s: RadixSort of a named type", name)
				}
				return struct{}{}
			})
		}
	}
}

func checkSorted[T interface {
	~int8 | ~int64 | ~uint32 | ~uint64 | ~float64 | ~string
}](t *testing.T, name string, w *worksteal.Worker, s []T) {
	t.Helper()
	x := slices.Clone(s)
	want := slices.Clone(s)
	slices.Sort(want)
	Sort(w, x)
	if !slices.EqualFunc(x, want, func(a, b T) bool { return a == b || a != a && b != b }) {
		t.Errorf("%s: Sort differs from slices.Sort", name)
	}
}

// With MaxGrain >= 2*MinGrain every chunk of a range of at least MinGrain
// iterations can lie within [MinGrain, MaxGrain], the last one included:
// the loop never leaves a short tail behind a chunk capped by MaxGrain. One
// worker, so no split interferes; every range length from 100 to 5,000.
func TestLoopChunksWithinGrains(t *testing.T) {
	p := newTestPool(t, worksteal.Config{Workers: 1})
	for n := 100; n <= 5000; n += 7 {
		var bad []int
		worksteal.Run(p, func(w *worksteal.Worker) struct{} {
			ForRange(w, 0, n, func(_ *worksteal.Worker, lo, hi int) {
				if hi-lo < 100 || hi-lo > 1000 {
					bad = append(bad, hi-lo)
				}
			}, MinGrain(100), MaxGrain(1000))
			return struct{}{}
		})
		if len(bad) > 0 {
			t.Fatalf("range of %d: chunks of %v outside [MinGrain 100, MaxGrain 1000]", n, bad)
		}
	}
}

// One slow chunk (the OS took the core away, a page fault) must not make
// the loop cut the rest of the range into tiny pieces: the halves of an
// eager split measure a chunk of their own before they split again. Here
// the first chunk (one iteration) takes 2 ms, an estimate of 2 ms per
// iteration for iterations that cost nanoseconds; before the halves
// re-measured, 1 worker ran the million iterations in a million chunks.
func TestLoopStalledChunkDoesNotShatter(t *testing.T) {
	p := newTestPool(t, worksteal.Config{Workers: 1})
	const n = 1_000_000
	chunks, sum := 0, 0
	worksteal.Run(p, func(w *worksteal.Worker) struct{} {
		ForRange(w, 0, n, func(_ *worksteal.Worker, lo, hi int) {
			if lo == 0 {
				time.Sleep(2 * time.Millisecond)
			}
			chunks++
			sum += hi - lo
		})
		return struct{}{}
	})
	if sum != n {
		t.Fatalf("the chunks covered %d iterations, want %d", sum, n)
	}
	if chunks > 20_000 {
		t.Errorf("%d chunks for %d cheap iterations after one slow chunk: the range was shattered", chunks, n)
	}
	t.Logf("%d chunks", chunks)
}
