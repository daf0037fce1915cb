package cli

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/worksteal/worksteal/internal/cli/cmdenv"
)

// exitCode maps the error of a command to the process's exit status:
// the code it carries; else 128 + the signal if one interrupted the run;
// else 2 if the command never started (cobra refused the flags or
// arguments); else 1.
func exitCode(ctx context.Context, err error, started bool) int {
	if err == nil {
		return cmdenv.ExitOK
	}
	var ec interface{ ExitCode() int }
	if cmdenv.AsExit(err, &ec) {
		return ec.ExitCode()
	}
	if in := cmdenv.Interruption(ctx); in != nil {
		return in.ExitCode()
	}
	if !started {
		return cmdenv.ExitUsage
	}
	return cmdenv.ExitFailure
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
			cancel(&cmdenv.Interrupted{Signal: sig})
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
