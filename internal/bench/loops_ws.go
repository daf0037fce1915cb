package bench

import (
	"github.com/worksteal/worksteal"
	"github.com/worksteal/worksteal/par"
)

// The loop workloads' worksteal form; none has a closure form (WSClosure
// is the Join's closure, and these make no Join of their own).
func init() {
	wsBodies["sort"] = func(param any, impl Impl) wsBody {
		if impl != WS {
			return nil
		}
		s := param.(*sortInput)
		return func(w *worksteal.Worker) Result {
			par.Sort(w, s.work) // the check is untimed: problem.result
			return Result{}
		}
	}
	wsBodies["mapreduce"] = func(param any, impl Impl) wsBody {
		if impl != WS {
			return nil
		}
		n := param.(int)
		return func(w *worksteal.Worker) Result { return Result{Value: MapReduceWS(w, n)} }
	}
	wsBodies["mapreduce-mulhi"] = func(param any, impl Impl) wsBody {
		if impl != WS {
			return nil
		}
		n := param.(int)
		return func(w *worksteal.Worker) Result { return Result{Value: MapReduceMulhiWS(w, n)} }
	}
	wsBodies["mandel"] = func(param any, impl Impl) wsBody {
		if impl != WS {
			return nil
		}
		n := param.(int)
		return func(w *worksteal.Worker) Result { return Result{Value: uint64(MandelWS(w, n))} }
	}
}
