package runner

import (
	"fmt"
	"io"
	"runtime"
	"time"
)

// Config says how Run runs a batch. The zero value is useful: one slot per
// CPU, /bin/sh, longest first when costs are known, no timeout, no retries,
// no speculation, output discarded.
type Config struct {
	// Slots is the number of jobs run at once; ≤ 0 means runtime.NumCPU().
	Slots int
	// Shell runs each command as Shell -c Command; "" means /bin/sh.
	Shell string
	// Env is extra environment for every job ("KEY=value"). Each job also
	// gets WORKSTEAL_SEQ and WORKSTEAL_SLOT (and GNU parallel's PARALLEL_SEQ
	// and PARALLEL_JOBSLOT) with its sequence and slot numbers.
	Env []string

	// Order is the start order; see Order. History holds remembered run
	// times by command (Runtimes of an earlier joblog) for OrderAuto and
	// OrderLPT.
	Order   Order
	History map[string]time.Duration

	// Timeout is a fixed limit on each attempt; 0 means none. With
	// TimeoutFactor > 0 the limit is TimeoutFactor × the median run time of
	// the jobs that succeeded so far (2 is GNU parallel's --timeout 200%),
	// as GNU parallel reckons it: the lower median, run times truncated to
	// the millisecond, no limit until a job has succeeded (then Timeout
	// is ignored), and a new limit applies at once to the attempts already
	// running. A job over its limit is killed (its process group: SIGTERM,
	// then SIGKILL after Grace) and counts as failed.
	Timeout       time.Duration
	TimeoutFactor float64

	// Retries is how many more times a failed job is tried; 0 means none
	// (GNU parallel's --retries N is Retries N−1). With RetryDelay > 0 the
	// wait before retry k is drawn from [d/2, d] with d = RetryDelay ×
	// 2^(k−1), at most one minute (balance.Backoff); with RetryDelay ≤ 0 a
	// failed job is retried at once, as GNU parallel does. A job waiting for
	// its retry does not hold a slot.
	Retries    int
	RetryDelay time.Duration

	// Speculate starts, near the end of the batch (no job waiting and a
	// slot free), a second copy of a job that has run longer than
	// SpeculateAfter, or, when that is 0, 1.5 × the 75th percentile of the
	// finished jobs (once three have finished). The first copy to succeed
	// wins, the other is killed. Only for idempotent jobs: both copies may
	// run to completion.
	Speculate      bool
	SpeculateAfter time.Duration

	// KeepOrder writes the jobs' output in input order instead of as they
	// finish. Either way, under OutputGroup, the output of one job is
	// written whole (stdout, then stderr), never interleaved with
	// another's.
	KeepOrder bool
	// Output says when the jobs' output is written: whole when the job
	// finishes (OutputGroup, the default), a line at a time as it comes
	// (OutputLineBuffer), or as it comes (OutputUngroup). Under KeepOrder
	// it is always written whole.
	Output OutputMode
	// Screen is the terminal OutputLatestLine paints on (24 × 80 rows
	// and columns, no cursor-up, when zero); a Screen received on Resize
	// replaces it from the next paint on (GNU re-reads the terminal's
	// size when it changes).
	Screen Screen
	Resize <-chan Screen
	// LatestLineDrop, under OutputLatestLine, is GNU parallel 20221122's
	// --latest-line with --files or --results DIR: each job's output is
	// read and dropped (GNU never reads it), a line of its tag is written
	// as it starts (GNU's file name line, with no name) and its row is
	// painted empty when it ends.
	LatestLineDrop bool
	// DryRun runs nothing: each attempt ends at once with exit status 0,
	// as GNU's --dry-run runs "true" in each job's place (with Verbose
	// and OutputLatestLine, its command is the job's painted line).
	DryRun bool
	// Stdout and Stderr receive the jobs' output; nil discards it.
	Stdout, Stderr io.Writer
	// Tag prefixes each line of a job's output with its tag and a tab
	// (GNU parallel's --tag, --tagstring: the tag worksteal run's input
	// side gives a job; none for a Job of a program's own); not under
	// OutputUngroup.
	Tag bool
	// Color, when set, colours each line of a job's output (GNU
	// parallel's --color, --ctag): the line, after its tag, is written as
	// begin + tag + line + end + "\n" (a last line without a newline gets
	// one; a \r in it ends and begins the colour again), begin and end as
	// Color gives them for the job's result (its Exit still zero under
	// OutputLineBuffer, where the lines go out as they come). Not under
	// OutputUngroup.
	Color func(res *Result) (begin, end string)
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
	// Results, if set, receives each finished job's result in place of
	// Stdout and Stderr (GNU parallel's --results), from the goroutine
	// that writes the output, before its joblog row. An error is reported
	// once on Stderr and the batch goes on.
	Results func(Result) error

	// Halt stops the batch early when enough jobs failed, succeeded or
	// finished (GNU parallel's --halt); Summary.HaltStatus is then GNU's
	// exit status.
	Halt Halt
	// Delay is the least time between two job starts (GNU parallel's
	// --delay); 0 means none.
	Delay time.Duration

	// Joblog, if set, receives one row per finished job, right after the
	// job's output is written (as GNU parallel does: under KeepOrder, in
	// input order). Host names this machine in it; "" means ":" (GNU
	// parallel's).
	Joblog *Joblog
	Host   string

	// Grace is the time a job's process group has between SIGTERM and
	// SIGKILL when it is stopped; ≤ 0 means 2s.
	Grace time.Duration
	// TTY gives each job the terminal, /dev/tty, as its stdin when it has
	// no other and the terminal can be opened (GNU parallel's --open-tty
	// and --tty), and runs it in the runner's process group, the
	// terminal's, so that it may read it: a stop then reaches only the
	// job's shell.
	TTY bool
	// TermSeq, when set, stops a job instead (GNU parallel's --term-seq):
	// each step's signal to the job's process group, then up to its Wait
	// for the group to be gone, until one is (nothing after the last).
	TermSeq []TermStep

	// Nice, if > 0, runs every job at this niceness (GNU parallel's
	// --nice; see Command.Nice).
	Nice int
	// Throttle, if set, holds jobs back while the machine has no room
	// for them (GNU parallel's --load and --memfree; see Throttle).
	Throttle *Throttle

	// Progress, if set, is called after every start and finish, from one
	// goroutine at a time (the one that also writes the output).
	Progress func(Progress)
	// Attempts, if set, is called when an attempt starts and when it ends
	// (a live view of the slots, as worksteal run --http shows), from the
	// same goroutine as Progress.
	Attempts func(Attempt)
}

