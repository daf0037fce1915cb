// Package runopts holds what worksteal run asks of runner.Run beyond a Go
// program's batch: GNU parallel's ways of printing (--tag, --color,
// --latest-line, -v, -t, --shell-quote, --compress), of asking and
// pretending (--interactive, --dry-run), of stopping a job (--term-seq,
// --tty), of holding jobs back (--load, --memfree: a throttle.Throttle) and
// of logging them (--joblog), and the live view of its slots (--http).
//
// runner.Config holds an Options by value in an unexported field, which
// the CLI reaches through Of, a hook runner sets in its init (runner
// imports this package, so its types cannot be named here), the way
// internal/jobio reaches a runner.Job's template state. For a Go program's
// Config the Options are zero: none of this happens.
package runopts

import (
	"syscall"
	"time"

	"github.com/worksteal/worksteal/internal/joblog"
	"github.com/worksteal/worksteal/internal/throttle"
)

// Options are worksteal run's GNU parallel options that runner.Run
// honours. The zero value asks for none of them.
type Options struct {
	// LatestLine paints the latest whole line of each running job's
	// output (its stdout and stderr as one stream) on a row of its own of
	// Screen, on Stdout, as GNU parallel's --latest-line, whatever
	// Config.Output says; a last line without a newline is written after
	// the row when the job ends.
	LatestLine bool
	// Screen is the terminal LatestLine paints on (24 × 80 rows and
	// columns, no cursor-up, when zero); a Screen received on Resize
	// replaces it from the next paint on (GNU re-reads the terminal's size
	// when it changes).
	Screen Screen
	Resize <-chan Screen
	// LatestLineDrop, under LatestLine, is GNU parallel 20221122's
	// --latest-line with --files or --results DIR: each job's output is
	// read and dropped (GNU never reads it), a line of its tag is written
	// as it starts (GNU's file name line, with no name) and its row is
	// painted empty when it ends.
	LatestLineDrop bool
	// DryRun runs nothing: each attempt ends at once with exit status 0,
	// as GNU's --dry-run runs "true" in each job's place (with Verbose
	// and LatestLine, its command is the job's painted line).
	DryRun bool
	// Tag prefixes each line of a job's output with its tag and a tab
	// (GNU parallel's --tag, --tagstring: the tag worksteal run's input
	// side gives a job); not under OutputUngroup.
	Tag bool
	// Color, when set, colours each line of a job's output (GNU
	// parallel's --color, --ctag): the line, after its tag, is written as
	// begin + tag + line + end + "\n" (a last line without a newline gets
	// one; a \r in it ends and begins the colour again), begin and end as
	// Color gives them for the job's sequence number and whether it
	// failed (an exit status or a signal; never under OutputLineBuffer,
	// where the lines go out as they come). Not under OutputUngroup.
	Color func(seq int, failed bool) (begin, end string)
	// Compress, when set, is a shell command each job's stdout and its
	// stderr pass through, each whole, when the job ends, and then
	// Decompress ("Compress -dc" when empty): GNU parallel's
	// --compress-program and --decompress-program, which keep its
	// buffered output compressed. A compressor or decompressor that fails
	// fails the job (exit status 255, its output dropped), as GNU's
	// compressor does. Not under OutputLineBuffer or OutputUngroup, whose
	// output is not held.
	Compress, Decompress string
	// Verbose writes each job's command line, and a newline, on Stdout
	// before its output (GNU parallel's -v); Trace writes it on Stderr as
	// each attempt starts (GNU's -t, --verbose).
	Verbose, Trace bool
	// Ask, when set, is asked before each attempt starts whether to run
	// its command line (GNU parallel's --interactive, which asks on the
	// terminal in Trace's place); an attempt it says no to runs nothing
	// and ends with exit status -2, as GNU's skipped job. Called by the
	// loop goroutine: the run waits for the answer.
	Ask func(command string) bool
	// ShellQuote, when > 0, runs no command: each job prints its command
	// line, quoted for a Bourne shell ShellQuote times, and a newline
	// (GNU parallel's --shell-quote, given that many times). The joblog,
	// -v and -t still show the command line itself.
	ShellQuote int
	// SlotVar names the environment variable each job gets set to its
	// slot number - 1 (GNU parallel's --process-slot-var); "" is
	// PARALLEL_JOBSLOT0, GNU's default.
	SlotVar string
	// TTY gives each job the terminal, /dev/tty, as its stdin when it has
	// no other and the terminal can be opened (GNU parallel's --open-tty
	// and --tty), and runs it in the runner's process group, the
	// terminal's, so that it may read it: a stop then reaches only the
	// job's shell.
	TTY bool
	// TermSeq, when set, stops a job instead of SIGTERM and SIGKILL after
	// Config.Grace (GNU parallel's --term-seq): each step's signal to the
	// job's process group, then up to its Wait for the group to be gone,
	// until one is (nothing after the last).
	TermSeq []TermStep
	// Joblog, if set, receives one row per finished job, right after the
	// job's output is written (as GNU parallel does: under KeepOrder, in
	// input order). Host names this machine in it; "" means ":" (GNU
	// parallel's).
	Joblog *joblog.Log
	Host   string
	// Throttle, if set, holds jobs back while the machine has no room
	// for them (GNU parallel's --load, --memfree, --memsuspend, --limit).
	Throttle *throttle.Throttle
	// Attempts, if set, is called when an attempt starts and when it ends
	// (a live view of the slots, as worksteal run --http shows), from the
	// goroutine that calls Config.Progress.
	Attempts func(Attempt)
}

