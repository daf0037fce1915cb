package par

import (
	"slices"

	"github.com/worksteal/worksteal"
)

const (
	// radixSeqMax: at or below this many keys, slices.Sort is faster.
	radixSeqMax = 1 << 12
	// radixSplitMin: a bucket larger than this is split again by its next
	// digit in parallel; smaller ones are sorted sequentially (they fit in
	// a core's L2 cache, where the LSD passes are cheap).
	radixSplitMin = 1 << 17
)

// radix is one RadixSort: keys are uint64(x) ^ flip, which maps signed
// values onto an unsigned order.
type radix[T Integer] struct {
	flip    uint64
	bits    uint
	workers int
	fn      func(w *worksteal.Worker, t radixTask[T]) struct{}
}

// radixTask sorts src by the digits at shift and below (the higher digits
// are equal across src). dst is scratch of the same length. srcHome tells
// whether src belongs to the caller's slice (else dst does): the sorted keys
// must end up there.
type radixTask[T Integer] struct {
	src, dst []T
	shift    uint
	srcHome  bool
}

func (r *radix[T]) digit(x T, shift uint) int {
	return int((uint64(x) ^ r.flip) >> shift & 0xff)
}

// moveHome puts sorted data held in src into the home array.
func (t radixTask[T]) moveHome() {
	if !t.srcHome {
		copy(t.dst, t.src)
	}
}

// msd sorts t: one parallel pass on the digit at t.shift, then the buckets
// in parallel.
func (r *radix[T]) msd(w *worksteal.Worker, t radixTask[T]) struct{} {
	n := len(t.src)
	if n <= radixSeqMax {
		slices.Sort(t.src)
		t.moveHome()
		return struct{}{}
	}
	if n <= radixSplitMin {
		r.lsd(t)
		return struct{}{}
	}
	// Count digits by blocks, in parallel.
	blocks := min(4*r.workers, n/radixSeqMax)
	counts := make([][256]int, blocks)
	blockOf := func(b int) (int, int) { return b * n / blocks, (b + 1) * n / blocks }
	For(w, 0, blocks, func(_ *worksteal.Worker, b int) {
		lo, hi := blockOf(b)
		c := &counts[b]
		for _, x := range t.src[lo:hi] {
			c[r.digit(x, t.shift)]++
		}
	})
	var total, base [256]int
	for b := range counts {
		for d, c := range counts[b] {
			total[d] += c
		}
	}
	for d, sum := 1, 0; d < 256; d++ {
		sum += total[d-1]
		base[d] = sum
	}
	if t.shift > 0 && slices.Contains(total[:], n) {
		// Every key has the same digit here: go straight to the next one.
		return r.msd(w, radixTask[T]{t.src, t.dst, t.shift - 8, t.srcHome})
	}
	// Scatter by blocks, in parallel: block b writes its keys with digit d
	// from base[d] + (keys with digit d in blocks before b) on, so the pass
	// is stable.
	offs := make([][256]int, blocks)
	run := base
	for b := range counts {
		offs[b] = run
		for d, c := range counts[b] {
			run[d] += c
		}
	}
	For(w, 0, blocks, func(_ *worksteal.Worker, b int) {
		lo, hi := blockOf(b)
		o := &offs[b]
		for _, x := range t.src[lo:hi] {
			d := r.digit(x, t.shift)
			t.dst[o[d]] = x
			o[d]++
		}
	})
	// The buckets, in parallel (a bucket's cost grows with its size, and the
	// adaptive loop balances them).
	For(w, 0, 256, func(w *worksteal.Worker, d int) {
		lo, hi := base[d], base[d]+total[d]
		if lo == hi {
			return
		}
		sub := radixTask[T]{t.dst[lo:hi], t.src[lo:hi], t.shift - 8, !t.srcHome}
		if t.shift == 0 {
			sub.moveHome() // the last digit: the bucket is sorted
			return
		}
		r.msd(w, sub)
	})
	return struct{}{}
}

// lsd sorts t sequentially: least-significant-digit counting passes over the
// digits at t.shift and below, skipping digits every key shares.
func (r *radix[T]) lsd(t radixTask[T]) {
	ndig := int(t.shift/8) + 1
	var hist [8][256]int
	for _, x := range t.src {
		k := uint64(x) ^ r.flip
		for d := 0; d < ndig; d++ {
			hist[d][k>>(8*uint(d))&0xff]++
		}
	}
	cur, other := t.src, t.dst
	curHome := t.srcHome
	n := len(t.src)
	for d := 0; d < ndig; d++ {
		h := &hist[d]
		if slices.Contains(h[:], n) {
			continue
		}
		var off [256]int
		for i, sum := 0, 0; i < 256; i++ {
			off[i] = sum
			sum += h[i]
		}
		shift := 8 * uint(d)
		for _, x := range cur {
			dg := int((uint64(x) ^ r.flip) >> shift & 0xff)
			other[off[dg]] = x
			off[dg]++
		}
		cur, other = other, cur
		curHome = !curHome
	}
	if !curHome {
		copy(other, cur)
	}
}
