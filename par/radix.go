package par

import (
	"math/bits"
	"runtime"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/worksteal/worksteal"
)

// The radix sort is most-significant-digit first, out of place: a step
// counts the digits of its range, then scatters the keys by digit into the
// other of two arrays (the caller's and a scratch buffer of the same
// length), so that the buckets are in their final order relative to each
// other, and each bucket is then sorted on its own.
//
// A step takes its digit from the highest bits in which the keys of its
// range differ (the OR of the keys XOR their AND, computed in the same read
// as the counts), so bits that all keys share cost nothing: keys below 2^20
// in a []uint64 take the steps of 20-bit keys, and a range of equal keys
// stops at once. Before any of this, a read that stops at the first pair
// out of order (for random keys, within the first few) tells whether the
// input is already sorted, in either direction: then it is left as is or
// reversed in place, and no scratch buffer is taken.
//
// Three kinds of step:
//
//   - A parallel step (ranges above radixParMin keys): the range is cut
//     into blocks; each block counts its digits, then scatters its keys to
//     the slots that the counts of the blocks before it leave free, so no
//     two blocks write the same slot and no lock is taken. The digit is at
//     most radixParWidth bits: a wider one makes the scatter's write
//     streams outrun the cache and the TLB (10M uint64 on the 2-core EPYC,
//     count + scatter: 28 ms at 8 bits, 32 at 10, 63 at 11). The buckets
//     are then sorted in parallel.
//   - A split step (radixLeafMax < n <= radixParMin, one worker): a narrow
//     digit that leaves buckets of about radixLeafMax keys.
//   - A leaf step (n <= radixLeafMax): a digit of about log2(n) bits, so
//     that uniform keys leave buckets of one key or none; buckets larger
//     than radixInsertMax are sorted by further steps, and one insertion
//     sort over the whole range finishes the small ones. That pass is
//     nearly free: most keys are already after their predecessor, and the
//     branch that says so is predictable, where sorting thousands of buckets
//     of 2-5 keys each mispredicts about once per key.
//
// A range whose sorted keys end up in the scratch buffer is copied home; a
// step's counts stay in a per-depth array while its buckets are sorted.
const (
	// radixSmall: at or below this many keys RadixSort calls slices.Sort.
	radixSmall = 1 << 8
	// radixInsertMax: a bucket of at most this many keys is left to the
	// insertion sort that ends a leaf step.
	radixInsertMax = 16
	// radixLeafMax is the largest range sorted by a leaf step: its counts
	// (at most 2^radixLeafBits) and keys stay in a core's L2.
	radixLeafMax  = 1 << 14
	radixLeafBits = 14
	// radixParMin: a range larger than this is split by a parallel step.
	// It also bounds the ranges sorted sequentially, so their counts fit
	// in uint32.
	radixParMin = 1 << 16
	// radixBlockMin is the least number of keys per block of a parallel
	// step.
	radixBlockMin = 1 << 15
	// radixParWidth is the widest digit of a parallel step.
	radixParWidth = 10
	// radixParExtra: the first read of a parallel step counts a digit this
	// many bits wider.
	radixParExtra = 2
	// radixMinWidth is the narrowest digit while enough bits differ: it
	// bounds the depth of the recursion (64 / 4 steps).
	radixMinWidth = 4
	radixMaxDepth = 64/radixMinWidth + 1
)

// radix is one RadixSort. A key's digits are taken from uint64(x) ^ flip,
// which maps signed values onto an unsigned order; keyMask holds the bits of
// T (uint64 of a negative value sign-extends beyond them).
type radix[T Integer] struct {
	flip, keyMask uint64
	workers       int
	buf           *[]uint64 // the scratch buffer, from radixBufSlot
}

// radixScratch holds the counts of one worker's sequential steps, one
// array per recursion depth.
type radixScratch struct {
	cnt [radixMaxDepth]*[1 << radixLeafBits]uint32
}

var radixScratchPool = sync.Pool{New: func() any { return new(radixScratch) }}

func (sc *radixScratch) counts(depth int) *[1 << radixLeafBits]uint32 {
	c := sc.cnt[depth]
	if c == nil {
		c = new([1 << radixLeafBits]uint32)
		sc.cnt[depth] = c
	}
	return c
}

