package par

import (
	"cmp"
	"math/bits"
	"slices"

	"github.com/worksteal/worksteal"
)

// Sort sorts s in ascending order, in parallel on w's pool. Slices of the
// built-in integer types are sorted by the parallel radix sort of
// [RadixSort]; other types by a parallel merge sort whose leaves are sorted
// with slices.Sort. Sort is not guaranteed to be stable (for ordered types
// only NaNs and signed zeros can tell). NaNs sort first, as in slices.Sort.
// Sort needs a scratch buffer as large as s.
func Sort[T cmp.Ordered](w *worksteal.Worker, s []T) {
	switch x := any(s).(type) {
	case []int:
		RadixSort(w, x)
	case []int64:
		RadixSort(w, x)
	case []int32:
		RadixSort(w, x)
	case []int16:
		RadixSort(w, x)
	case []int8:
		RadixSort(w, x)
	case []uint:
		RadixSort(w, x)
	case []uint64:
		RadixSort(w, x)
	case []uint32:
		RadixSort(w, x)
	case []uint16:
		RadixSort(w, x)
	case []uint8:
		RadixSort(w, x)
	case []uintptr:
		RadixSort(w, x)
	default:
		mergeSort(w, s, cmp.Less[T], slices.Sort[[]T])
	}
}

// SortFunc sorts s in ascending order as determined by cmp (negative when a
// sorts before b), in parallel, in place: a quicksort whose partitions fork
// (Join) and whose pieces of about len(s)/(8 × workers) elements are sorted
// by slices.SortFunc. The partitions of the top levels, where there are
// fewer pieces than workers, are themselves parallel (see parPartition).
// On one active worker it is slices.SortFunc. It is not stable; see
// SortStableFunc. It needs no scratch buffer: a parallel partition keeps
// a few words per chunk.
//
// A merge sort, as before, compared each element once per level of merging
// through cmp on top of the leaves' own sort: at 2 workers it was slower
// than the sequential slices.SortFunc (1,119 against 836 ms on 5 M ints,
// issue 30). A sequential partition costs one pass over its piece; with
// only those, the top partitions ran on one worker alone and capped the
// speedup (5.9x at 16 workers on 5 M ints, where the merge sort reached
// 10x): a partition of a piece larger than len(s)/workers now runs in
// parallel (BenchmarkSortFunc).
func SortFunc[T any](w *worksteal.Worker, s []T, cmp func(a, b T) int) {
	workers := w.Pool().ActiveWorkers()
	if workers == 1 || len(s) <= quickSeqMax {
		slices.SortFunc(s, cmp)
		return
	}
	newQuicker(cmp, len(s), workers).run(w, s)
}

// newQuicker sets up the quicksort of n elements on workers workers.
func newQuicker[T any](cmp func(a, b T) int, n, workers int) *quicker[T] {
	q := &quicker[T]{cmp: cmp, leaf: max(quickSeqMax, n/(8*workers))}
	// Pieces larger than n/workers are partitioned in parallel, in chunks
	// of n/(4 × workers): every level above the one with a piece per
	// worker then gives each worker about four chunks.
	q.chunk = max(partChunkMin, n/(4*workers))
	q.parMin = max(2*q.chunk, n/workers)
	q.init()
	return q
}

func (q *quicker[T]) run(w *worksteal.Worker, s []T) {
	q.sort(w, quickTask[T]{s: s, depth: 2 * bits.Len(uint(len(s)))})
}

// quickSeqMax is the size at or below which SortFunc sorts sequentially.
const quickSeqMax = 1 << 12

// partChunkMin is the smallest chunk a parallel partition gives one task:
// a sequential partition of it takes tens of microseconds, which a fork
// and the swap pass's bookkeeping are small beside.
const partChunkMin = 1 << 14

type quicker[T any] struct {
	cmp    func(a, b T) int
	leaf   int // pieces this small go to slices.SortFunc
	parMin int // pieces this large are partitioned in parallel
	chunk  int // the size of a parallel partition's chunks
	fn     func(w *worksteal.Worker, t quickTask[T]) struct{}
	partFn func(w *worksteal.Worker, t partTask[T]) struct{}
	swapFn func(w *worksteal.Worker, t swapTask[T]) struct{}
}

