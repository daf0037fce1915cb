package cli

import (
	"context"
	"errors"
	"os"
	"os/signal"
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
	exitOK      = 0
	exitFailure = 1
	exitUsage   = 2
)

// exitError carries a specific process exit code through cobra.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }
func (e *exitError) ExitCode() int { return e.code }

func asExit(err error, target *interface{ ExitCode() int }) bool {
	var ee *exitError
	if errors.As(err, &ee) {
		*target = ee
		return true
	}
	return false
}

// usageError makes the command exit with status 2: a bad flag, argument or
// input file.
func usageError(err error) error { return &exitError{code: exitUsage, err: err} }

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

// interruption returns the signal that canceled ctx, or nil.
func interruption(ctx context.Context) *Interrupted {
	var in *Interrupted
	if ctx != nil && errors.As(context.Cause(ctx), &in) {
		return in
	}
	return nil
}

// interruptedError is the error a command returns when ctx was canceled by
// a signal: it exits with 128 + the signal and says "interrupted".
func interruptedError(ctx context.Context) error {
	in := interruption(ctx)
	if in == nil {
		return context.Cause(ctx)
	}
	return &exitError{code: in.ExitCode(), err: errors.New("interrupted (" + signalName(in.Signal) + ")")}
}

func signalName(s syscall.Signal) string {
	switch s {
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	}
	return s.String()
}

// exitCode maps the error of a command to the process's exit status:
// the code it carries; else 128 + the signal if one interrupted the run;
// else 2 if the command never started (cobra refused the flags or
// arguments); else 1.
func exitCode(ctx context.Context, err error, started bool) int {
	if err == nil {
		return exitOK
	}
	var ec interface{ ExitCode() int }
	if asExit(err, &ec) {
		return ec.ExitCode()
	}
	if in := interruption(ctx); in != nil {
		return in.ExitCode()
	}
	if !started {
		return exitUsage
	}
	return exitFailure
}

// SignalContext returns a context that is canceled, with an [*Interrupted]
// cause, at the first SIGINT or SIGTERM. Every command stops its work when
// the context is done, cleans up (removes outputs it had begun, stops the
// processes it started) and exits with 130 or 143. The first signal also
// restores the default handling, so a second one ends the process at once.
// stop releases the signals.
func SignalContext(parent context.Context) (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancelCause(parent)
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case s := <-ch:
			signal.Reset(os.Interrupt, syscall.SIGTERM)
			sig, _ := s.(syscall.Signal)
			cancel(&Interrupted{Signal: sig})
		case <-done:
		}
	}()
	return ctx, func() {
		signal.Stop(ch)
		select {
		case <-done:
		default:
			close(done)
		}
		cancel(nil)
	}
}

// Main runs the worksteal command line args as the process: stdin, stdout,
// stderr, SIGINT and SIGTERM (see [SignalContext]). It returns the exit
// status.
func Main(args []string) int {
	ctx, stop := SignalContext(context.Background())
	defer stop()
	return Run(ctx, args, os.Stdin, os.Stdout, os.Stderr)
}
