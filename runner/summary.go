package runner

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/worksteal/worksteal/internal/joblog"
)

// Progress is the state of a running batch.
type Progress struct {
	Total     int           // jobs in the batch
	Succeeded int           // finished with status 0
	Failed    int           // finished otherwise, retries spent
	Running   int           // jobs with a process running now
	Elapsed   time.Duration // since Run started
}

// Done is Succeeded + Failed.
func (p Progress) Done() int { return p.Succeeded + p.Failed }

// Result is the outcome of one job: its last attempt, or the copy that won.
type Result struct {
	Job
	Exit
	Slot     int   // slot of the recorded attempt, from 1
	Attempts int   // attempts started, speculative copies included
	TimedOut bool  // the recorded attempt was cut by the timeout
	CopyWon  bool  // a speculative copy finished first
	sent     int64 // bytes the recorded attempt was given on its input (--pipe): the joblog's Send
	killed   bool  // the runner killed the recorded attempt (Throttle.Limit, MemFree)
}

// OK says the job succeeded.
func (r Result) OK() bool { return r.Exit.OK() }

// record returns r as a joblog row for host (runopts.Record).
func (r Result) record(host string) joblog.Record {
	// GNU parallel's Exitval: $? >> 8 (0 for a process killed by a
	// signal, which the Signal column gives), -1 for a job it killed at
	// its timeout unless the job exited with a status of its own.
	code := r.Code
	if r.Signal != 0 {
		code = 0
	}
	if (r.TimedOut || r.killed) && code == 0 {
		code = -1 // GNU: a job it killed itself (--timeout, --limit, --memfree)
	}
	return joblog.Record{Seq: r.Seq, Host: host, Start: r.Start, Runtime: r.Runtime, Send: r.sent, Receive: r.Received, Exit: code, Signal: r.Signal, Command: r.Command}
}

// Summary is what happened to a batch, with the balance metrics of the run.
type Summary struct {
	Jobs      int // jobs given to Run
	Succeeded int
	Failed    int
	NotRun    int // not finished because Run was interrupted
	Retries   int // extra attempts after failures
	TimedOut  int // attempts cut by the timeout
	Copies    int // speculative copies started
	CopiesWon int // jobs whose speculative copy finished first

	Slots    int
	Makespan time.Duration   // from Run's start to the end of its last job
	Busy     []time.Duration // per slot: time spent running attempts
	// Durations holds the run time of each finished job's recorded attempt.
	Durations []time.Duration
	// Utilization, Imbalance and StragglerRatio are balance.Utilization
	// (busy over Slots × Makespan), balance.Imbalance of Busy and
	// balance.StragglerRatio of Durations.
	Utilization, Imbalance, StragglerRatio float64

	// lpt says the jobs started longest first; costsKnown is how many had a
	// known cost. inputEstimate and lptEstimate are the makespans of list
	// scheduling the jobs on Slots in input order and in the order used:
	// from the measured run times when every job finished, else from the
	// estimated costs (then in cost units, estimated set). Zero when not
	// lpt. Saving and String report them.
	lpt                        bool
	costsKnown                 int
	inputEstimate, lptEstimate float64
	estimated                  bool

	// Results holds the finished jobs' results in input order.
	Results []Result

	// Halted says the Halt condition was met. haltStatus is the exit
	// status GNU parallel gives under Config.Halt (met or not), and
	// haltSet says there is one (Halt is not never): runopts.HaltStatus.
	Halted     bool
	haltStatus int
	haltSet    bool
}

// Saving returns the fraction of the input-order makespan that longest-
// first ordering saved, and false when it cannot tell (the jobs did not
// start longest first). Both makespans are those of list scheduling the
// jobs on Slots, in input order and in the order used: from the measured
// run times when every job finished, else from the estimated costs.
func (s *Summary) Saving() (float64, bool) {
	if !s.lpt || s.inputEstimate <= 0 {
		return 0, false
	}
	return 1 - s.lptEstimate/s.inputEstimate, true
}

// String formats the summary in three or four lines.
func (s *Summary) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "jobs %d: %d succeeded, %d failed", s.Jobs, s.Succeeded, s.Failed)
	if s.NotRun > 0 {
		fmt.Fprintf(&b, ", %d not run", s.NotRun)
	}
	var extra []string
	if s.Retries > 0 {
		extra = append(extra, fmt.Sprintf("%d retries", s.Retries))
	}
	if s.TimedOut > 0 {
		extra = append(extra, fmt.Sprintf("%d timed out", s.TimedOut))
	}
	if s.Copies > 0 {
		extra = append(extra, fmt.Sprintf("%d speculative copies, %d won", s.Copies, s.CopiesWon))
	}
	if len(extra) > 0 {
		fmt.Fprintf(&b, " (%s)", strings.Join(extra, ", "))
	}
	fmt.Fprintf(&b, "\nmakespan %s on %d slots: utilization %.2f, load imbalance %.2f, straggler ratio %.2f\n",
		roundDuration(s.Makespan), s.Slots, s.Utilization, s.Imbalance, s.StragglerRatio)
	if saving, ok := s.Saving(); ok {
		unit := func(v float64) string { return roundDuration(time.Duration(v * float64(time.Second))).String() }
		from := "measured run times"
		if s.estimated {
			unit = func(v float64) string { return strconv.FormatFloat(v, 'g', 4, 64) + " cost units" }
			from = "estimated costs"
		}
		fmt.Fprintf(&b, "order: longest first (%d of %d costs known); by %s, input order %s, longest first %s: saved %.0f%%\n",
			s.costsKnown, s.Jobs, from, unit(s.inputEstimate), unit(s.lptEstimate), 100*saving)
	}
	return b.String()
}

func roundDuration(d time.Duration) time.Duration {
	switch {
	case d >= 10*time.Second:
		return d.Round(100 * time.Millisecond)
	case d >= time.Second:
		return d.Round(10 * time.Millisecond)
	}
	return d.Round(time.Millisecond)
}