func (q *quicker[T]) init() {
	q.fn, q.partFn, q.swapFn = q.sort, q.partChunks, q.swapRuns
}

type quickTask[T any] struct {
	s     []T
	depth int // partitions left before a piece goes to slices.SortFunc whatever its size
}

// sort partitions t.s around a pivot and sorts the two sides in parallel,
// until the pieces are leaves (or the depth budget, which bounds the damage
// of bad pivots, is spent).
func (q *quicker[T]) sort(w *worksteal.Worker, t quickTask[T]) struct{} {
	s := t.s
	if len(s) <= q.leaf || t.depth == 0 {
		slices.SortFunc(s, q.cmp)
		return struct{}{}
	}
	var m int
	if len(s) >= q.parMin {
		m = q.parPartition(w, s)
	} else {
		m = q.partition(s)
	}
	worksteal.JoinFunc(w, q.fn, quickTask[T]{s[:m], t.depth - 1}, q.fn, quickTask[T]{s[m+1:], t.depth - 1})
	return struct{}{}
}

// partition moves a pivot (the median of three medians of three, spread
// over s) to its place m and returns m: s[:m] <= s[m] <= s[m+1:]. Elements
// equal to the pivot stop both scans and are swapped, so many equal keys
// still split in the middle (Hoare's scheme).
func (q *quicker[T]) partition(s []T) int {
	q.pivotFirst(s)
	m := q.partitionAround(s[1:], s[0])
	// s[1:m+1] <= pivot <= s[m+1:]: the pivot goes between, at s[m], and
	// the element there (the last of the left side, or the pivot itself
	// when m is 0) to s[0].
	s[0], s[m] = s[m], s[0]
	return m
}

// pivotFirst moves the pivot, the median of three medians of three spread
// over s, to s[0].
func (q *quicker[T]) pivotFirst(s []T) {
	cmp := q.cmp
	n := len(s)
	med3 := func(a, b, c int) int {
		if cmp(s[b], s[a]) < 0 {
			a, b = b, a
		}
		if cmp(s[c], s[b]) < 0 {
			b = c
			if cmp(s[b], s[a]) < 0 {
				b = a
			}
		}
		return b
	}
	e := n / 8
	p := med3(med3(0, e, 2*e), med3(3*e, 4*e, 5*e), med3(6*e, 7*e, n-1))
	s[0], s[p] = s[p], s[0]
}

// SortStableFunc sorts s like SortFunc, keeping equal elements in their
// original order.
func SortStableFunc[T any](w *worksteal.Worker, s []T, cmp func(a, b T) int) {
	mergeSort(w, s, func(a, b T) bool { return cmp(a, b) < 0 },
		func(x []T) { slices.SortStableFunc(x, cmp) })
}

// Below these sizes sorting and merging run sequentially.
const (
	sortLeafMin  = 1 << 11
	mergeLeafMax = 1 << 13
)

// merger sorts one slice: a parallel merge sort with a ping-pong buffer.
// The merge is stable (ties take the left run first), so the whole sort is
// stable exactly when its leaf sort is.
type merger[T any] struct {
	less     func(a, b T) bool
	leafSort func([]T)
	leaf     int
	sortFn   func(w *worksteal.Worker, t sortTask[T]) struct{}
	mergeFn  func(w *worksteal.Worker, t mergeTask[T]) struct{}
}

type sortTask[T any] struct {
	src, buf []T
	toBuf    bool // leave the sorted result in buf instead of src
}

type mergeTask[T any] struct {
	a, b, out []T
}

func mergeSort[T any](w *worksteal.Worker, s []T, less func(a, b T) bool, leafSort func([]T)) {
	if len(s) <= sortLeafMin {
		leafSort(s)
		return
	}
	newMerger(less, leafSort, len(s), w.Pool().Workers()).run(w, s)
}

// newMerger sets up the merge sort of n elements on workers workers.
func newMerger[T any](less func(a, b T) bool, leafSort func([]T), n, workers int) *merger[T] {
	m := &merger[T]{less: less, leafSort: leafSort}
	// Leaves small enough that every worker gets several, large enough that
	// each is worth a join: about 8 per worker.
	m.leaf = max(sortLeafMin, n/(8*workers))
	m.sortFn, m.mergeFn = m.sort, m.merge
	return m
}

