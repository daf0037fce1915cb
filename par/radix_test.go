package par

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/worksteal/worksteal"
	"github.com/worksteal/worksteal/internal/testdeadline"
)

// radixSizes are input lengths on both sides of every size at which
// RadixSort changes its method: slices.Sort below radixSmall, insertion
// sorts of radixInsertMax keys, leaf steps up to radixLeafMax, sequential
// steps up to radixParMin, parallel blocks of radixBlockMin keys, and a
// parallel step with several blocks.
func radixSizes() []int {
	sizes := []int{0, 1, 2, 3, radixInsertMax, radixInsertMax + 1, 100,
		radixSmall - 1, radixSmall, radixSmall + 1, 1000,
		radixLeafMax - 1, radixLeafMax, radixLeafMax + 1,
		radixParMin - 1, radixParMin, radixParMin + 1,
		2*radixBlockMin + 17, 5*radixBlockMin + 3}
	if raceEnabled { // one size past each threshold, and a parallel step
		return []int{0, 2, radixInsertMax + 1, radixSmall + 1, radixLeafMax + 1, radixParMin + 1, 2*radixBlockMin + 17}
	}
	if !testing.Short() {
		sizes = append(sizes, 40*radixBlockMin+1)
	}
	return sizes
}

// radixInputs are the key distributions of the radix tests, each a
// function of the index i in [0, n) and a random number.
var radixInputs = []struct {
	name string
	key  func(i, n int, r uint64) uint64
}{
	{"random", func(_, _ int, r uint64) uint64 { return r }},
	{"top-bit-clear", func(_, _ int, r uint64) uint64 { return r >> 1 }},        // like the benchmark: the wide count is reused
	{"top-bits-clear", func(_, _ int, r uint64) uint64 { return r >> 2 }},       // at the limit of radixParExtra
	{"top-3-bits-clear", func(_, _ int, r uint64) uint64 { return r >> 3 }},     // past it: counted again
	{"small-range", func(_, _ int, r uint64) uint64 { return r & (1<<20 - 1) }}, // most bytes shared
	{"equal", func(_, _ int, _ uint64) uint64 { return 0x1234_5678_9abc_def0 }},
	{"sorted", func(i, _ int, _ uint64) uint64 { return uint64(i) * 0x9e37_79b9 }},
	{"reverse", func(i, n int, _ uint64) uint64 { return uint64(n-i) * 0x9e37_79b9 }},
	{"sorted-but-last", func(i, n int, r uint64) uint64 {
		if i == n-1 {
			return 0
		}
		return uint64(i + 1)
	}},
	{"reverse-but-last", func(i, n int, _ uint64) uint64 {
		if i == n-1 {
			return uint64(n)
		}
		return uint64(n - 1 - i)
	}},
	{"equal-then-random", func(i, n int, r uint64) uint64 { // sortedness must look past a run of equal keys
		if i < n/2 {
			return 7
		}
		return r
	}},
	{"two-sorted-runs", func(i, n int, _ uint64) uint64 { // ascending blocks, a descent where two meet
		return uint64((i + n/2) % max(n, 1))
	}},
	{"few-distinct", func(_, _ int, r uint64) uint64 { return (r % 5) << 40 }},
	{"few-distinct-low", func(_, _ int, r uint64) uint64 { return r % 3 }},
	{"sawtooth", func(i, _ int, _ uint64) uint64 { return uint64(i % 1000) }},
	{"one-huge-bucket", func(i, _ int, r uint64) uint64 { // 90% share the top bits: nested parallel steps
		if r%10 != 0 {
			return 0x7000_0000_0000_0000 | r>>40
		}
		return r
	}},
	{"low-bits-only-differ", func(_, _ int, r uint64) uint64 { return 0xffff_ffff_ffff_0000 | r&0xff }},
	{"sign-boundary", func(i, _ int, r uint64) uint64 { return uint64(int64(r%2000) - 1000) }},
}

// radixCase sorts the keys made by in for n and type T on w, and compares
// the result with slices.Sort.
func radixCase[T Integer](t *testing.T, w *worksteal.Worker, name string, n int, rng *rand.Rand, key func(i, n int, r uint64) uint64) {
	t.Helper()
	s := make([]T, n)
	for i := range s {
		s[i] = T(key(i, n, rng.Uint64()))
	}
	want := slices.Clone(s)
	slices.Sort(want)
	Sort(w, s)
	if !slices.Equal(s, want) {
		for i := range s {
			if s[i] != want[i] {
				t.Errorf("%s: first difference at %d of %d: %v, want %v", name, i, n, s[i], want[i])
				return
			}
		}
	}
}

