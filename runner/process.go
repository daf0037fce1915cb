package runner

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"time"

	"github.com/worksteal/worksteal/internal/runopts"
)

// Exit is how one run of a command ended.
type Exit struct {
	Start   time.Time
	Runtime time.Duration
	// Code is the exit status; -1 when the process was killed by a signal
	// or did not start.
	Code int
	// Signal is the signal that killed the process, 0 if none.
	Signal int
	// Stdout and Stderr are the process's output, kept whole (empty when
	// Command streamed it).
	Stdout, Stderr []byte
	// Received is the number of bytes the process wrote to stdout.
	Received int64
	// Err is why the command did not succeed when Code alone does not say:
	// a failure to start it, or the cause of its cancellation (a timeout, a
	// speculative copy that won, an interruption). Nil after a normal exit,
	// whatever the status.
	Err error
}

// OK says the command ran and exited with status 0.
func (e Exit) OK() bool { return e.Err == nil && e.Code == 0 && e.Signal == 0 }

// Command says how Exec runs a command.
type Command struct {
	Shell string   // the shell, run as Shell -c Line; "" means /bin/sh
	Line  string   // the command line
	Env   []string // extra environment, "KEY=value", added to the runner's
	// Stdin is the command's standard input; nil: none (empty). Exec
	// returns once the command has exited and Stdin is copied or the
	// command closed its end.
	Stdin io.Reader
	// Nice, if > 0, runs the command at this niceness (GNU parallel's
	// --nice): never below the runner's own, as an unprivileged process
	// cannot lower it.
	Nice int
	// Grace is how long the process group has to exit after SIGTERM before
	// it gets SIGKILL; ≤ 0 means 2s.
	Grace time.Duration
	// Reaper, if not nil, kills the command's process group should this
	// process die while the command runs (see Reaper).
	Reaper *Reaper
	// Stdout and Stderr, if set, receive the output as it comes instead of
	// Exit.Stdout and Exit.Stderr.
	Stdout, Stderr io.Writer
	// termSeq, when set, stops the command in its steps instead of
	// SIGTERM and SIGKILL after Grace (runopts.Options.TermSeq).
	termSeq []runopts.TermStep
	// tty runs the shell in this process's group, the terminal's, so that
	// it may read the terminal (runopts.Options.TTY): a stop reaches the
	// shell alone, and a Reaper does not take it.
	tty bool
	// started, if set, is called with the process group's id once the
	// command runs (not with tty), and with 0 once it has been reaped.
	started func(pgid int)
}

// stopInSteps sends the steps of seq to the group until it is gone or
// the steps end; waited is closed when the shell has been reaped.
func stopInSteps(p *os.Process, pgid int, seq []runopts.TermStep, waited <-chan struct{}) {
	tick := time.NewTicker(2 * time.Millisecond)
	defer tick.Stop()
	for _, st := range seq {
		signalGroup(p, pgid, st.Signal)
		deadline := time.NewTimer(st.Wait)
	wait:
		for groupAlive(pgid, waited) {
			select {
			case <-deadline.C:
				break wait
			case <-tick.C:
			}
		}
		deadline.Stop()
		if !groupAlive(pgid, waited) {
			return
		}
	}
}

// Exec runs c.Line with the shell in a new process group, with no stdin,
// and waits for it. When ctx is done the whole group (the shell and every
// process it started) gets SIGTERM, then SIGKILL after c.Grace; Exec then
// returns with Err set to context.Cause(ctx). A process's exit status is in
// Code and Signal, never in Err.
//
// Exec returns after the shell has exited and its output pipes are closed:
// a background process that keeps them open holds Exec until it exits or
// ctx is done.
func Exec(ctx context.Context, c Command) Exit {
	shell := c.Shell
	if shell == "" {
		shell = "/bin/sh"
	}
	grace := c.Grace
	if grace <= 0 {
		grace = 2 * time.Second
	}
	cmd := exec.Command(shell, "-c", c.Line)
	if c.Nice > 0 {
		cmd = niceCommand(c.Nice, shell, c.Line)
	}
	cmd.Stdin = c.Stdin
	if len(c.Env) > 0 {
		cmd.Env = append(cmd.Environ(), c.Env...)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	var counted *countingWriter
	if c.Stdout != nil {
		counted = &countingWriter{w: c.Stdout}
		cmd.Stdout = counted
	}
	if c.Stderr != nil {
		cmd.Stderr = c.Stderr
		if c.Stderr == c.Stdout {
			cmd.Stderr = cmd.Stdout // one pipe for both, as os/exec gives equal writers
		}
	}
	// A group of its own: the job's children die with it, and a terminal's
	// Ctrl-C reaches only us (we then stop the jobs in order). See
	// process_unix.go and process_other.go for what each system does.
	cmd.SysProcAttr = groupAttr()
	if c.tty {
		cmd.SysProcAttr = ttyAttr()
	}

	e := Exit{Start: time.Now(), Code: -1}
	if err := ctx.Err(); err != nil {
		e.Err = context.Cause(ctx)
		return e
	}
	if err := cmd.Start(); err != nil {
		e.Err = err
		return e
	}
	pgid := cmd.Process.Pid
	if c.tty {
		// Not a group of its own: the signals go to the shell alone
		// (kill(2) of -pgid is the process pgid).
		pgid = -pgid
	} else if c.Reaper != nil {
		c.Reaper.add(pgid)
		defer c.Reaper.remove(pgid)
	}
	if c.started != nil && pgid > 0 {
		c.started(pgid)
		defer c.started(0) // reaped: the id may be reused
	}
	waited := make(chan struct{})
	killed := make(chan struct{})
	cancelled := false // written by the killer before close(killed)
	go func() {
		defer close(killed)
		select {
		case <-waited:
			return
		case <-ctx.Done():
		}
		cancelled = true
		if len(c.termSeq) > 0 {
			stopInSteps(cmd.Process, pgid, c.termSeq, waited)
			return
		}
		terminateGroup(cmd.Process, pgid)
		t := time.NewTimer(grace)
		defer t.Stop()
		select {
		case <-waited:
		case <-t.C:
		}
		// The group is being torn down: whatever is left of it (the shell
		// exited, a child ignored SIGTERM) goes now. The group's id cannot
		// have been reused while any member lives, and kill fails with
		// ESRCH once none does.
		killGroup(cmd.Process, pgid)
	}()
	err := cmd.Wait()
	close(waited)
	<-killed
	e.Runtime = time.Since(e.Start)
	e.Stdout, e.Stderr = stdout.Bytes(), stderr.Bytes()
	e.Received = int64(stdout.Len())
	if counted != nil {
		e.Received = counted.n
	}
	e.Code, e.Signal = exitStatus(cmd.ProcessState)
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		e.Err = err
	}
	if cancelled {
		e.Err = context.Cause(ctx)
	}
	return e
}

// countingWriter counts the bytes written through it.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