// validate checks c and fills its defaults.
func (c *Config) validate() error {
	switch {
	case c.Retries < 0:
		return fmt.Errorf("%w: retries %d: must be 0 or more", ErrInvalidConfig, c.Retries)
	case c.Timeout < 0:
		return fmt.Errorf("%w: timeout %v: must be 0 (none) or more", ErrInvalidConfig, c.Timeout)
	case c.TimeoutFactor < 0 || c.TimeoutFactor != c.TimeoutFactor:
		return fmt.Errorf("%w: timeout factor %v: must be 0 (none) or more", ErrInvalidConfig, c.TimeoutFactor)
	case c.SpeculateAfter < 0:
		return fmt.Errorf("%w: speculate after %v: must be 0 (relative) or more", ErrInvalidConfig, c.SpeculateAfter)
	case c.Delay < 0:
		return fmt.Errorf("%w: delay %v: must be 0 (none) or more", ErrInvalidConfig, c.Delay)
	case c.Halt.Count < 0 || c.Halt.Percent < 0 || c.Halt.Percent != c.Halt.Percent:
		// A percentage over 100 is GNU's: never reached.
		return fmt.Errorf("%w: halt %+v: a count or a percentage of 0 or more", ErrInvalidConfig, c.Halt)
	}
	if c.Slots <= 0 {
		c.Slots = runtime.NumCPU()
	}
	if c.Host == "" {
		c.Host = ":"
	}
	if c.Stdout == nil {
		c.Stdout = io.Discard
	}
	if c.Stderr == nil {
		c.Stderr = io.Discard
	}
	return nil
}
