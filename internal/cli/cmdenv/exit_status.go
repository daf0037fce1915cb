package cmdenv

import (
	"context"
	"errors"
	"syscall"
)

// Exit statuses, one scheme for every command (docs/cli.md,
// worksteal --help):
//
//	0    the work was done
//	1    the work failed: a wrong result, a failed task, an I/O error
//	2    usage or bad input: an unknown flag, a bad value, an unreadable or
//	     malformed input file; nothing was run (or nothing more)
//	130  interrupted by SIGINT (128 + 2), after stopping and cleaning up
//	143  interrupted by SIGTERM (128 + 15)
//
// "worksteal run" keeps GNU parallel's statuses for its jobs: the number of
// failed jobs (1 … 100, 101 for more).
const (
	ExitOK      = 0
	ExitFailure = 1
	ExitUsage   = 2
)

// ExitError carries a specific process exit code through cobra.
type ExitError struct {
	Code int
	Err  error
}

func (e *ExitError) Error() string { return e.Err.Error() }

func (e *ExitError) Unwrap() error { return e.Err }

func (e *ExitError) ExitCode() int { return e.Code }

func AsExit(err error, target *interface{ ExitCode() int }) bool {
	var ee *ExitError
	if errors.As(err, &ee) {
		*target = ee
		return true
	}
	return false
}

// UsageError makes the command exit with status 2: a bad flag, argument or
// input file.
func UsageError(err error) error { return &ExitError{Code: ExitUsage, Err: err} }

// Interrupted is the cause ([context.Cause]) of the context that [Main]
// cancels at SIGINT or SIGTERM. It is a [context.Canceled] for errors.Is,
// and its text is os/signal.NotifyContext's ("interrupt signal received").
type Interrupted struct {
	Signal syscall.Signal
}

func (e *Interrupted) Error() string { return e.Signal.String() + " signal received" }

// Is makes errors.Is(err, context.Canceled) hold, as for any cancellation.
func (e *Interrupted) Is(target error) bool { return target == context.Canceled }

// ExitCode is 128 + the signal: 130 for SIGINT, 143 for SIGTERM.
func (e *Interrupted) ExitCode() int { return 128 + int(e.Signal) }

// Interruption returns the signal that canceled ctx, or nil.
func Interruption(ctx context.Context) *Interrupted {
	var in *Interrupted
	if ctx != nil && errors.As(context.Cause(ctx), &in) {
		return in
	}
	return nil
}

// InterruptedError is the error a command returns when ctx was canceled by
// a signal: it exits with 128 + the signal and says "interrupted".
func InterruptedError(ctx context.Context) error {
	in := Interruption(ctx)
	if in == nil {
		return context.Cause(ctx)
	}
	return &ExitError{Code: in.ExitCode(), Err: errors.New("interrupted (" + SignalName(in.Signal) + ")")}
}

func SignalName(s syscall.Signal) string {
	switch s {
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	}
	return s.String()
}
