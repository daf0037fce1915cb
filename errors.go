package worksteal

import (
	"errors"
	"fmt"
	"runtime/debug"
)

// ErrClosed is returned by every entry point of a Pool after Close.
var ErrClosed = errors.New("worksteal: pool closed")

// ErrGoexit is the Value of the *PanicError reported for a task that called
// runtime.Goexit (as t.FailNow does): Goexit cannot be stopped, so the
// worker's goroutine exits; the pool starts a replacement for it and reports
// the task as failed instead of letting its waiter hang or see success.
var ErrGoexit = errors.New("worksteal: task called runtime.Goexit")

// goexitError is the failure reported for a task that called Goexit.
func goexitError() *PanicError {
	return &PanicError{Value: ErrGoexit, Stack: debug.Stack()}
}

// failure turns what a deferred function saw into the task's failure: the
// recovered panic, or ErrGoexit when the function was leaving neither
// normally nor by panic.
func failure(r any) *PanicError {
	if r != nil {
		return asPanicError(r)
	}
	return goexitError()
}

// guard runs f and, if f does not return normally, passes its failure to
// fail: the recovered panic, or ErrGoexit when the goroutine is exiting
// through runtime.Goexit. fail runs inside the deferred function that
// recovered, so the panic's stack is still there to capture and, under
// Goexit, fail still runs (code after guard would not). It is the one
// place where a task's panic is caught.
func guard(f func(), fail func(*PanicError)) {
	normal := false
	defer func() {
		if !normal {
			fail(failure(recover()))
		}
	}()
	f()
	normal = true
}

// PanicError carries a panic out of a task to the goroutine that waits for
// it (the caller of Join, Scope or Run), with the stack of the goroutine
// where the panic happened, captured when it was recovered.
//
// A panic that crosses several joins is wrapped once: an inner PanicError is
// passed up unchanged, so Stack always shows the original panic site.
type PanicError struct {
	Value any    // the value passed to panic
	Stack []byte // the panicking goroutine's stack, from runtime/debug.Stack
}

// Error formats the panic value and the stack of the panic site.
func (p *PanicError) Error() string {
	return fmt.Sprintf("worksteal: task panicked: %v\n\n%s", p.Value, p.Stack)
}

// Unwrap returns the panic value if it is an error, so errors.Is and
// errors.As see through a PanicError.
func (p *PanicError) Unwrap() error {
	if err, ok := p.Value.(error); ok {
		return err
	}
	return nil
}

// asPanicError wraps a recovered value; call it from the deferred function
// that recovered, so the stack still holds the panicking frames.
func asPanicError(r any) *PanicError {
	if pe, ok := r.(*PanicError); ok {
		return pe
	}
	return &PanicError{Value: r, Stack: debug.Stack()}
}
