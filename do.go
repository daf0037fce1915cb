package worksteal

// The forms of Run and Blocking for functions that return nothing, an
// error, or a value and an error, so that plain code and blocking calls
// need no wrapper closures (a loop from main was Run(pool, func(w) struct{}
// { par.For(…); return struct{}{} })).

// Do runs f on a worker of p and returns when f, and every task it joins or
// spawns, has finished: [Run] for a function that returns nothing, such as
// a loop of package par called from plain code:
//
//	err := pool.Do(func(w *worksteal.Worker) { par.For(w, 0, n, body) })
//
// Like Run, it blocks only the calling goroutine, which must not be a
// worker of a pool (inside a task, call f(w) directly); a panic in f, or in
// any task it joins, is re-raised here as a *PanicError. Do returns
// ErrClosed after Close, and nil otherwise.
func (p *Pool) Do(f func(w *Worker)) error {
	_, err := Run(p, func(w *Worker) struct{} { f(w); return struct{}{} })
	return err
}

// DoErr is [Pool.Do] for a function that returns an error: it returns
// ErrClosed after Close, else f's error.
func (p *Pool) DoErr(f func(w *Worker) error) error {
	err, runErr := Run(p, f)
	if runErr != nil {
		return runErr
	}
	return err
}

// BlockingErr is [Worker.Blocking] for a blocking call that returns an
// error, which BlockingErr returns:
//
//	err := w.BlockingErr(func() error { return conn.SetDeadline(t) })
func (w *Worker) BlockingErr(f func() error) (err error) {
	w.Blocking(func() { err = f() })
	return err
}

// BlockingValue is [Worker.Blocking] for a blocking call that returns a
// value and an error, which it returns (a method cannot have a type
// parameter, so it is a function of the task's handle):
//
//	data, err := worksteal.BlockingValue(w, func() ([]byte, error) { return os.ReadFile(name) })
func BlockingValue[T any](w *Worker, f func() (T, error)) (v T, err error) {
	w.Blocking(func() { v, err = f() })
	return v, err
}
