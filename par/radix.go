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

// msd sorts t: small inputs sequentially; larger ones by one parallel pass
// on the digit at t.shift (census, then scatter into 256 buckets), then the
// buckets in parallel, each by the next digit.
func (r *radix[T]) msd(w *worksteal.Worker, t radixTask[T]) {
	n := len(t.src)
	switch {
	case n <= radixSeqMax:
		slices.Sort(t.src)
		t.moveHome()
		return
	case n <= radixSplitMin:
		r.lsd(t)
		return
	}
	c := r.census(w, t)
	for t.shift > 0 && slices.Contains(c.total[:], n) {
		// Every key has the same digit here: go straight to the next one.
		t.shift -= 8
		c = r.census(w, t)
	}
	r.scatter(w, t, c)
	r.sortBuckets(w, t, c)
}

// digitCensus is one MSD pass's count of the digit at its shift: the input
// is cut into blocks, counts[b][d] is the number of keys with digit d in
// block b, total[d] the number in all blocks, and bucket d of the output
// starts at base[d].
type digitCensus struct {
	n           int
	counts      [][256]int
	total, base [256]int
}

// block returns the bounds of block b of the input.
func (c *digitCensus) block(b int) (lo, hi int) {
	blocks := len(c.counts)
	return b * c.n / blocks, (b + 1) * c.n / blocks
}

// census counts the digits at t.shift, block by block in parallel (blocks
// of at least radixSeqMax keys, about four per worker).
func (r *radix[T]) census(w *worksteal.Worker, t radixTask[T]) *digitCensus {
	n := len(t.src)
	c := &digitCensus{n: n, counts: make([][256]int, min(4*r.workers, n/radixSeqMax))}
	For(w, 0, len(c.counts), func(_ *worksteal.Worker, b int) {
		lo, hi := c.block(b)
		cb := &c.counts[b]
		for _, x := range t.src[lo:hi] {
			cb[r.digit(x, t.shift)]++
		}
	})
	for b := range c.counts {
		for d, k := range c.counts[b] {
			c.total[d] += k
		}
	}
	for d, sum := 1, 0; d < 256; d++ {
		sum += c.total[d-1]
		c.base[d] = sum
	}
	return c
}

// scatter moves t.src into t.dst grouped by the digit at t.shift, block by
// block in parallel: block b writes its keys with digit d from base[d] +
// (keys with digit d in the blocks before b) on, in their order, so the
// pass is stable and no two blocks write the same slot.
func (r *radix[T]) scatter(w *worksteal.Worker, t radixTask[T], c *digitCensus) {
	offs := make([][256]int, len(c.counts))
	next := c.base
	for b := range c.counts {
		offs[b] = next
		for d, k := range c.counts[b] {
			next[d] += k
		}
	}
	For(w, 0, len(c.counts), func(_ *worksteal.Worker, b int) {
		lo, hi := c.block(b)
		o := &offs[b]
		for _, x := range t.src[lo:hi] {
			d := r.digit(x, t.shift)
			t.dst[o[d]] = x
			o[d]++
		}
	})
}

// sortBuckets sorts the 256 buckets that scatter left in t.dst by the
// digits below t.shift, in parallel (a bucket's cost grows with its size,
// and the adaptive loop balances them). The buckets' keys live in t.dst,
// so their home flips: a bucket sorted into t.src must be copied back.
func (r *radix[T]) sortBuckets(w *worksteal.Worker, t radixTask[T], c *digitCensus) {
	For(w, 0, 256, func(w *worksteal.Worker, d int) {
		lo, hi := c.base[d], c.base[d]+c.total[d]
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
