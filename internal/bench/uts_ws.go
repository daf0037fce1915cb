package bench

import "github.com/worksteal/worksteal"

func init() {
	wsBodies["uts"] = func(param any, impl Impl) wsBody {
		b0 := param.(int)
		if impl == WSClosure {
			return func(w *worksteal.Worker) Result { return Result{Value: utsWSClosureNode(w, utsRootID, 0, b0)} }
		}
		return func(w *worksteal.Worker) Result { return Result{Value: utsWSNode(w, utsRootID, 0, b0)} }
	}
}

// utsSpan is the children lo..hi−1 of the node whose work hash is h. It is
// passed by value, so forking allocates nothing, and it is 16 bytes (three
// words) on purpose: JoinFunc's arguments (w, two functions, two spans) then
// fit in the nine integer registers of Go's calling convention; a 24-byte
// span that also carried the depth and b0 went through memory: about 12 ns
// per join over a plain call instead of 7, and the plain call itself 5 ns
// dearer (BenchmarkJoinArgSize in the root package).
// Every child sits below the root, where the tree's shape no longer depends
// on the depth or on b0 (utsKids), so the span needs neither.
type utsSpan struct {
	h      uint64
	lo, hi int32
}

// utsWSNode counts the nodes of the subtree of node id.
func utsWSNode(w *worksteal.Worker, id uint64, depth, b0 int) uint64 {
	h := utsWork(id)
	k := utsKids(h, depth, b0)
	if k == 0 {
		return 1
	}
	return 1 + utsWSSpan(w, utsSpan{h: h, lo: 0, hi: int32(k)})
}

// utsWSSpan splits its children in two halves and joins them: k children,
// k−1 joins; the upper half is offered to thieves.
func utsWSSpan(w *worksteal.Worker, s utsSpan) uint64 {
	if s.hi-s.lo == 1 {
		// Below the root: depth 1 stands for any depth >= 1 (utsKids).
		return utsWSNode(w, utsChild(s.h, int(s.lo)), 1, 0)
	}
	mid := s.lo + (s.hi-s.lo)/2
	a, b := worksteal.JoinFunc(w, utsWSSpan, utsSpan{s.h, s.lo, mid}, utsWSSpan, utsSpan{s.h, mid, s.hi})
	return a + b
}

func utsWSClosureNode(w *worksteal.Worker, id uint64, depth, b0 int) uint64 {
	h := utsWork(id)
	k := utsKids(h, depth, b0)
	if k == 0 {
		return 1
	}
	return 1 + utsWSClosureSpan(w, utsSpan{h: h, lo: 0, hi: int32(k)})
}

func utsWSClosureSpan(w *worksteal.Worker, s utsSpan) uint64 {
	if s.hi-s.lo == 1 {
		return utsWSClosureNode(w, utsChild(s.h, int(s.lo)), 1, 0)
	}
	mid := s.lo + (s.hi-s.lo)/2
	lo, hi := s, s
	lo.hi, hi.lo = mid, mid
	a, b := worksteal.Join(w,
		func(w *worksteal.Worker) uint64 { return utsWSClosureSpan(w, lo) },
		func(w *worksteal.Worker) uint64 { return utsWSClosureSpan(w, hi) })
	return a + b
}
