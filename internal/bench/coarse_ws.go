package bench

import "github.com/worksteal/worksteal"

func init() {
	for _, name := range []string{"coarse", "coarse-poll"} {
		poll := name == "coarse-poll"
		wsBodies[name] = func(param any, impl Impl) wsBody {
			t := param.(*coarseTree)
			s := coarseSpan{t: t, lo: 0, hi: len(t.iters), poll: poll}
			if impl == WSClosure {
				return func(w *worksteal.Worker) Result { return Result{Value: coarseWSClosure(w, s)} }
			}
			return func(w *worksteal.Worker) Result { return Result{Value: coarseWS(w, s)} }
		}
	}
}

// coarseSpan is a subtree: leaves [lo, hi) of t.
type coarseSpan struct {
	t      *coarseTree
	lo, hi int
	poll   bool
}

func (s coarseSpan) leaf(w *worksteal.Worker) uint64 {
	if s.poll {
		return s.t.leaf(s.lo, w.Poll)
	}
	return s.t.leaf(s.lo, nil)
}

// coarseWS joins at every inner node through JoinFunc.
func coarseWS(w *worksteal.Worker, s coarseSpan) uint64 {
	if s.hi-s.lo == 1 {
		return s.leaf(w)
	}
	mid := (s.lo + s.hi) / 2
	l, r := s, s
	l.hi, r.lo = mid, mid
	a, b := worksteal.JoinFunc(w, coarseWS, l, coarseWS, r)
	return a ^ b
}

// coarseWSClosure is coarseWS through Worker.Join, the unit form.
func coarseWSClosure(w *worksteal.Worker, s coarseSpan) uint64 {
	if s.hi-s.lo == 1 {
		return s.leaf(w)
	}
	mid := (s.lo + s.hi) / 2
	l, r := s, s
	l.hi, r.lo = mid, mid
	var a, b uint64
	w.Join(func(w *worksteal.Worker) { a = coarseWSClosure(w, l) }, func(w *worksteal.Worker) { b = coarseWSClosure(w, r) })
	return a ^ b
}
