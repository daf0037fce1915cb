package bench

import (
	"math"
	"math/bits"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/worksteal/worksteal"
	"github.com/worksteal/worksteal/par"
)

// The parallel-loop workloads of the anchor suite (anchors/WORKLOADS.md
// sections 4–6), each with the plain-Go baselines the loop issue compares
// against: one goroutine per GOMAXPROCS chunk ("static"), a goroutine per
// item ("per-item"), and a shared atomic counter handing out indices
// ("counter").

// MapReduceMod is the modulus of the map-reduce workload's f.
const MapReduceMod = 1000000007

// MapReduceN is the anchor size of the map-reduce workload, and
// MapReduceResult its result.
const (
	MapReduceN      = 50_000_000
	MapReduceResult = 24993074194076518
)

func mrF(x uint64) uint64 { return x * x % MapReduceMod }

// MapReduceSeq is the sequential map-reduce: Σ f(x) for x in [lo, hi).
//
// It is not inlined, so that the loop's registers are allocated the same
// way wherever it is called. Inlined into a caller (a closure, a loop
// leaf), Go 1.26 kept the sum in AX, which MULQ (the division by the
// constant modulus) overwrites on every element; the sum then moves out
// and back each time and the loop runs at that chain's latency instead of
// its multiplies' throughput: go-seq took 56.8–58.0 ms for 50 M elements
// inlined and 42.7–43.0 not (the 2-core EPYC, 3 alternated rounds); the
// anchors' own Go, the same source, 56.8–57.0 in its go-seq (inlined into
// a closure) and 42.2–42.8 in its go-static at one thread.
//
//go:noinline
func MapReduceSeq(lo, hi uint64) uint64 {
	var s uint64
	for x := lo; x < hi; x++ {
		s += mrF(x)
	}
	return s
}

// MapReduceMulhiSeq is MapReduceSeq written the way LLVM compiles rayon's
// (and oneTBB's) leaf, so that beside rayon the leaves run as fast as
// rayon's and the difference is the scheduler's:
//
//   - the remainder is one 64-bit multiply-high by ⌈2^93 / p⌉ and a shift
//     by 29. That is exact for every 64-bit numerator, since
//     ⌈2^93 / p⌉·p − 2^93 = 515,809,603 ≤ 2^29 (TestMulhiRemainder);
//     Go 1.26 only halves its 65-bit magic when it is even, so for
//     1,000,000,007 it emits the longer form (an add and a rotate through
//     carry more per element);
//   - the loop is unrolled by four, the remainders summed in pairs before
//     they join the total. LLVM unrolls rayon's by two (objdump of the
//     anchors' binary: 20 instructions per two elements); Go does not
//     unroll, and unrolled by two its loop takes 23 (it reloads the magic
//     constant and moves the bound out of MULQ's fixed registers) and stays
//     about 10 % slower than rust-seq. By four it runs level with rust-seq
//     (docs/measured.md).
//
// The workload "mapreduce-mulhi" runs it. TestMulhiLeafEqualsPlain checks
// it against MapReduceSeq on ranges of every length modulo four.
//
//go:noinline
func MapReduceMulhiSeq(lo, hi uint64) uint64 {
	if hi <= lo {
		return 0
	}
	var s uint64
	end := lo + (hi-lo)&^3 // the groups of four end here; the rest, 0 to 3, follow
	x := lo
	for ; x != end; x += 4 {
		a, b, c, d := x, x+1, x+2, x+3
		s += (mulhiMod(a*a) + mulhiMod(b*b)) + (mulhiMod(c*c) + mulhiMod(d*d))
	}
	for ; x != hi; x++ {
		s += mulhiMod(x * x)
	}
	return s
}

// mulhiMod is v % MapReduceMod by multiply-high (see MapReduceMulhiSeq).
func mulhiMod(v uint64) uint64 {
	q, _ := bits.Mul64(v, mulhiMagic)
	return v - (q>>29)*MapReduceMod
}

// mulhiMagic is ⌈2^93 / MapReduceMod⌉.
const mulhiMagic = 0x89705f3112a28fe5

// MapReduceWS is the map-reduce on worksteal with the adaptive loop and no
// grain argument: the leaf is the sequential loop over its chunk.
func MapReduceWS(w *worksteal.Worker, n int, opts ...par.LoopOption) uint64 {
	return mapReduceWS(w, n, MapReduceSeq, opts...)
}

