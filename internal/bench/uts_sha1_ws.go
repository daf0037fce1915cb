package bench

import "github.com/worksteal/worksteal"

func init() {
	wsBodies["uts-sha1"] = func(param any, impl Impl) wsBody {
		t := param.(*UTSTree)
		if impl == WSClosure {
			return func(w *worksteal.Worker) Result { return shaWSClosureNode(w, t, utsRoot(t.R), 0).result() }
		}
		r := newShaWS(t)
		return func(w *worksteal.Worker) Result { return r.node(w, utsRoot(t.R), 0).result() }
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

// shaWS forks one tree's nodes. The tree pointer lives here, not in the
// argument each fork copies into its frame: an argument without pointers is
// copied with plain moves, while one with a pointer takes a typed copy with
// a write-barrier check on every join (measured on T1 at 1 worker:
// 652–680 ms with the pointer, 617–630 ms without; BenchmarkUTSSHA1).
type shaWS struct {
	t    *UTSTree
	span func(w *worksteal.Worker, sp shaWSSpanArg) shaCount // r.runSpan, bound once
}

// shaWSSpanArg is shaSpan without the tree: 32 bytes, no pointers.
type shaWSSpanArg struct {
	s      utsState
	lo, hi int32
	depth  int32
}

func newShaWS(t *UTSTree) *shaWS {
	r := &shaWS{t: t}
	r.span = r.runSpan
	return r
}

// node counts the subtree of the node with state s at depth.
func (r *shaWS) node(w *worksteal.Worker, s utsState, depth int) shaCount {
	k := r.t.numChildren(&s, depth)
	if k <= 0 {
		return shaLeaf(depth)
	}
	c := shaCount{nodes: 1, depth: uint64(depth)}
	c.add(r.runSpan(w, shaWSSpanArg{s: s, lo: 0, hi: int32(k), depth: int32(depth + 1)}))
	return c
}

// runSpan splits its children in two halves and joins them: k children,
// k−1 joins; the upper half is offered to thieves.
func (r *shaWS) runSpan(w *worksteal.Worker, sp shaWSSpanArg) shaCount {
	if sp.hi-sp.lo == 1 {
		return r.node(w, sp.s.child(int(sp.lo)), int(sp.depth))
	}
	mid := sp.lo + (sp.hi-sp.lo)/2
	lo, hi := sp, sp
	lo.hi, hi.lo = mid, mid
	a, b := worksteal.JoinFunc(w, r.span, lo, r.span, hi)
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
