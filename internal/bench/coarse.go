package bench

import (
	"math"
	"runtime"
	"sync"
	"sync/atomic"
)

// coarse: a binary fork-join tree over coarseLeaves heavy-tailed leaves of
// CPU work (0.2–8 ms each, about 100 ms in all), the shape of a user's
// divide and conquer with a coarse sequential base case (issue 30 part 2).
// Size is the seed of the leaf durations. "coarse" leaves never poll;
// "coarse-poll" leaves call Worker.Poll every coarsePollEvery iterations
// (the two differ only in the worksteal implementations). The Rust rayon
// version (scripts/coarse-rayon) draws the same leaves and spins the same
// loop, so its result is the same number.

const (
	coarseLeaves = 64
	// coarseItersPerMs is the nominal number of spin iterations in a
	// leaf's millisecond (about a millisecond on the 2-core EPYC
	// development machine; the same count in every language).
	coarseItersPerMs = 400_000
	// coarsePollEvery: "coarse-poll" leaves poll every this many
	// iterations (about 25 µs).
	coarsePollEvery = 10_000
)

func init() {
	for _, name := range []string{"coarse", "coarse-poll"} {
		doc := "binary Join tree over 64 heavy-tailed CPU leaves of 0.2-8 ms (about 100 ms in all) that never poll; size = seed"
		if name == "coarse-poll" {
			doc = "coarse with leaves that call Worker.Poll every ~25 µs; size = seed"
		}
		register(&workload{
			name:       name,
			doc:        doc,
			sizes:      []string{"1", "2", "3"},
			quickSizes: []string{"1"},
			parse:      parseCoarse,
		})
	}
}

// coarseTree is the parsed size: the leaves' iteration counts.
type coarseTree struct {
	iters []uint64
}

func parseCoarse(size string) (*problem, error) {
	seed, err := atoiIn("coarse", size, 0, 1<<30)
	if err != nil {
		return nil, err
	}
	t := &coarseTree{iters: coarseLeafIters(uint64(seed))}
	return &problem{
		seq:      func() Result { return Result{Value: t.seq(0, len(t.iters))} },
		wg:       func() Result { return Result{Value: t.wg(0, len(t.iters))} },
		wgCutoff: func() Result { return Result{Value: t.wg(0, len(t.iters))} },
		counter:  func() Result { return Result{Value: t.counter()} },
		joins:    func() int64 { return int64(len(t.iters) - 1) },
		param:    t,
	}, nil
}

// coarseLeafIters draws the leaves: leaf i runs 0.2 ms × 40^(u^1.5)
// (u uniform in [0, 1) from splitmix64 of seed and i), 0.2–8 ms, mostly
// short with a few long ones (mean ≈ 1.6 ms).
func coarseLeafIters(seed uint64) []uint64 {
	out := make([]uint64, coarseLeaves)
	for i := range out {
		u := float64(splitmix64(seed*coarseLeaves+uint64(i))>>11) / (1 << 53)
		ms := 0.2 * math.Pow(40, math.Pow(u, 1.5))
		out[i] = uint64(ms * coarseItersPerMs)
	}
	return out
}

func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// coarseSpin is a leaf's work: n steps of a dependent multiply-xorshift
// chain from x (nothing to vectorize or skip); poll, if not nil, is
// called every coarsePollEvery steps.
func coarseSpin(n, x uint64, poll func()) uint64 {
	for n > 0 {
		k := min(n, coarsePollEvery)
		for range k {
			x = x*6364136223846793005 + 1442695040888963407
			x ^= x >> 29
		}
		n -= k
		if poll != nil {
			poll()
		}
	}
	return x
}

// leaf is leaf i's result; the tree's value is the xor of them all.
func (t *coarseTree) leaf(i int, poll func()) uint64 {
	return coarseSpin(t.iters[i], uint64(i)+1, poll)
}

func (t *coarseTree) seq(lo, hi int) uint64 {
	if hi-lo == 1 {
		return t.leaf(lo, nil)
	}
	mid := (lo + hi) / 2
	return t.seq(lo, mid) ^ t.seq(mid, hi)
}

// counter runs the leaves on GOMAXPROCS goroutines that take them from an
// atomic counter in index order: no scheduler, no tree (the Counter
// baseline; scripts/coarse-rayon's rust-counter does the same with threads).
func (t *coarseTree) counter() uint64 {
	var next atomic.Int64
	var wg sync.WaitGroup
	var mu sync.Mutex
	var x uint64
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			var own uint64
			for i := int(next.Add(1) - 1); i < len(t.iters); i = int(next.Add(1) - 1) {
				own ^= t.leaf(i, nil)
			}
			mu.Lock()
			x ^= own
			mu.Unlock()
		})
	}
	wg.Wait()
	return x
}

// wg forks the right half as a goroutine at every inner node (64 leaf
// goroutines in all: a goroutine per leaf, as a user would write it).
func (t *coarseTree) wg(lo, hi int) uint64 {
	if hi-lo == 1 {
		return t.leaf(lo, nil)
	}
	mid := (lo + hi) / 2
	var b uint64
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		b = t.wg(mid, hi)
		wg.Done()
	}()
	a := t.wg(lo, mid)
	wg.Wait()
	return a ^ b
}
