package bench

import "github.com/worksteal/worksteal"

func init() {
	wsBodies["uts-sha1"] = func(param any, impl Impl) wsBody {
		t := param.(*UTSTree)
		if impl == WSClosure {
			return func(w *worksteal.Worker) Result { return shaWSClosureNode(w, t, utsRoot(t.R), 0).result() }
		}
		return func(w *worksteal.Worker) Result { return shaWSNode(w, t, utsRoot(t.R), 0).result() }
	}
}

// shaSpan is the children lo..hi−1 of the node with state s; they sit at
// depth depth. Passed by value (40 bytes; the tree is shared and read-only):
// forking allocates nothing.
type shaSpan struct {
	t      *UTSTree
	s      utsState
	lo, hi int32
	depth  int32
}

// shaWSNode counts the subtree of the node with state s at depth.
func shaWSNode(w *worksteal.Worker, t *UTSTree, s utsState, depth int) shaCount {
	k := t.numChildren(&s, depth)
	if k <= 0 {
		return shaLeaf(depth)
	}
	c := shaCount{nodes: 1, depth: uint64(depth)}
	c.add(shaWSSpan(w, shaSpan{t: t, s: s, lo: 0, hi: int32(k), depth: int32(depth + 1)}))
	return c
}

// shaWSSpan splits its children in two halves and joins them: k children,
// k−1 joins; the upper half is offered to thieves.
func shaWSSpan(w *worksteal.Worker, sp shaSpan) shaCount {
	if sp.hi-sp.lo == 1 {
		return shaWSNode(w, sp.t, sp.s.child(int(sp.lo)), int(sp.depth))
	}
	mid := sp.lo + (sp.hi-sp.lo)/2
	lo, hi := sp, sp
	lo.hi, hi.lo = mid, mid
	a, b := worksteal.JoinFunc(w, shaWSSpan, lo, shaWSSpan, hi)
	a.add(b)
	return a
}

func shaWSClosureNode(w *worksteal.Worker, t *UTSTree, s utsState, depth int) shaCount {
	k := t.numChildren(&s, depth)
	if k <= 0 {
		return shaLeaf(depth)
	}
	c := shaCount{nodes: 1, depth: uint64(depth)}
	c.add(shaWSClosureSpan(w, shaSpan{t: t, s: s, lo: 0, hi: int32(k), depth: int32(depth + 1)}))
	return c
}

func shaWSClosureSpan(w *worksteal.Worker, sp shaSpan) shaCount {
	if sp.hi-sp.lo == 1 {
		return shaWSClosureNode(w, sp.t, sp.s.child(int(sp.lo)), int(sp.depth))
	}
	mid := sp.lo + (sp.hi-sp.lo)/2
	lo, hi := sp, sp
	lo.hi, hi.lo = mid, mid
	a, b := worksteal.Join(w,
		func(w *worksteal.Worker) shaCount { return shaWSClosureSpan(w, lo) },
		func(w *worksteal.Worker) shaCount { return shaWSClosureSpan(w, hi) })
	a.add(b)
	return a
}