// mapReduceWS is MapReduceWS with seq as the leaf's loop (MapReduceSeq, or
// MapReduceMulhiSeq for "mapreduce-mulhi").
func mapReduceWS(w *worksteal.Worker, n int, seq func(lo, hi uint64) uint64, opts ...par.LoopOption) uint64 {
	return par.ReduceRange(w, 0, n, 0, func(_ *worksteal.Worker, lo, hi int, acc uint64) uint64 {
		return acc + seq(uint64(lo), uint64(hi))
	}, addU64, opts...)
}

func addU64(a, b uint64) uint64 { return a + b }

// MapReduceStatic splits [0, n) into GOMAXPROCS equal chunks, a goroutine each.
func MapReduceStatic(n int) uint64 {
	return staticBlocks(n, func(lo, hi int) uint64 { return MapReduceSeq(uint64(lo), uint64(hi)) })
}

// staticBlocks is the "static" baseline: [0, n) cut into GOMAXPROCS
// contiguous blocks of equal length, a goroutine each running block on its
// own, and the blocks' results summed.
func staticBlocks[T int64 | uint64](n int, block func(lo, hi int) T) T {
	p := runtime.GOMAXPROCS(0)
	part := make([]T, p)
	var wg sync.WaitGroup
	for i := 0; i < p; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			part[i] = block(i*n/p, (i+1)*n/p)
		}()
	}
	wg.Wait()
	var s T
	for _, v := range part {
		s += v
	}
	return s
}

// MapReduceCounter has GOMAXPROCS goroutines take indices one at a time
// from a shared atomic counter.
func MapReduceCounter(n int) uint64 {
	p := runtime.GOMAXPROCS(0)
	var next atomic.Int64
	part := make([]uint64, p)
	var wg sync.WaitGroup
	for i := 0; i < p; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var s uint64
			for {
				x := next.Add(1) - 1
				if x >= int64(n) {
					break
				}
				s += mrF(uint64(x))
			}
			part[i] = s
		}()
	}
	wg.Wait()
	var s uint64
	for _, v := range part {
		s += v
	}
	return s
}

// Mandelbrot parameters of the anchor suite.
const (
	MandelSize    = 1000
	MandelResult  = 247626198
	mandelMaxIter = 1000
)

// MandelRow returns the sum of escape counts of row py of a size×size image,
// every operation in the order anchors/WORKLOADS.md fixes.
func MandelRow(py, size int) int64 {
	ci := -1.0 + (2.5*float64(py))/float64(size)
	var sum int64
	for px := 0; px < size; px++ {
		cr := -2.0 + (2.5*float64(px))/float64(size)
		x, y := 0.0, 0.0
		i := 0
		for i < mandelMaxIter {
			x2 := x * x
			y2 := y * y
			if x2+y2 > 4.0 {
				break
			}
			y = 2.0*x*y + ci
			x = x2 - y2 + cr
			i++
		}
		sum += int64(i)
	}
	return sum
}

// MandelRowUnrolled is MandelRow with its inner loop unrolled by two, the
// escape test after each step, as LLVM unrolls rayon's and oneTBB's
// (objdump of the anchors' binary); Go does not unroll. The arithmetic is
// MandelRow's, operation for operation, so the counts are the same
// (TestMandelUnrolledEqualsPlain). At one thread it is about 1 % faster
// than the plain form; at two, where the plain form is 1.5–2 % over
// rayon, it is within half a per cent of rayon (docs/measured.md). The
// workload "mandel-unrolled" runs it.
//
//go:noinline
func MandelRowUnrolled(py, size int) int64 {
	ci := -1.0 + (2.5*float64(py))/float64(size)
	var sum int64
	for px := 0; px < size; px++ {
		cr := -2.0 + (2.5*float64(px))/float64(size)
		x, y := 0.0, 0.0
		i := 0
		for {
			x2 := x * x
			y2 := y * y
			if x2+y2 > 4.0 {
				break
			}
			y = 2.0*x*y + ci
			x = x2 - y2 + cr
			x2 = x * x
			y2 = y * y
			if x2+y2 > 4.0 {
				i++
				break
			}
			y = 2.0*x*y + ci
			x = x2 - y2 + cr
			i += 2
			if i == mandelMaxIter { // even, so the pairs land on it
				break
			}
		}
		sum += int64(i)
	}
	return sum
}

