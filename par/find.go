package par

import (
	"sync/atomic"

	"github.com/worksteal/worksteal"
)

// Index returns the smallest index i with pred(w, s[i]) true, or -1. It
// exits early: once a match is found, no chunk beyond it starts, and chunks
// before it finish only their part below it.
func Index[T any](w *worksteal.Worker, s []T, pred func(w *worksteal.Worker, v T) bool, opts ...LoopOption) int {
	var best atomic.Int64
	best.Store(int64(len(s)))
	l := newLoop(loopOptions(opts), struct{}{}, func(w *worksteal.Worker, lo, hi int, _ struct{}) struct{} {
		for i := lo; i < hi; i++ {
			if int64(i) >= best.Load() {
				break
			}
			if pred(w, s[i]) {
				for {
					b := best.Load()
					if int64(i) >= b || best.CompareAndSwap(b, int64(i)) {
						break
					}
				}
				break
			}
		}
		return struct{}{}
	}, noCombine)
	l.cut = &best
	l.drive(w, 0, len(s))
	if b := int(best.Load()); b < len(s) {
		return b
	}
	return -1
}

// Any reports whether pred holds for some element of s. It stops handing
// out chunks as soon as one match is found.
func Any[T any](w *worksteal.Worker, s []T, pred func(w *worksteal.Worker, v T) bool, opts ...LoopOption) bool {
	var found atomic.Bool
	var l *loop[struct{}]
	l = newLoop(loopOptions(opts), struct{}{}, func(w *worksteal.Worker, lo, hi int, _ struct{}) struct{} {
		for i := lo; i < hi; i++ {
			if pred(w, s[i]) {
				found.Store(true)
				l.stop.Store(true)
				break
			}
		}
		return struct{}{}
	}, noCombine)
	l.drive(w, 0, len(s))
	return found.Load()
}

// All reports whether pred holds for every element of s (true for an empty
// slice). It stops handing out chunks at the first counterexample.
func All[T any](w *worksteal.Worker, s []T, pred func(w *worksteal.Worker, v T) bool, opts ...LoopOption) bool {
	return !Any(w, s, func(w *worksteal.Worker, v T) bool { return !pred(w, v) }, opts...)
}
