package runner

import (
	"math"
)

// Halt says when a batch stops early, as GNU parallel's --halt does. The
// zero value never stops.
type Halt struct {
	// When: HaltNever, HaltSoon (start no more jobs, let the running ones
	// finish) or HaltNow (also stop the running ones; they are neither
	// logged nor counted, as when interrupted).
	When HaltWhen
	// Why: HaltOnFail, HaltOnSuccess or HaltOnDone, counted over the jobs
	// that finished (after their retries).
	Why HaltWhy
	// Count, or Percent of the batch when Percent > 0, is how many such
	// jobs trigger the halt.
	Count   int
	Percent float64
}

// HaltWhen is when a Halt stops the batch.
type HaltWhen int

// HaltWhy is what a Halt counts.
type HaltWhy int

const (
	HaltNever HaltWhen = iota
	HaltSoon
	HaltNow
)

const (
	HaltOnFail HaltWhy = iota
	HaltOnSuccess
	HaltOnDone
)

// halting is the state of a run's Halt: the counts GNU parallel keeps and
// the exit status it settles on. Owned by the loop goroutine.
type halting struct {
	Halt
	total     int  // jobs in the batch
	finished  int  // jobs finished, retries spent
	failed    int  //
	triggered bool // the halt condition was met: start nothing more
	status    int  // the exit status fixed when it was met
	hasStatus bool
}

// observe counts a finished job and says whether the halt is met now.
func (h *halting) observe(res *Result) bool {
	if h.When == HaltNever {
		return false
	}
	h.finished++
	ok := res.OK()
	if !ok {
		h.failed++
	}
	var limit int
	switch {
	case h.Why == HaltOnDone:
		limit = h.finished
	case h.Why == HaltOnFail && !ok:
		limit = h.failed
	case h.Why == HaltOnSuccess && ok:
		limit = h.finished - h.failed
	default:
		return false
	}
	count := float64(h.Count)
	if h.Percent > 0 {
		count = float64(h.total) * h.Percent / 100
	}
	if float64(limit) < count {
		return false
	}
	if !h.hasStatus {
		h.hasStatus = true
		switch {
		case h.Why == HaltOnSuccess:
			h.status = 0
		case h.Percent > 0:
			h.status = int(math.Ceil(float64(h.failed) / float64(h.total) * 100))
		case h.Count == 1:
			h.status = res.Code
			if res.Signal != 0 {
				h.status = res.Signal + 128
			} else if res.Job.x.Skip == 's' {
				h.status = 254 // GNU: a skipped job's -2, as a byte
			} else if res.Code < 0 {
				h.status = 1
			}
		default:
			h.status = min(h.failed, 101)
		}
	}
	first := !h.triggered
	h.triggered = true
	return first
}

// exitStatus is the batch's exit status under a Halt other than never,
// GNU parallel's: the one fixed when the halt was met, else the failed
// jobs' count (at most 101), or their percentage of those started for a
// percentage halt.
func (h *halting) exitStatus(started int) int {
	if h.hasStatus {
		return h.status
	}
	if h.Percent > 0 {
		return int(math.Ceil(float64(h.failed) / float64(max(started, 1)) * 100))
	}
	return min(h.failed, 101)
}

// haltTracker applies a Halt to the results of jobs run elsewhere (worksteal
// run --nats follows a cluster's results with one, made by
// runopts.NewHaltTracker): Observe says when the halt is met, ExitStatus
// gives GNU parallel's exit status. Not safe for concurrent use.
type haltTracker struct{ h halting }

// Observe counts one finished job, res a Result (after its retries), and
// says whether the halt is met with it (true once: the first time).
func (t *haltTracker) Observe(res any) bool {
	r := res.(Result)
	return t.h.observe(&r)
}

// Met says the halt has been met.
func (t *haltTracker) Met() bool { return t.h.triggered }

// ExitStatus is GNU parallel's exit status under the halt, given the number
// of jobs started: the one fixed when it was met, else the failed jobs'
// count (at most 101), or their percentage for a percentage halt.
func (t *haltTracker) ExitStatus(started int) int { return t.h.exitStatus(started) }
