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

// utsSpan is the children lo..hi−1 of the node whose work hash is h; they
// sit at depth depth. Passed by value (24 bytes): forking allocates nothing.
type utsSpan struct {
	h      uint64
	lo, hi int32
	depth  int32
	b0     int32
}

// utsWSNode counts the nodes of the subtree of node id.
func utsWSNode(w *worksteal.Worker, id uint64, depth, b0 int) uint64 {
	h := utsWork(id)
	k := utsKids(h, depth, b0)
	if k == 0 {
		return 1
	}
	return 1 + utsWSSpan(w, utsSpan{h: h, lo: 0, hi: int32(k), depth: int32(depth + 1), b0: int32(b0)})
}

// utsWSSpan splits its children in two halves and joins them: k children,
// k−1 joins; the upper half is offered to thieves.
func utsWSSpan(w *worksteal.Worker, s utsSpan) uint64 {
	if s.hi-s.lo == 1 {
		return utsWSNode(w, utsChild(s.h, int(s.lo)), int(s.depth), int(s.b0))
	}
	mid := s.lo + (s.hi-s.lo)/2
	lo, hi := s, s
	lo.hi, hi.lo = mid, mid
	a, b := worksteal.JoinFunc(w, utsWSSpan, lo, utsWSSpan, hi)
	return a + b
}

func utsWSClosureNode(w *worksteal.Worker, id uint64, depth, b0 int) uint64 {
	h := utsWork(id)
	k := utsKids(h, depth, b0)
	if k == 0 {
		return 1
	}
	return 1 + utsWSClosureSpan(w, utsSpan{h: h, lo: 0, hi: int32(k), depth: int32(depth + 1), b0: int32(b0)})
}

func utsWSClosureSpan(w *worksteal.Worker, s utsSpan) uint64 {
	if s.hi-s.lo == 1 {
		return utsWSClosureNode(w, utsChild(s.h, int(s.lo)), int(s.depth), int(s.b0))
	}
	mid := s.lo + (s.hi-s.lo)/2
	lo, hi := s, s
	lo.hi, hi.lo = mid, mid
	a, b := worksteal.Join(w,
		func(w *worksteal.Worker) uint64 { return utsWSClosureSpan(w, lo) },
		func(w *worksteal.Worker) uint64 { return utsWSClosureSpan(w, hi) })
	return a + b
}
