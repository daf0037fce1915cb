package bench

import "github.com/worksteal/worksteal"

func init() {
	wsBodies["fib"] = func(param any, impl Impl) wsBody {
		n := param.(int)
		if impl == WSClosure {
			return func(w *worksteal.Worker) Result { return Result{Value: fibWSClosure(w, n)} }
		}
		return func(w *worksteal.Worker) Result { return Result{Value: fibWS(w, n)} }
	}
}

// fibWS joins at every call. JoinFunc runs its first function inline and
// offers the second to thieves, so fib(n−1), the bigger call, is the one
// offered, as in the anchors (fork fib(n−1), run fib(n−2) inline).
func fibWS(w *worksteal.Worker, n int) uint64 {
	if n < 2 {
		return uint64(n)
	}
	a, b := worksteal.JoinFunc(w, fibWS, n-2, fibWS, n-1)
	return a + b
}

// fibWSClosure is fibWS through the closure form of Join.
func fibWSClosure(w *worksteal.Worker, n int) uint64 {
	if n < 2 {
		return uint64(n)
	}
	a, b := worksteal.Join(w,
		func(w *worksteal.Worker) uint64 { return fibWSClosure(w, n-2) },
		func(w *worksteal.Worker) uint64 { return fibWSClosure(w, n-1) })
	return a + b
}