func (m *merger[T]) run(w *worksteal.Worker, s []T) {
	m.sort(w, sortTask[T]{src: s, buf: make([]T, len(s))})
}

func (m *merger[T]) sort(w *worksteal.Worker, t sortTask[T]) struct{} {
	n := len(t.src)
	if n <= m.leaf {
		m.leafSort(t.src)
		if t.toBuf {
			copy(t.buf, t.src)
		}
		return struct{}{}
	}
	mid := n / 2
	// Sort each half into the other array, then merge back.
	worksteal.JoinFunc(w, m.sortFn, sortTask[T]{t.src[:mid], t.buf[:mid], !t.toBuf},
		m.sortFn, sortTask[T]{t.src[mid:], t.buf[mid:], !t.toBuf})
	if t.toBuf {
		m.merge(w, mergeTask[T]{t.src[:mid], t.src[mid:], t.buf})
	} else {
		m.merge(w, mergeTask[T]{t.buf[:mid], t.buf[mid:], t.src})
	}
	return struct{}{}
}

// merge merges the sorted runs a and b into out (len(a)+len(b)), in
// parallel: it splits the longer run at its middle element and the other run
// at the matching position, so that equal elements of a stay before those
// of b (stability).
func (m *merger[T]) merge(w *worksteal.Worker, t mergeTask[T]) struct{} {
	a, b, out := t.a, t.b, t.out
	if len(a)+len(b) <= mergeLeafMax {
		mergeSeq(a, b, out, m.less)
		return struct{}{}
	}
	var i, j int
	if len(a) >= len(b) {
		i = len(a) / 2
		x := a[i]
		// first j with b[j] >= x: b[:j] < x, so equal b's go right, after a[i]
		j = searchFirst(len(b), func(k int) bool { return !m.less(b[k], x) })
	} else {
		j = len(b) / 2
		y := b[j]
		// first i with a[i] > y: equal a's stay left, before b[j]
		i = searchFirst(len(a), func(k int) bool { return m.less(y, a[k]) })
	}
	worksteal.JoinFunc(w, m.mergeFn, mergeTask[T]{a[:i], b[:j], out[:i+j]},
		m.mergeFn, mergeTask[T]{a[i:], b[j:], out[i+j:]})
	return struct{}{}
}

// searchFirst returns the smallest k in [0, n) with f(k) true (f is
// monotone), or n.
func searchFirst(n int, f func(int) bool) int {
	lo, hi := 0, n
	for lo < hi {
		h := int(uint(lo+hi) >> 1)
		if !f(h) {
			lo = h + 1
		} else {
			hi = h
		}
	}
	return lo
}

// mergeSeq merges sorted a and b into out, taking from a on ties.
func mergeSeq[T any](a, b, out []T, less func(a, b T) bool) {
	i, j, k := 0, 0, 0
	for i < len(a) && j < len(b) {
		if less(b[j], a[i]) {
			out[k] = b[j]
			j++
		} else {
			out[k] = a[i]
			i++
		}
		k++
	}
	k += copy(out[k:], a[i:])
	copy(out[k:], b[j:])
}

// Integer is the set of integer types RadixSort sorts.
type Integer interface {
	~int | ~int8 | ~int16 | ~int32 | ~int64 |
		~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uintptr
}

// RadixSort sorts integers in ascending order, in parallel, by a
// most-significant-digit radix sort that looks only at the bits in which the
// keys differ: one parallel step (up to 10-bit digits; blocks of the input
// count and scatter in parallel) splits s into buckets, which are then
// sorted in parallel, each by further steps in one worker's cache and
// insertion sorts of the smallest ranges. Input that is already sorted, in
// either direction, costs one read (and a reversal). It needs a scratch
// buffer as large as s (except for sorted or small input), which it keeps
// for the next sort until the garbage collector drops it, and is stable.
func RadixSort[T Integer](w *worksteal.Worker, s []T) {
	if len(s) <= radixSmall {
		slices.Sort(s)
		return
	}
	radixSort(w, s)
}
