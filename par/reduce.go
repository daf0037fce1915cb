package par

import (
	"cmp"

	"github.com/worksteal/worksteal"
)

// ReduceRange folds [lo, hi) in parallel: each chunk is folded by
// leaf(w, lo, hi, acc) starting from identity, and the pieces' results are
// combined with combine in index order. So the result is deterministic for
// an associative combine even if it is not commutative (string
// concatenation, matrix products); identity must be combine's neutral
// element. This is the fastest reduction for tiny per-index work: the inner
// loop is the caller's own code.
func ReduceRange[R any](w *worksteal.Worker, lo, hi int, identity R, leaf func(w *worksteal.Worker, lo, hi int, acc R) R, combine func(a, b R) R, opts ...LoopOption) R {
	return newLoop(loopOptions(opts), identity, leaf, combine).drive(w, lo, hi)
}

// MapReduce maps every element of s with mapf and combines the results with
// combine, in parallel, in index order (see ReduceRange for the contract).
func MapReduce[T, R any](w *worksteal.Worker, s []T, identity R, mapf func(w *worksteal.Worker, v T) R, combine func(a, b R) R, opts ...LoopOption) R {
	return newLoop(loopOptions(opts), identity, func(w *worksteal.Worker, lo, hi int, acc R) R {
		for i := lo; i < hi; i++ {
			acc = combine(acc, mapf(w, s[i]))
		}
		return acc
	}, combine).drive(w, 0, len(s))
}

// Reduce combines the elements of s with combine, in parallel, in index
// order; identity must be combine's neutral element. Reduce of an empty
// slice is identity.
func Reduce[T any](w *worksteal.Worker, s []T, identity T, combine func(a, b T) T, opts ...LoopOption) T {
	return newLoop(loopOptions(opts), identity, func(w *worksteal.Worker, lo, hi int, acc T) T {
		for i := lo; i < hi; i++ {
			acc = combine(acc, s[i])
		}
		return acc
	}, combine).drive(w, 0, len(s))
}

// Filter returns the elements of s for which keep reports true, in their
// original order, evaluating keep in parallel.
func Filter[T any](w *worksteal.Worker, s []T, keep func(w *worksteal.Worker, v T) bool, opts ...LoopOption) []T {
	parts := newLoop(loopOptions(opts), pieceList[T]{}, func(w *worksteal.Worker, lo, hi int, acc pieceList[T]) pieceList[T] {
		var kept []T
		for i := lo; i < hi; i++ {
			if keep(w, s[i]) {
				kept = append(kept, s[i])
			}
		}
		if len(kept) == 0 {
			return acc
		}
		node := &pieceNode[T]{items: kept}
		return acc.concat(pieceList[T]{n: len(kept), head: node, tail: node})
	}, pieceList[T].concat).drive(w, 0, len(s))
	out := make([]T, 0, parts.n)
	for p := parts.head; p != nil; p = p.next {
		out = append(out, p.items...)
	}
	return out
}

// pieceList is a singly linked list of result pieces: concatenation in
// index order is O(1), so Filter copies every kept element once.
type pieceList[T any] struct {
	n          int
	head, tail *pieceNode[T]
}

type pieceNode[T any] struct {
	items []T
	next  *pieceNode[T]
}

func (a pieceList[T]) concat(b pieceList[T]) pieceList[T] {
	if a.head == nil {
		return b
	}
	if b.head == nil {
		return a
	}
	a.tail.next = b.head
	return pieceList[T]{n: a.n + b.n, head: a.head, tail: b.tail}
}

// extreme is a candidate minimum or maximum and its index.
type extreme[T any] struct {
	v  T
	i  int
	ok bool
}

// MinFunc returns the first smallest element of s under cmp (cmp(a, b) < 0
// when a is smaller) and its index, or ok == false for an empty slice.
func MinFunc[T any](w *worksteal.Worker, s []T, cmp func(a, b T) int, opts ...LoopOption) (v T, index int, ok bool) {
	return pick(w, s, func(a, b T) bool { return cmp(b, a) < 0 }, opts)
}

// MaxFunc returns the first largest element of s under cmp and its index, or
// ok == false for an empty slice.
func MaxFunc[T any](w *worksteal.Worker, s []T, cmp func(a, b T) int, opts ...LoopOption) (v T, index int, ok bool) {
	return pick(w, s, func(a, b T) bool { return cmp(b, a) > 0 }, opts)
}

// Min returns the smallest element of s, or ok == false for an empty slice.
// Like the built-in min, a NaN anywhere makes the result NaN.
func Min[T cmp.Ordered](w *worksteal.Worker, s []T, opts ...LoopOption) (v T, ok bool) {
	v, _, ok = pick(w, s, func(cur, x T) bool { return x < cur || x != x }, opts)
	return v, ok
}

// Max returns the largest element of s, or ok == false for an empty slice.
// Like the built-in max, a NaN anywhere makes the result NaN.
func Max[T cmp.Ordered](w *worksteal.Worker, s []T, opts ...LoopOption) (v T, ok bool) {
	v, _, ok = pick(w, s, func(cur, x T) bool { return x > cur || x != x }, opts)
	return v, ok
}

// pick returns the first element that no later element replaces: better(cur,
// x) reports whether x should replace the current candidate cur.
func pick[T any](w *worksteal.Worker, s []T, better func(cur, x T) bool, opts []LoopOption) (T, int, bool) {
	combine := func(a, b extreme[T]) extreme[T] {
		if !a.ok || b.ok && better(a.v, b.v) {
			return b
		}
		return a
	}
	r := newLoop(loopOptions(opts), extreme[T]{}, func(w *worksteal.Worker, lo, hi int, acc extreme[T]) extreme[T] {
		for i := lo; i < hi; i++ {
			if !acc.ok || better(acc.v, s[i]) {
				acc = extreme[T]{s[i], i, true}
			}
		}
		return acc
	}, combine).drive(w, 0, len(s))
	return r.v, r.i, r.ok
}