// digit returns the shift and width of a digit of at most width bits whose
// top bit is bit top-1 (top >= 1).
func digit(top, width int) (uint, int) {
	width = min(width, top)
	return uint(top - width), width
}

// sortedness tells whether s is non-decreasing (asc) or non-increasing
// (desc), reading only as far as it takes to tell: on unsorted input it
// stops at the first pair that rules out both, which for random keys is
// within the first few.
func sortedness[T Integer](s []T) (asc, desc bool) {
	i := 1
	for i < len(s) && s[i-1] == s[i] {
		i++
	}
	if i >= len(s) {
		return true, true
	}
	if s[i-1] < s[i] {
		for ; i < len(s); i++ {
			if s[i-1] > s[i] {
				return false, false
			}
		}
		return true, false
	}
	for ; i < len(s); i++ {
		if s[i-1] < s[i] {
			return false, false
		}
	}
	return false, true
}

// countMask counts the digits (shift, dmask) of src into c (which it adds
// to) and returns the bits in which src's keys differ.
func countMask[T Integer](src []T, c []uint32, flip uint64, shift uint, dmask, keyMask uint64) uint64 {
	or, and := uint64(0), ^uint64(0)
	for _, x := range src {
		k := uint64(x)
		or |= k
		and &= k
		c[((k^flip)>>shift)&dmask]++
	}
	return (or ^ and) & keyMask
}

// countOrAnd counts the digits (shift, dmask) of s into c and returns the
// OR and AND of its keys.
func countOrAnd[T Integer](s []T, c []int, flip uint64, shift uint, dmask uint64) (or, and uint64) {
	or, and = 0, ^uint64(0)
	for _, x := range s {
		k := uint64(x)
		or |= k
		and &= k
		c[((k^flip)>>shift)&dmask]++
	}
	return or, and
}

// scatter moves src into dst by digit: next[d] is the slot for the next key
// with digit d, and ends past the last one.
func scatter[T Integer, C uint32 | int](src, dst []T, next []C, flip uint64, shift uint, dmask uint64) {
	for _, x := range src {
		d := ((uint64(x) ^ flip) >> shift) & dmask
		p := next[d]
		dst[p] = x
		next[d] = p + 1
	}
}

// seq sorts src sequentially (len(src) <= radixParMin); dst is scratch of
// the same length. srcHome tells whether src is the caller's array (else
// dst is): the sorted keys must end up there. top is a bound on the highest
// differing bit (bits.Len64 of the differing bits is at most top).
func (r *radix[T]) seq(src, dst []T, srcHome bool, top int, depth int, sc *radixScratch) {
	n := len(src)
	if n <= radixInsertMax {
		if !srcHome {
			copy(dst, src)
			src = dst
		}
		insertionSort(src)
		return
	}
	width := radixLeafBits
	leaf := n <= radixLeafMax
	if leaf {
		width = min(radixLeafBits, bits.Len(uint(n)))
	} else {
		width = max(radixMinWidth, bits.Len(uint(n))-radixLeafBits+1)
	}
	shift, width := digit(top, width)
	dmask := uint64(1)<<width - 1
	c := sc.counts(depth)[:1<<width]
	clear(c)
	mask := countMask(src, c, r.flip, shift, dmask, r.keyMask)
	if mask == 0 { // all keys equal
		if !srcHome {
			copy(dst, src)
		}
		return
	}
	if t := bits.Len64(mask); t < top { // the digit was too high: again
		top = t
		if leaf {
			width = min(radixLeafBits, bits.Len(uint(n)))
		}
		shift, width = digit(top, width)
		dmask = uint64(1)<<width - 1
		c = c[:1<<width]
		clear(c)
		countMask(src, c, r.flip, shift, dmask, r.keyMask)
	}
	var sum, most uint32
	for d, k := range c {
		c[d] = sum
		sum += k
		most = max(most, k)
	}
	big := most > radixInsertMax
	scatter(src, dst, c, r.flip, shift, dmask)
	// The buckets are in dst; c[d] is the end of bucket d.
	home := dst
	if srcHome {
		home = src
	}
	if leaf && !big {
		if srcHome {
			copy(src, dst)
		}
	} else {
		start := 0
		for _, e := range c {
			end := int(e)
			if end-start > radixInsertMax || !leaf && end-start > 1 {
				r.seq(dst[start:end], src[start:end], !srcHome, int(shift), depth+1, sc)
			} else if srcHome {
				copy(src[start:end], dst[start:end])
			}
			start = end
		}
	}
	// A leaf step's buckets of more than radixInsertMax keys are sorted;
	// the others are in order after this insertion sort, which moves keys
	// only within their bucket. (With shift 0, a bucket's keys are equal.)
	if leaf && shift > 0 {
		insertionSort(home)
	}
}

