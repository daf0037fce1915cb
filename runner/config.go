package runner

import (
	"fmt"
	"io"
	"runtime"
	"time"

	"github.com/worksteal/worksteal/internal/runopts"
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
	// times by command (worksteal run reads them from an earlier joblog)
	// for OrderAuto and OrderLPT.
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
	// Stdout and Stderr receive the jobs' output; nil discards it.
	Stdout, Stderr io.Writer
	// Results, if set, receives each finished job's result in place of
	// Stdout and Stderr (GNU parallel's --results), from the goroutine
	// that writes the output. An error is reported
	// once on Stderr and the batch goes on.
	Results func(Result) error

	// Halt stops the batch early when enough jobs failed, succeeded or
	// finished (GNU parallel's --halt); Summary.Halted says it was met.
	Halt Halt
	// Delay is the least time between two job starts (GNU parallel's
	// --delay); 0 means none.
	Delay time.Duration

	// Grace is the time a job's process group has between SIGTERM and
	// SIGKILL when it is stopped; ≤ 0 means 2s.
	Grace time.Duration
	// Nice, if > 0, runs every job at this niceness (GNU parallel's
	// --nice; see Command.Nice).
	Nice int
	// Progress, if set, is called after every start and finish, from one
	// goroutine at a time (the one that also writes the output).
	Progress func(Progress)

	// x is what worksteal run's GNU parallel options ask beyond this
	// (internal/runopts: --tag, --joblog, --load, --latest-line ...),
	// set through runopts.Of; zero for a Go program's Config.
	x runopts.Options
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
	if c.x.Host == "" {
		c.x.Host = ":"
	}
	if c.x.LatestLine {
		c.Output = outputLatestLine
	}
	if c.Stdout == nil {
		c.Stdout = io.Discard
	}
	if c.Stderr == nil {
		c.Stderr = io.Discard
	}
	return nil
}