// Screen is the terminal LatestLine paints on, as GNU parallel 20221122
// reads it when --latest-line starts: Up is the terminal's cursor-up
// sequence (tput cuu1; "" off a terminal, where each paint is a line of
// its own), Rows and Cols its size (24 and 80 off a terminal).
type Screen struct {
	Up         string
	Rows, Cols int
}

// TermStep is a step of stopping a job (GNU parallel's --term-seq): Signal
// to the job's process group, then up to Wait for the group to be gone.
type TermStep struct {
	Signal syscall.Signal
	Wait   time.Duration
}

// Attempt is the start or the end of one run of a job's command.
type Attempt struct {
	Seq   int // the job's sequence number
	Slot  int // from 1
	Try   int // attempts of the job started so far, copies included
	Copy  bool
	Start time.Time
	// Ended says the attempt is over; Runtime and OK say how it went.
	Ended   bool
	Runtime time.Duration
	OK      bool
}

// The hooks runner sets in its init, before main, only read afterwards:
//
//   - Of returns the Options of cfg, a *runner.Config, to read or set
//     (they travel with the Config's copies);
//   - Record returns res, a runner.Result, as its joblog row for host (GNU
//     parallel's Exitval: 0 for a job killed by a signal, -1 for one the
//     runner killed at its timeout or limit);
//   - HaltStatus returns the exit status GNU parallel gives a batch under
//     its Config.Halt (met or not), sum being the *runner.Summary, and
//     whether the batch had a Halt (not never).
var (
	Of         func(cfg any) *Options
	Record     func(res any, host string) joblog.Record
	HaltStatus func(sum any) (status int, set bool)
)

// HaltTracker applies a runner.Halt to the results of jobs run elsewhere
// (worksteal run --nats follows a cluster's results with one): Observe
// counts one finished job, res a runner.Result (after its retries), and
// says whether the halt is met with it (true once: the first time); Met
// says it has been; ExitStatus is GNU parallel's exit status under the
// halt, given the number of jobs started. Not safe for concurrent use.
type HaltTracker interface {
	Observe(res any) bool
	Met() bool
	ExitStatus(started int) int
}

// NewHaltTracker tracks h, a runner.Halt, over a batch of jobs jobs; set by
// runner's init, as the hooks above.
var NewHaltTracker func(h any, jobs int) HaltTracker
