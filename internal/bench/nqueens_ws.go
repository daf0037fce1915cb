package bench

import (
	"math/bits"

	"github.com/worksteal/worksteal"
)

func init() {
	wsBodies["nqueens"] = func(param any, impl Impl) wsBody {
		n := param.(int)
		if impl == WSClosure {
			return func(w *worksteal.Worker) Result { return Result{Value: nqWSClosureNode(w, n, 0, 0)} }
		}
		return func(w *worksteal.Worker) Result { return Result{Value: nqWSNode(w, n, 0, 0)} }
	}
}

// nqSpan is a set of children of one board: the board b with queens in rows
// 0..row−1, and the columns of row row to try, one child each. It is passed
// by value (16 bytes), so forking allocates nothing.
type nqSpan struct {
	b    uint64
	cols uint16
	row  uint8
	n    uint8
}

// nqWSNode counts the solutions below board b.
func nqWSNode(w *worksteal.Worker, n, row int, b uint64) uint64 {
	if row == n {
		return 1
	}
	m := nqCols(n, row, b)
	if m == 0 {
		return 0
	}
	return nqWSSpan(w, nqSpan{b: b, cols: m, row: uint8(row), n: uint8(n)})
}

// nqWSSpan splits its children in two halves and joins them: k children,
// k−1 joins. The upper half, the larger one when k is odd, is offered to
// thieves.
func nqWSSpan(w *worksteal.Worker, s nqSpan) uint64 {
	if s.cols&(s.cols-1) == 0 { // one child
		return nqWSNode(w, int(s.n), int(s.row)+1, nqPlace(s.b, int(s.row), bits.TrailingZeros16(s.cols)))
	}
	lo, hi := nqSplit(s.cols)
	a, b := worksteal.JoinFunc(w, nqWSSpan, nqSpan{s.b, lo, s.row, s.n}, nqWSSpan, nqSpan{s.b, hi, s.row, s.n})
	return a + b
}

func nqWSClosureNode(w *worksteal.Worker, n, row int, b uint64) uint64 {
	if row == n {
		return 1
	}
	m := nqCols(n, row, b)
	if m == 0 {
		return 0
	}
	return nqWSClosureSpan(w, nqSpan{b: b, cols: m, row: uint8(row), n: uint8(n)})
}

func nqWSClosureSpan(w *worksteal.Worker, s nqSpan) uint64 {
	if s.cols&(s.cols-1) == 0 {
		return nqWSClosureNode(w, int(s.n), int(s.row)+1, nqPlace(s.b, int(s.row), bits.TrailingZeros16(s.cols)))
	}
	lo, hi := nqSplit(s.cols)
	a, b := worksteal.Join(w,
		func(w *worksteal.Worker) uint64 { return nqWSClosureSpan(w, nqSpan{s.b, lo, s.row, s.n}) },
		func(w *worksteal.Worker) uint64 { return nqWSClosureSpan(w, nqSpan{s.b, hi, s.row, s.n}) })
	return a + b
}