// TestRadixSortInputs sorts every distribution of radixInputs at every
// size of radixSizes, for every integer type Sort sends to RadixSort, on 1
// and 2 workers, and compares with slices.Sort.
func TestRadixSortInputs(t *testing.T) {
	defer watchdog(t)()
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 3))
	workerCounts := []int{1, 2}
	if raceEnabled {
		workerCounts = []int{2}
	}
	for _, workers := range workerCounts {
		p := newTestPool(t, worksteal.Config{Workers: workers})
		for _, n := range radixSizes() {
			for _, in := range radixInputs {
				if n > 5*radixBlockMin && !slices.Contains([]string{"random", "top-bit-clear", "one-huge-bucket", "reverse"}, in.name) {
					continue // the largest size only where it takes other paths
				}
				name := fmt.Sprintf("workers=%d/n=%d/%s", workers, n, in.name)
				worksteal.Run(p, func(w *worksteal.Worker) struct{} {
					radixCase[uint64](t, w, name+"/uint64", n, rng, in.key)
					radixCase[int64](t, w, name+"/int64", n, rng, in.key)
					if n <= radixLeafMax+1 || !raceEnabled && n <= 3*radixBlockMin { // the narrower types at fewer sizes
						radixCase[int](t, w, name+"/int", n, rng, in.key)
						radixCase[uint32](t, w, name+"/uint32", n, rng, in.key)
						radixCase[int32](t, w, name+"/int32", n, rng, in.key)
						radixCase[uint16](t, w, name+"/uint16", n, rng, in.key)
						radixCase[int16](t, w, name+"/int16", n, rng, in.key)
						radixCase[uint8](t, w, name+"/uint8", n, rng, in.key)
						radixCase[int8](t, w, name+"/int8", n, rng, in.key)
						radixCase[uint](t, w, name+"/uint", n, rng, in.key)
						radixCase[uintptr](t, w, name+"/uintptr", n, rng, in.key)
					}
					return struct{}{}
				})
			}
		}
	}
}

// TestRadixSortConcurrent: sorts running at the same time, on one pool and
// from several goroutines, each get their own scratch buffer (the pool of
// buffers hands one to one sort at a time).
func TestRadixSortConcurrent(t *testing.T) {
	defer watchdog(t)()
	p := newTestPool(t, worksteal.Config{Workers: 2})
	n := 3*radixBlockMin + 5
	if raceEnabled {
		n = radixParMin + 5
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(g), 4))
			for round := range 3 {
				s := make([]uint64, n-g*round)
				for i := range s {
					s[i] = rng.Uint64() >> g
				}
				want := slices.Clone(s)
				slices.Sort(want)
				worksteal.Run(p, func(w *worksteal.Worker) struct{} { Sort(w, s); return struct{}{} })
				if !slices.Equal(s, want) {
					t.Errorf("goroutine %d round %d: not sorted like slices.Sort", g, round)
				}
			}
		}()
	}
	wg.Wait()
}

// TestRadixSortNamedSigned: a named signed type with negative values goes
// through RadixSort's sign flip.
func TestRadixSortNamedSigned(t *testing.T) {
	type temp int16
	p := newTestPool(t, worksteal.Config{Workers: 2})
	rng := rand.New(rand.NewPCG(5, 5))
	s := make([]temp, 3*radixBlockMin)
	for i := range s {
		s[i] = temp(rng.IntN(1<<16) - 1<<15)
	}
	want := slices.Clone(s)
	slices.Sort(want)
	worksteal.Run(p, func(w *worksteal.Worker) struct{} { RadixSort(w, s); return struct{}{} })
	if !slices.Equal(s, want) {
		t.Fatal("RadixSort of a named int16 type differs from slices.Sort")
	}
}

// A sort's scratch buffer serves the next sort whichever worker's P asks
// for it: eight sorts of 1M keys in a row on 4 workers and 4 Ps, each of
// fresh keys in the same slice, all use the first sort's buffer. (With a
// sync.Pool the buffer sat in the private slot of the P that put it back,
// and a sort on another P allocated and faulted in a fresh one: `bench
// cell go-ws sort 10000000 4` ran one time in four or five at 4 times its
// usual time.) Then, with no sort to take it, garbage collections let the
// buffer go.
func TestRadixScratchReusedAcrossPs(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	p := newTestPool(t, worksteal.Config{Workers: 4})
	const n = 1 << 20
	keys := make([]uint64, n)
	rng := rand.New(rand.NewPCG(7, 8))
	var first *[]uint64
	for i := range 8 {
		for j := range keys {
			keys[j] = rng.Uint64()
		}
		if err := p.Do(func(w *worksteal.Worker) { RadixSort(w, keys) }); err != nil {
			t.Fatal(err)
		}
		if !slices.IsSorted(keys) {
			t.Fatalf("sort %d: keys not sorted", i)
		}
		var b *[]uint64
		if put := radixBufSlot.Load(); put != nil {
			b = put.buf
		}
		switch {
		case b == nil:
			t.Fatalf("sort %d kept no scratch buffer for the next", i)
		case i == 0:
			first = b
		case b != first:
			t.Errorf("sort %d used a new scratch buffer, not the one the sorts before it left", i)
		}
	}
	if !testdeadline.Wait(t, time.Millisecond, func() bool { runtime.GC(); return radixBufSlot.Load() == nil }) {
		t.Fatal("the scratch buffer was still kept after garbage collections until the test's deadline")
	}
}