// MandelSeq sums every row sequentially.
func MandelSeq(size int) int64 { return mandelSeq(size, MandelRow) }

// mandelSeq sums every row sequentially, each by row (MandelRow, or
// MandelRowUnrolled for "mandel-unrolled"; likewise below).
func mandelSeq(size int, row func(py, size int) int64) int64 {
	var s int64
	for py := 0; py < size; py++ {
		s += row(py, size)
	}
	return s
}

// MandelWS sums the rows with the adaptive loop, no grain argument.
func MandelWS(w *worksteal.Worker, size int, opts ...par.LoopOption) int64 {
	return mandelWS(w, size, MandelRow, opts...)
}

func mandelWS(w *worksteal.Worker, size int, row func(py, size int) int64, opts ...par.LoopOption) int64 {
	return par.ReduceRange(w, 0, size, 0, func(_ *worksteal.Worker, lo, hi int, acc int64) int64 {
		for py := lo; py < hi; py++ {
			acc += row(py, size)
		}
		return acc
	}, addI64, opts...)
}

func addI64(a, b int64) int64 { return a + b }

// MandelStatic gives GOMAXPROCS goroutines a contiguous block of rows each.
func MandelStatic(size int) int64 {
	return staticBlocks(size, func(lo, hi int) int64 {
		var s int64
		for py := lo; py < hi; py++ {
			s += MandelRow(py, size)
		}
		return s
	})
}

// MandelPerItem runs a goroutine per row.
func MandelPerItem(size int) int64 { return mandelPerItem(size, MandelRow) }

func mandelPerItem(size int, row func(py, size int) int64) int64 {
	rows := make([]int64, size)
	var wg sync.WaitGroup
	for py := 0; py < size; py++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rows[py] = row(py, size)
		}()
	}
	wg.Wait()
	var s int64
	for _, v := range rows {
		s += v
	}
	return s
}

// MandelCounter has GOMAXPROCS goroutines take rows from an atomic counter.
func MandelCounter(size int) int64 { return mandelCounter(size, MandelRow) }

func mandelCounter(size int, row func(py, size int) int64) int64 {
	p := runtime.GOMAXPROCS(0)
	var next atomic.Int64
	var total atomic.Int64
	var wg sync.WaitGroup
	for i := 0; i < p; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var s int64
			for {
				py := next.Add(1) - 1
				if py >= int64(size) {
					break
				}
				s += row(int(py), size)
			}
			total.Add(s)
		}()
	}
	wg.Wait()
	return total.Load()
}

// FixedGrain runs body over [lo, hi) split recursively (with
// worksteal.JoinFunc) into pieces of at most grain iterations, like oneTBB's
// simple_partitioner: the fixed-grain baseline of the adaptive loop.
func FixedGrain(w *worksteal.Worker, lo, hi, grain int, body func(lo, hi int) int64) int64 {
	f := &fixedGrain{grain: grain, body: body}
	f.fn = f.run
	return f.run(w, [2]int{lo, hi})
}

type fixedGrain struct {
	grain int
	body  func(lo, hi int) int64
	fn    func(w *worksteal.Worker, r [2]int) int64
}

func (f *fixedGrain) run(w *worksteal.Worker, r [2]int) int64 {
	if r[1]-r[0] <= f.grain {
		return f.body(r[0], r[1])
	}
	mid := r[0] + (r[1]-r[0])/2
	a, b := worksteal.JoinFunc(w, f.fn, [2]int{r[0], mid}, f.fn, [2]int{mid, r[1]})
	return a + b
}

// SortInput returns the sort workload's input: a[i] = stream(42, i) >> 1.
func SortInput(n int) []uint64 {
	a := make([]uint64, n)
	for i := range a {
		z := 42 + uint64(i+1)*0x9e3779b97f4a7c15
		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
		z = (z ^ (z >> 27)) * 0x94d049bb133111eb
		a[i] = (z ^ (z >> 31)) >> 1
	}
	return a
}

// SortCheck returns Σ a[i]·(i+1) mod 2^64, the sort workload's result
// (14298323959306991955 for the anchor size), or 0 if a is not sorted.
func SortCheck(a []uint64) uint64 {
	var s uint64
	for i, v := range a {
		if i > 0 && a[i-1] > v {
			return 0
		}
		s += v * uint64(i+1)
	}
	return s
}