// par sorts src, with a parallel step when it is large; dst, srcHome and
// top as for seq. A nil dst is allocated (from radixBufSlot) when needed.
func (r *radix[T]) par(w *worksteal.Worker, src, dst []T, srcHome bool, top int) {
	n := len(src)
	if dst == nil {
		dst = r.scratch(n)
	}
	if n <= radixParMin {
		sc := radixScratchPool.Get().(*radixScratch)
		r.seq(src, dst, srcHome, top, 0, sc)
		radixScratchPool.Put(sc)
		return
	}
	nb := max(1, min(4*r.workers, n/radixBlockMin))
	block := func(b int) []T { return src[b*n/nb : (b+1)*n/nb] }
	width := max(radixMinWidth, min(radixParWidth, bits.Len(uint(n))-radixLeafBits+1))
	// The first read counts a digit radixParExtra bits wider than needed
	// (wide), so that keys whose top radixParExtra bits turn out to be
	// shared (such as non-negative int64 values) need no second count.
	wshift, wwidth := digit(top, width+radixParExtra)
	nw := 1 << wwidth
	flip, wmask, keyMask := r.flip, uint64(nw-1), r.keyMask
	wide := make([]int, nb*nw)
	ors := make([][2]uint64, nb)
	For(w, 0, nb, func(_ *worksteal.Worker, b int) {
		ors[b][0], ors[b][1] = countOrAnd(block(b), wide[b*nw:(b+1)*nw], flip, wshift, wmask)
	})
	or, and := uint64(0), ^uint64(0)
	for _, oa := range ors {
		or |= oa[0]
		and &= oa[1]
	}
	mask := (or ^ and) & keyMask
	if mask == 0 {
		if !srcHome {
			copy(dst, src)
		}
		return
	}
	top = bits.Len64(mask)
	shift, width := digit(top, width)
	nd := 1 << width
	dmask := uint64(nd - 1)
	// counts[b*nd+d]: keys of block b with digit d; then the slot where
	// block b writes its next key with digit d.
	counts := make([]int, nb*nd)
	if shift >= wshift { // the digit lies within the wide one
		for b := range nb {
			c := counts[b*nd : (b+1)*nd]
			for i, k := range wide[b*nw : (b+1)*nw] {
				c[uint64(i)>>(shift-wshift)&dmask] += k
			}
		}
	} else {
		For(w, 0, nb, func(_ *worksteal.Worker, b int) {
			c := counts[b*nd : (b+1)*nd]
			for _, x := range block(b) {
				c[((uint64(x)^flip)>>shift)&dmask]++
			}
		})
	}
	ends := make([]int, nd) // ends[d]: the end of bucket d
	sum := 0
	for d := range nd {
		for b := range nb {
			k := counts[b*nd+d]
			counts[b*nd+d] = sum
			sum += k
		}
		ends[d] = sum
	}
	For(w, 0, nb, func(_ *worksteal.Worker, b int) {
		scatter(block(b), dst, counts[b*nd:(b+1)*nd], flip, shift, dmask)
	})
	// The buckets, now in dst: large ones by further parallel steps, the
	// others sequentially, a run of buckets sharing one scratch.
	ForRange(w, 0, nd, func(w *worksteal.Worker, dlo, dhi int) {
		var sc *radixScratch
		for d := dlo; d < dhi; d++ {
			start := 0
			if d > 0 {
				start = ends[d-1]
			}
			end := ends[d]
			switch {
			case end-start <= 1 || shift == 0:
				if srcHome {
					copy(src[start:end], dst[start:end])
				}
			case end-start > radixParMin:
				r.par(w, dst[start:end], src[start:end], !srcHome, int(shift))
			default:
				if sc == nil {
					sc = radixScratchPool.Get().(*radixScratch)
				}
				r.seq(dst[start:end], src[start:end], !srcHome, int(shift), 0, sc)
			}
		}
		if sc != nil {
			radixScratchPool.Put(sc)
		}
	})
}

