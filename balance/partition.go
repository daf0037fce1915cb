package balance

import (
	"cmp"
	"fmt"
	"slices"
	"sort"
)

// Range is the half-open interval of indices [Lo, Hi). A Range with Lo == Hi
// is empty. Every partitioner and loop schedule in this package hands out
// Ranges, so the same loop body func(lo, hi int) runs under any of them.
type Range struct {
	Lo, Hi int // first index, and one past the last
}

// Len returns the number of indices in r, Hi − Lo.
func (r Range) Len() int { return r.Hi - r.Lo }

// String formats r as "[lo,hi)".
func (r Range) String() string { return fmt.Sprintf("[%d,%d)", r.Lo, r.Hi) }

// Split cuts [0, n) into parts contiguous ranges whose lengths differ by at
// most one, in order, like numpy's array_split: the first n mod parts ranges
// get one extra index. When parts > n the trailing ranges are empty, so the
// result always has exactly parts elements and range i is what static
// scheduling gives worker i.
//
// Panics: if n < 0 or parts < 1.
func Split(n, parts int) []Range {
	if n < 0 {
		panic(fmt.Sprintf("balance: Split with n = %d < 0", n))
	}
	if parts < 1 {
		panic(fmt.Sprintf("balance: Split with parts = %d < 1", parts))
	}
	out := make([]Range, parts)
	for i := range out {
		out[i] = splitAt(n, parts, i)
	}
	return out
}

// splitAt returns the i-th range of Split(n, parts) in O(1), without
// allocating; the Static schedule uses it.
func splitAt(n, parts, i int) Range {
	q, r := n/parts, n%parts
	lo := i*q + min(i, r)
	hi := lo + q
	if i < r {
		hi++
	}
	return Range{lo, hi}
}

// Chunks cuts [0, n) into consecutive ranges of size length; the last one is
// shorter when size does not divide n. It returns nil for n == 0. This is the
// sequence of chunks the Dynamic schedule hands out.
//
// Panics: if n < 0 or size < 1.
func Chunks(n, size int) []Range {
	if n < 0 {
		panic(fmt.Sprintf("balance: Chunks with n = %d < 0", n))
	}
	if size < 1 {
		panic(fmt.Sprintf("balance: Chunks with size = %d < 1", size))
	}
	if n == 0 {
		return nil
	}
	out := make([]Range, 0, (n+size-1)/size)
	for lo := 0; lo < n; lo += size {
		out = append(out, Range{lo, min(lo+size, n)})
	}
	return out
}

// RoundRobin deals the items [0, n) to workers like cards: item i goes to
// worker i mod workers. It returns, for each worker, the indices it owns in
// increasing order. Round-robin interleaves neighbouring items, which evens
// out a cost that drifts smoothly with the index (Mandelbrot rows, triangular
// loops) where contiguous chunks would not, at the price of locality.
//
// Panics: if n < 0 or workers < 1.
func RoundRobin(n, workers int) [][]int {
	if n < 0 {
		panic(fmt.Sprintf("balance: RoundRobin with n = %d < 0", n))
	}
	if workers < 1 {
		panic(fmt.Sprintf("balance: RoundRobin with workers = %d < 1", workers))
	}
	out := make([][]int, workers)
	for w := range out {
		out[w] = make([]int, 0, splitAt(n, workers, w).Len())
	}
	for i := range n {
		out[i%workers] = append(out[i%workers], i)
	}
	return out
}

// QuantileBounds picks parts−1 boundary keys that cut the sorted keys into
// parts contiguous key ranges holding about the same number of keys: bound j
// is the key at index ⌊(j+1)·n/parts⌋. Keys equal to a bound belong to the
// range above it (see RangeIndex), so runs of duplicate keys are never split
// across ranges; heavy duplicates can therefore leave some ranges larger and
// some empty. It returns nil when keys is empty or parts == 1.
//
// This is how range partitioning samples its split points (sort a sample,
// take its quantiles) before routing every key with RangeIndex.
//
// Panics: if parts < 1 or keys is not sorted.
func QuantileBounds[K cmp.Ordered](keys []K, parts int) []K {
	if parts < 1 {
		panic(fmt.Sprintf("balance: QuantileBounds with parts = %d < 1", parts))
	}
	if !slices.IsSorted(keys) {
		panic("balance: QuantileBounds keys are not sorted")
	}
	n := len(keys)
	if n == 0 || parts == 1 {
		return nil
	}
	bounds := make([]K, parts-1)
	for j := range bounds {
		bounds[j] = keys[min((j+1)*n/parts, n-1)]
	}
	return bounds
}

// RangeIndex routes key to its range under the sorted boundaries bounds:
// range 0 is (−∞, bounds[0]), range i is [bounds[i−1], bounds[i]), and range
// len(bounds) is [bounds[len−1], +∞). It returns the number of bounds ≤ key,
// found by binary search in O(log len(bounds)).
func RangeIndex[K cmp.Ordered](bounds []K, key K) int {
	return sort.Search(len(bounds), func(i int) bool { return key < bounds[i] })
}

// SplitByBounds cuts the sorted keys into len(bounds)+1 contiguous index
// ranges, range i holding exactly the keys that RangeIndex sends to i. Use it
// with QuantileBounds to range-partition sorted data in place.
//
// Panics: if keys or bounds is not sorted.
func SplitByBounds[K cmp.Ordered](keys, bounds []K) []Range {
	if !slices.IsSorted(keys) {
		panic("balance: SplitByBounds keys are not sorted")
	}
	if !slices.IsSorted(bounds) {
		panic("balance: SplitByBounds bounds are not sorted")
	}
	out := make([]Range, len(bounds)+1)
	lo := 0
	for i, b := range bounds {
		hi := lo + sort.Search(len(keys)-lo, func(j int) bool { return keys[lo+j] >= b })
		out[i] = Range{lo, hi}
		lo = hi
	}
	out[len(bounds)] = Range{lo, len(keys)}
	return out
}