// SortResult is SortCheck of the sorted anchor input of SortN elements.
const (
	SortN      = 10_000_000
	SortResult = 14298323959306991955
)

// The loop workloads in the suite's protocol ("worksteal bench cell"), so
// that the anchors' run.sh can put go-ws in its sort, mapreduce and mandel
// tables: go-seq is the anchors' sequential Go (slices.Sort, the plain
// loops), go-wg for mandel is their goroutine per row, and ws is what a
// user of this project writes (par.Sort; par.ReduceRange with no grain for
// the others). None has a closure form, nor a goroutine-per-fork form but
// mandel's; they are not in the default plans (see loops_bench_test.go
// for the go test benchmarks).
func init() {
	register(&workload{
		name:  "sort",
		doc:   "sort a fresh copy of n pseudo-random uint64 (copy untimed); result = Σ a[i]·(i+1); size = n",
		parse: parseSort,
	})
	register(&workload{
		name:  "mapreduce",
		doc:   "Σ x·x mod 1,000,000,007 over x in [0, n), a cheap loop body; size = n",
		parse: parseMapReduce("mapreduce", MapReduceSeq),
	})
	register(&workload{
		name:  "mapreduce-mulhi",
		doc:   "mapreduce with the remainder by multiply-high and the loop unrolled, as LLVM compiles rayon's leaf; size = n",
		parse: parseMapReduce("mapreduce-mulhi", MapReduceMulhiSeq),
	})
	register(&workload{
		name:  "mandel",
		doc:   "Mandelbrot escape counts of a size×size image, one task per row (skewed); size = side",
		parse: parseMandel("mandel", MandelRow),
	})
	register(&workload{
		name:  "mandel-unrolled",
		doc:   "mandel with the inner loop unrolled by two, as LLVM unrolls rayon's leaf; size = side",
		parse: parseMandel("mandel-unrolled", MandelRowUnrolled),
	})
}

// sortInput is the sort workload's parsed size: the input and the slice
// each iteration sorts, refilled from it before every iteration and
// checked after it (both untimed). An unsorted result is Value 0.
type sortInput struct {
	in, work []uint64
}

func parseSort(size string) (*problem, error) {
	n, err := atoiIn("sort", size, 0, 1<<28)
	if err != nil {
		return nil, err
	}
	s := &sortInput{in: SortInput(n), work: make([]uint64, n)}
	p := &problem{
		seq: func() Result {
			slices.Sort(s.work)
			return Result{}
		},
		reset:  func() { copy(s.work, s.in) },
		result: func() Result { return Result{Value: SortCheck(s.work)} },
		param:  s,
	}
	if n == SortN {
		p.ref, p.hasRef = Result{Value: SortResult}, true
	}
	return p, nil
}

// parseMapReduce makes the parser of a map-reduce workload whose
// sequential loop is seq.
func parseMapReduce(name string, seq func(lo, hi uint64) uint64) func(size string) (*problem, error) {
	return func(size string) (*problem, error) {
		// x < 2^32, so x*x does not wrap (anchors/WORKLOADS.md section 5);
		// a 32-bit int bounds it lower.
		n, err := atoiIn(name, size, 0, int(min(1<<32, uint64(math.MaxInt))))
		if err != nil {
			return nil, err
		}
		p := &problem{
			seq:   func() Result { return Result{Value: seq(0, uint64(n))} },
			param: n,
		}
		if n == MapReduceN {
			p.ref, p.hasRef = Result{Value: MapReduceResult}, true
		}
		return p, nil
	}
}

// parseMandel makes the parser of a Mandelbrot workload whose rows are
// computed by row.
func parseMandel(name string, row func(py, size int) int64) func(size string) (*problem, error) {
	return func(size string) (*problem, error) {
		n, err := atoiIn(name, size, 1, 20_000)
		if err != nil {
			return nil, err
		}
		p := &problem{
			seq:     func() Result { return Result{Value: uint64(mandelSeq(n, row))} },
			wg:      func() Result { return Result{Value: uint64(mandelPerItem(n, row))} },
			counter: func() Result { return Result{Value: uint64(mandelCounter(n, row))} },
			param:   n,
		}
		if n == MandelSize {
			p.ref, p.hasRef = Result{Value: MandelResult}, true
		}
		return p, nil
	}
}