func insertionSort[T Integer](s []T) {
	for i := 1; i < len(s); i++ {
		x := s[i]
		j := i
		for j > 0 && s[j-1] > x {
			s[j] = s[j-1]
			j--
		}
		s[j] = x
	}
}

// reverse reverses s, in parallel when it is large.
func reverse[T any](w *worksteal.Worker, s []T) {
	n := len(s)
	ForRange(w, 0, n/2, func(_ *worksteal.Worker, lo, hi int) {
		for i := lo; i < hi; i++ {
			s[i], s[n-1-i] = s[n-1-i], s[i]
		}
	}, MinGrain(4096))
}

// radixSort is RadixSort for more than radixSmall keys.
func radixSort[T Integer](w *worksteal.Worker, s []T) {
	var zero T
	nbits := 8 * int(unsafe.Sizeof(zero))
	r := &radix[T]{keyMask: ^uint64(0) >> (64 - nbits), workers: w.Pool().Workers()}
	if zero-1 < zero { // signed
		r.flip = 1 << (nbits - 1)
	}
	switch asc, desc := sortedness(s); {
	case asc:
		return
	case desc:
		reverse(w, s)
		return
	}
	r.par(w, s, nil, true, nbits)
	if r.buf != nil {
		putRadixBuf(r.buf)
	}
}

// radixBufSlot keeps the scratch buffer of the last finished sort for
// the next one, until the garbage collector has run twice since (as a
// sync.Pool keeps what it holds): a fresh buffer of 80 MB (10M uint64)
// costs about 45 ms of page faults on the 2-core EPYC, a third of the
// sort, and up to 190 ms with more Ps than CPUs. It is one slot for the
// whole process, not a sync.Pool: a pool's Put goes to the putting P's
// private slot, which a Get on another P never sees, so the next sort,
// whose scratch a different worker's P may ask for, missed it and
// faulted in a fresh buffer (`worksteal bench cell go-ws sort 10000000 4
// 8` on 2 CPUs: one run in four or five at 225–250 ms against 56–66).
// Keys hold no pointers, so one slot of words serves every T. Swap takes
// the buffer, so two sorts never share it; of two sorts that end
// together, the later Store's buffer stays and the other is garbage.
var radixBufSlot atomic.Pointer[radixBufPut]

// radixBufPut is one putting back of a scratch buffer: each put is a new
// one, so that the release armed by an earlier put of the same buffer
// cannot take a later put out of the slot early.
type radixBufPut struct{ buf *[]uint64 }

// putRadixBuf leaves b in radixBufSlot for the next sort, and arms its
// release: after two garbage collections, if no sort took it meanwhile,
// the slot lets it go.
func putRadixBuf(b *[]uint64) {
	put := &radixBufPut{buf: b}
	radixBufSlot.Store(put)
	releaseAfterGC(put, 2)
}

// takeRadixBuf takes the buffer in radixBufSlot, if any.
func takeRadixBuf() *[]uint64 {
	if put := radixBufSlot.Swap(nil); put != nil {
		return put.buf
	}
	return nil
}

// releaseAfterGC clears radixBufSlot of put once gcs garbage collections
// have run: a sentinel object, unreachable at once, is collected by the
// next one, whose cleanup arms the next sentinel or, at the last, takes
// put out of the slot unless a sort took it or put back another (CAS).
func releaseAfterGC(put *radixBufPut, gcs int) {
	sentinel := new(radixSentinel)
	runtime.AddCleanup(sentinel, func(put *radixBufPut) {
		if gcs > 1 {
			releaseAfterGC(put, gcs-1)
			return
		}
		radixBufSlot.CompareAndSwap(put, nil)
	}, put)
}

// radixSentinel is releaseAfterGC's sentinel: large enough not to be a
// tiny allocation, which shares its block with others and may outlive
// its own references.
type radixSentinel [4]uint64

// scratch returns a scratch buffer of n keys: the one in radixBufSlot
// when it is large enough.
func (r *radix[T]) scratch(n int) []T {
	var zero T
	size := int(unsafe.Sizeof(zero))
	words := (n*size + 7) / 8
	if b := takeRadixBuf(); b != nil && len(*b) >= words {
		r.buf = b
	} else {
		buf := make([]uint64, words)
		r.buf = &buf
	}
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(*r.buf))), n)
}
