package bench

import (
	"github.com/worksteal/worksteal"
	"github.com/worksteal/worksteal/par"
)

// The loop workloads' worksteal form; none has a closure form (WSClosure
// is the Join's closure, and these make no Join of their own).
func init() {
	wsBodies["sort"] = wsOnly(func(param any) wsBody {
		s := param.(*sortInput)
		return func(w *worksteal.Worker) Result {
			par.Sort(w, s.work) // the check is untimed: problem.result
			return Result{}
		}
	})
	wsBodies["mapreduce"] = wsOnly(mapReduceBody(MapReduceSeq))
	wsBodies["mapreduce-mulhi"] = wsOnly(mapReduceBody(MapReduceMulhiSeq))
	wsBodies["mandel"] = wsOnly(mandelBody(MandelRow))
	wsBodies["mandel-unrolled"] = wsOnly(mandelBody(MandelRowUnrolled))
}

// wsOnly is the constructor of a workload that has the WS form only.
func wsOnly(mk func(param any) wsBody) func(param any, impl Impl) wsBody {
	return func(param any, impl Impl) wsBody {
		if impl != WS {
			return nil
		}
		return mk(param)
	}
}

// mapReduceBody is the WS body of a map-reduce whose leaf is seq.
func mapReduceBody(seq func(lo, hi uint64) uint64) func(param any) wsBody {
	return func(param any) wsBody {
		n := param.(int)
		return func(w *worksteal.Worker) Result { return Result{Value: mapReduceWS(w, n, seq)} }
	}
}

// mandelBody is the WS body of a Mandelbrot whose rows are computed by row.
func mandelBody(row func(py, size int) int64) func(param any) wsBody {
	return func(param any) wsBody {
		n := param.(int)
		return func(w *worksteal.Worker) Result { return Result{Value: uint64(mandelWS(w, n, row))} }
	}
}
