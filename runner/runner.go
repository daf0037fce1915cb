package runner

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/worksteal/worksteal/balance"
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
	// Stdout and Stderr receive the jobs' output; nil discards it.
	Stdout, Stderr io.Writer
	// Tag prefixes each line of a job's output with its TagIn(slot) and a
	// tab (GNU parallel's --tag, --tagstring); not under OutputUngroup.
	Tag bool
	// Verbose writes each job's command line, and a newline, on Stdout
	// before its output (GNU parallel's -v); Trace writes it on Stderr as
	// each attempt starts (GNU's -t, --verbose).
	Verbose, Trace bool
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
	Sent     int64 // bytes the recorded attempt was given on its input (--pipe)
	killed   bool  // the runner killed the recorded attempt (Throttle.Limit, MemFree)
}

// OK says the job succeeded.
func (r Result) OK() bool { return r.Exit.OK() }

// Record returns r as a joblog row for host.
func (r Result) Record(host string) Record {
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
	return Record{Seq: r.Seq, Host: host, Start: r.Start, Runtime: r.Runtime, Send: r.Sent, Receive: r.Received, Exit: code, Signal: r.Signal, Command: r.Command}
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

	// LPT says the jobs started longest first; CostsKnown is how many had a
	// known cost.
	LPT        bool
	CostsKnown int
	// InputEstimate and LPTEstimate are the makespans of list scheduling
	// the jobs on Slots in input order and in the order used: from the
	// measured run times when every job finished, else from the estimated
	// costs (then in cost units, Estimated set). Zero when not LPT.
	InputEstimate, LPTEstimate float64
	Estimated                  bool

	// Results holds the finished jobs' results in input order.
	Results []Result

	// Halted says the Halt condition was met; HaltStatus is the exit
	// status GNU parallel gives under Config.Halt (met or not), and
	// HaltSet says there is one (Halt is not never).
	Halted     bool
	HaltStatus int
	HaltSet    bool
}

// Saving returns the fraction of the input-order makespan that LPT ordering
// saved (estimated; see InputEstimate), and false when it cannot tell.
func (s *Summary) Saving() (float64, bool) {
	if !s.LPT || s.InputEstimate <= 0 {
		return 0, false
	}
	return 1 - s.LPTEstimate/s.InputEstimate, true
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
		if s.Estimated {
			unit = func(v float64) string { return strconv.FormatFloat(v, 'g', 4, 64) + " cost units" }
			from = "estimated costs"
		}
		fmt.Fprintf(&b, "order: longest first (%d of %d costs known); by %s, input order %s, longest first %s: saved %.0f%%\n",
			s.CostsKnown, s.Jobs, from, unit(s.InputEstimate), unit(s.LPTEstimate), 100*saving)
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

// jobState is the runner's record of one job. Owned by the loop goroutine.
type jobState struct {
	idx        int // position in the jobs given to Run
	job        Job
	tries      int // attempts started, copies included
	running    []*attempt
	last       *Result // latest failed attempt, while another may follow
	speculated bool
	res        *Result // the final result, once finished
}

// attempt is one process run of a job.
type attempt struct {
	js     *jobState
	slot   int
	copy   bool
	start  time.Time
	line   string // the command run: the job's, its {%} filled in
	cancel context.CancelCauseFunc
	timer  *time.Timer // cuts the attempt at its limit; nil while none applies
}

type attemptDone struct {
	a    *attempt
	e    Exit
	sent int64 // bytes the attempt was given on its input
}

// Run runs jobs on cfg.Slots slots and returns what happened. Jobs start in
// the planned order (see Order) as slots free up, so a slot never waits while
// a job is ready: dynamic balancing, whatever the jobs' durations.
//
// A failed job is retried (Retries), a job over its limit killed (Timeout),
// a straggler copied (Speculate). Each finished job is written to the joblog
// at once, and its output to Stdout and Stderr.
//
// When ctx is done, Run starts nothing more, stops the running jobs (their
// process groups get SIGTERM, then SIGKILL after Grace), and returns the
// Summary with an error wrapping ErrInterrupted and context.Cause(ctx). The
// stopped jobs are neither written to the joblog nor counted as failed, so
// a rerun with Resume runs exactly them and the jobs never started.
//
// A job that fails is not an error of Run: see Summary.Failed. Run returns
// an error wrapping ErrInvalidConfig, without running anything, for a bad
// Config.
func Run(ctx context.Context, cfg Config, jobs []Job) (*Summary, error) {
	return runJobs(ctx, cfg, jobs, nil)
}

// RunStream is Run for a batch whose jobs come while it runs (GNU
// parallel's --pipe: a job per chunk of input, made as the input is read),
// started in the order they come, each as soon as a slot is free and the
// job has come. It returns when jobs is closed and every job has finished.
// Order and costs do not apply. When ctx is done, RunStream stops as Run
// does and takes no more jobs: the sender must select on ctx.Done too.
// The Summary's Results keep no output (a stream's output may be larger
// than memory): it goes to Stdout and Stderr (or Results) as it is written.
func RunStream(ctx context.Context, cfg Config, jobs <-chan Job) (*Summary, error) {
	return runJobs(ctx, cfg, nil, jobs)
}

func runJobs(ctx context.Context, cfg Config, jobs []Job, feed <-chan Job) (*Summary, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	r := &run{cfg: cfg, start: time.Now(), jobs: make([]*jobState, len(jobs)), feed: feed, stream: feed != nil}
	for i, j := range jobs {
		r.jobs[i] = &jobState{idx: i, job: j}
	}
	r.plan = makePlan(jobs, cfg.Order, cfg.History)
	r.hist = balance.NewHistory(0)
	r.hedge = &balance.Hedge{Delay: cfg.SpeculateAfter, MinSamples: 3, History: r.hist}
	r.backoff = balance.Backoff{Initial: cfg.RetryDelay, Max: time.Minute, Multiplier: 2, Jitter: 0.5}
	r.sum = Summary{Jobs: len(jobs), Slots: cfg.Slots, Busy: make([]time.Duration, cfg.Slots), LPT: r.plan.lpt, CostsKnown: r.plan.known}
	r.events = make(chan attemptDone)
	r.retryCh = make(chan *jobState, len(jobs))
	if feed != nil {
		r.retryCh = make(chan *jobState, 1<<16) // retries wait in timers, not here, beyond that
	}
	r.halt = halting{Halt: cfg.Halt, total: len(jobs)}
	r.errOut = cfg.Stderr
	if cfg.Output != OutputGroup && !cfg.KeepOrder && cfg.Results == nil {
		mu := new(sync.Mutex)
		r.streamOut = &lockedWriter{w: cfg.Stdout, mu: mu}
		r.streamErr = &lockedWriter{w: cfg.Stderr, mu: mu}
		r.errOut = r.streamErr // the runner's own lines too, between the jobs' writes
	}
	err := r.loop(ctx)
	r.releaseInputs()
	r.finishSummary()
	if r.halt.When != HaltNever {
		r.sum.HaltSet = true
		r.sum.Halted = r.halt.triggered
		r.sum.HaltStatus = r.halt.exitStatus(r.started)
	}
	return &r.sum, err
}

// run is one call of Run. Every field is owned by the loop goroutine; the
// attempt goroutines only send on events, and retry timers on retryCh.
type run struct {
	cfg     Config
	start   time.Time
	jobs    []*jobState
	plan    plan
	next    int         // next index into plan.order to start
	retries []*jobState // failed jobs whose backoff has passed, first to start
	delayed int         // failed jobs waiting for their backoff
	free    []int       // slots freed by finished attempts, oldest first
	minted  int         // slots handed out so far: 1..minted
	// Slots are GNU parallel's: a freed slot goes to the back of the queue
	// and the front one is taken; a new number only when none is free.
	running int // attempts running
	// feed brings RunStream's jobs; nil once closed (and for Run).
	// stream: a RunStream, whose results keep no output once written.
	stream  bool
	feed    <-chan Job
	gate    gate // Throttle's state (throttle.go)
	events  chan attemptDone
	retryCh chan *jobState
	nextOut int // KeepOrder: first job whose output is not written yet
	// joblogFailed: a joblog write failed and was reported (once).
	joblogFailed bool

	hist  *balance.History
	hedge *balance.Hedge
	// succeeded holds the run times of the successful attempts, sorted,
	// truncated to the millisecond: GNU parallel's median for
	// TimeoutFactor.
	succeeded []time.Duration
	backoff   balance.Backoff
	sum       Summary
	end       time.Time

	halt      halting
	started   int       // jobs started (first attempts)
	nextStart time.Time // Delay: the earliest time the next job may start
	delayT    *time.Timer
	delayC    <-chan time.Time // fires at nextStart while a job waits for it
	// streamOut and streamErr: the jobs' output as it comes (OutputLineBuffer,
	// OutputUngroup), one write at a time.
	streamOut, streamErr *lockedWriter
	errOut               io.Writer // where the runner's own lines go: Stderr, or streamErr
	resultsFailed        bool
}

func (r *run) loop(ctx context.Context) error {
	var tick <-chan time.Time
	if r.cfg.Speculate {
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		tick = t.C
	}
	done := ctx.Done()
	stopping := false
	for {
		if !stopping {
			r.startReady(ctx)
			if r.cfg.Speculate && r.drained() {
				r.speculate(ctx)
			}
		}
		if r.running == 0 && (stopping || r.drained() || r.halt.triggered) {
			break
		}
		// A streamed job is taken only when it can start at once.
		var feed <-chan Job
		if !stopping && r.running < r.cfg.Slots && r.next == len(r.plan.order) && len(r.retries) == 0 {
			feed = r.feed
		}
		select {
		case j, ok := <-feed:
			if !ok {
				r.feed = nil
				break
			}
			r.jobs = append(r.jobs, &jobState{idx: len(r.jobs), job: j})
			r.plan.order = append(r.plan.order, len(r.jobs)-1)
			r.sum.Jobs++
		case <-r.gate.recheck:
			r.gate.recheck = nil
			r.checkMemory()
		case d := <-r.events:
			r.finished(d, stopping)
		case js := <-r.retryCh:
			r.delayed--
			if !stopping {
				r.retries = append(r.retries, js)
			}
		case <-tick:
		case <-r.delayC:
			r.delayC = nil
		case <-done:
			done, stopping = nil, true
			for _, js := range r.jobs {
				for _, a := range js.running {
					a.cancel(errInterrupted)
				}
			}
		}
	}
	r.end = time.Now()
	if r.delayT != nil {
		r.delayT.Stop()
	}
	r.flushOutput()
	if stopping {
		return fmt.Errorf("%w (%w)", ErrInterrupted, context.Cause(ctx))
	}
	return nil
}

// drained says no job is waiting to start, now or after a backoff.
func (r *run) drained() bool {
	return r.next == len(r.plan.order) && len(r.retries) == 0 && r.delayed == 0 && r.feed == nil
}

// startReady fills the free slots: retries first, then the plan's order.
// Nothing starts once a Halt is met; under Delay, one job at a time.
func (r *run) startReady(ctx context.Context) {
	for r.running < r.cfg.Slots && !r.halt.triggered {
		if len(r.retries) == 0 && r.next >= len(r.plan.order) {
			return
		}
		if !r.roomForJob() {
			return // the throttle rechecks later
		}
		if r.cfg.Delay > 0 {
			if wait := time.Until(r.nextStart); wait > 0 {
				if r.delayC == nil {
					if r.delayT == nil {
						r.delayT = time.NewTimer(wait)
					} else {
						r.delayT.Reset(wait)
					}
					r.delayC = r.delayT.C
				}
				return
			}
			r.nextStart = time.Now().Add(r.cfg.Delay)
		}
		var js *jobState
		if len(r.retries) > 0 {
			js, r.retries = r.retries[0], r.retries[1:]
		} else {
			js = r.jobs[r.plan.order[r.next]]
			r.next++
			r.started++
		}
		r.launch(ctx, js, false)
	}
}

// speculate gives free slots to copies of the jobs that have run longest,
// once they run past the hedge threshold.
func (r *run) speculate(ctx context.Context) {
	if r.running >= r.cfg.Slots {
		return
	}
	thr, ok := r.hedge.Threshold()
	if !ok {
		return
	}
	now := time.Now()
	var cands []*attempt
	for _, js := range r.jobs {
		if js.res == nil && !js.speculated && len(js.running) == 1 && now.Sub(js.running[0].start) > thr {
			cands = append(cands, js.running[0])
		}
	}
	slices.SortFunc(cands, func(a, b *attempt) int { return a.start.Compare(b.start) })
	for _, a := range cands {
		if r.running >= r.cfg.Slots {
			return
		}
		a.js.speculated = true
		r.sum.Copies++
		r.launch(ctx, a.js, true)
	}
}

// launch starts one attempt of js on a free slot.
func (r *run) launch(ctx context.Context, js *jobState, copy bool) {
	var slot int
	if len(r.free) > 0 {
		slot, r.free = r.free[0], r.free[1:]
	} else {
		r.minted++
		slot = r.minted
	}
	// Not a child of ctx's cancellation: the loop stops attempts itself, so
	// that each one's cause says why (interrupted, timed out, lost a race).
	actx, cancel := context.WithCancelCause(context.WithoutCancel(ctx))
	a := &attempt{js: js, slot: slot, copy: copy, start: time.Now(), cancel: cancel, line: js.job.CommandIn(slot)}
	r.arm(a, r.limit())
	js.tries++
	js.running = append(js.running, a)
	r.running++
	if r.cfg.Attempts != nil {
		r.cfg.Attempts(Attempt{Seq: js.job.Seq, Slot: slot, Try: js.tries, Copy: copy, Start: a.start})
	}
	seq, sl := strconv.Itoa(js.job.Seq), strconv.Itoa(slot)
	sl0 := strconv.Itoa(slot - 1)
	env := append(slices.Clip(r.cfg.Env), "WORKSTEAL_SEQ="+seq, "WORKSTEAL_SLOT="+sl, "PARALLEL_SEQ="+seq, "PARALLEL_JOBSLOT="+sl,
		cmp.Or(r.cfg.SlotVar, "PARALLEL_JOBSLOT0")+"="+sl0) // GNU's --process-slot-var

	c := Command{Shell: r.cfg.Shell, Line: a.line, Env: env, Grace: r.cfg.Grace, Nice: r.cfg.Nice}
	if r.cfg.Trace && r.errOut != nil {
		io.WriteString(r.errOut, a.line+"\n") // -t: as the attempt starts
	}
	var flush func()
	if r.streamOut != nil {
		if r.cfg.Verbose {
			io.WriteString(r.streamOut, a.line+"\n") // -v: as the output comes
		}
		c.Stdout, c.Stderr, flush = r.streams(js.job, slot)
	}
	in := openInput(js.job)
	go func() {
		if js.job.skip != 0 {
			// GNU's skip() (exit -2), or its wrapper of a --pipe command
			// that gets no input (exit 0): nothing runs; -t and -v above
			// show the command.
			if flush != nil {
				flush()
			}
			code := 0
			if js.job.skip == 's' {
				code = -2
			}
			r.events <- attemptDone{a: a, e: Exit{Start: time.Now(), Code: code}}
			return
		}
		stdin, extra, sent, err := in.attempt()
		if err != nil {
			r.events <- attemptDone{a: a, e: Exit{Start: time.Now(), Code: -1, Err: err}}
			return
		}
		c.Stdin, c.Env = stdin, append(c.Env, extra...)
		e := Exec(actx, c)
		if flush != nil {
			flush()
		}
		r.events <- attemptDone{a: a, e: e, sent: sent()}
	}()
	r.progress()
}

// limit is the time an attempt may run now; 0 means no limit.
func (r *run) limit() time.Duration {
	if r.cfg.TimeoutFactor > 0 {
		if len(r.succeeded) == 0 {
			return 0
		}
		// GNU parallel: (sort @runtimes)[$#runtimes/2], the lower median.
		med := r.succeeded[(len(r.succeeded)-1)/2]
		return time.Duration(r.cfg.TimeoutFactor * float64(med))
	}
	return r.cfg.Timeout
}

// arm sets a's timer to cut it when it has run for limit (0: never). A
// timer that fires after the attempt ended only sets the cause of a
// context already cancelled. Called by the loop goroutine only.
func (r *run) arm(a *attempt, limit time.Duration) {
	if limit <= 0 {
		if a.timer != nil {
			a.timer.Stop()
		}
		return
	}
	left := max(0, limit-time.Since(a.start))
	if a.timer == nil {
		a.timer = time.AfterFunc(left, func() { a.cancel(errTimedOut) })
		return
	}
	a.timer.Reset(left)
}

// succeededIn records the run time of a successful attempt and, under
// TimeoutFactor, applies the new limit to every running attempt (GNU
// parallel checks the running jobs against the current limit).
func (r *run) succeededIn(d time.Duration) {
	if r.cfg.TimeoutFactor <= 0 {
		return
	}
	d = d.Truncate(time.Millisecond)
	i, _ := slices.BinarySearch(r.succeeded, d)
	r.succeeded = slices.Insert(r.succeeded, i, d)
	limit := r.limit()
	for _, js := range r.jobs {
		for _, a := range js.running {
			r.arm(a, limit)
		}
	}
}

// finished handles the end of one attempt.
func (r *run) finished(d attemptDone, stopping bool) {
	a, e, js := d.a, d.e, d.a.js
	d.a.cancel(nil) // release the attempt's ctx
	if a.timer != nil {
		a.timer.Stop()
	}
	js.running = slices.DeleteFunc(js.running, func(x *attempt) bool { return x == a })
	r.running--
	r.free = append(r.free, a.slot)
	if r.cfg.Attempts != nil {
		r.cfg.Attempts(Attempt{Seq: js.job.Seq, Slot: a.slot, Try: js.tries, Copy: a.copy, Start: a.start, Ended: true, Runtime: e.Runtime, OK: e.OK()})
	}
	r.sum.Busy[a.slot-1] += e.Runtime
	timedOut := errors.Is(e.Err, errTimedOut)
	if timedOut {
		r.sum.TimedOut++
		r.hist.Observe(e.Runtime) // censored at the limit; see balance.History
	}
	killed := errors.Is(e.Err, errOverLimit) || errors.Is(e.Err, errLowMemory)
	res := &Result{Job: js.job, Exit: e, Slot: a.slot, Attempts: js.tries, TimedOut: timedOut, CopyWon: a.copy, Sent: d.sent, killed: killed}
	res.Command = a.line
	switch {
	case js.res != nil:
		// The loser of a speculative race, killed or finishing late.
		return
	case errors.Is(e.Err, errInterrupted) || errors.Is(e.Err, errHalted):
		return // not finished: neither logged nor counted
	case e.OK():
		r.hist.Observe(e.Runtime)
		r.succeededIn(e.Runtime)
		for _, o := range js.running {
			o.cancel(errLostRace)
		}
		if a.copy {
			r.sum.CopiesWon++
		}
		r.complete(js, res)
	case len(js.running) > 0:
		js.last = res // the other copy may still succeed
	case js.job.skip == 's':
		r.complete(js, res) // never retried (GNU)
	case js.tries <= r.cfg.Retries && !stopping && !r.halt.triggered:
		js.last = res
		r.sum.Retries++
		if r.cfg.RetryDelay <= 0 {
			r.retries = append(r.retries, js) // at once, as GNU parallel
			break
		}
		r.delayed++
		lo, hi := r.backoff.Wait(js.tries)
		wait := lo + rand.N(hi-lo+1)
		time.AfterFunc(wait, func() { r.retryCh <- js })
	default:
		r.complete(js, res)
	}
	r.progress()
}

// complete records js's final result: counts, joblog, output.
func (r *run) complete(js *jobState, res *Result) {
	js.res = res
	js.job.release()
	// The input is spent: neither the job nor the Summary keeps it.
	js.job.Stdin, res.Stdin, js.last = nil, nil, nil
	if res.OK() {
		r.sum.Succeeded++
	} else {
		r.sum.Failed++
	}
	if !r.cfg.KeepOrder {
		r.output(res)
	} else {
		for r.nextOut < len(r.jobs) && r.jobs[r.nextOut].res != nil {
			r.output(r.jobs[r.nextOut].res)
			r.nextOut++
		}
	}
	r.halt.total = len(r.jobs) // RunStream: the jobs made so far
	if r.halt.observe(res) {
		r.halted(res)
	}
}

// halted acts on a Halt just met: it says so on Stderr, as GNU parallel
// does, and under HaltNow stops the running attempts (which are then
// neither logged nor counted).
func (r *run) halted(res *Result) {
	what := map[HaltWhy]string{HaltOnFail: "failed", HaltOnSuccess: "succeeded", HaltOnDone: "finished"}[r.halt.Why]
	fmt.Fprintf(r.errOut, "worksteal: This job %s:\n%s\n", what, res.Command)
	if r.halt.When == HaltNow {
		for _, js := range r.jobs {
			for _, a := range js.running {
				a.cancel(errHalted)
			}
		}
		r.retries = nil
		return
	}
	if r.running > 0 {
		fmt.Fprintf(r.errOut, "worksteal: Starting no more jobs. Waiting for %d jobs to finish.\n", r.running)
	}
}

// flushOutput writes, in input order, what KeepOrder held back behind jobs
// that never finished.
func (r *run) flushOutput() {
	if !r.cfg.KeepOrder {
		return
	}
	for ; r.nextOut < len(r.jobs); r.nextOut++ {
		if res := r.jobs[r.nextOut].res; res != nil {
			r.output(res)
		}
	}
}

func (r *run) output(res *Result) {
	if r.cfg.Verbose && r.cfg.Results == nil && r.streamOut == nil && r.cfg.Stdout != nil {
		io.WriteString(r.cfg.Stdout, res.Command+"\n") // -v: with the job's output
	}
	if r.cfg.Verbose && r.cfg.Results != nil && r.streamOut == nil {
		// GNU: -v's line is part of the job's saved (and counted) output.
		res.Stdout = append([]byte(res.Command+"\n"), res.Stdout...)
		res.Received += int64(len(res.Command) + 1)
	}
	switch {
	case r.cfg.Results != nil:
		if err := r.cfg.Results(*res); err != nil && !r.resultsFailed {
			r.resultsFailed = true
			fmt.Fprintf(r.errOut, "worksteal: warning: results: %v (the results are incomplete)\n", err)
		}
	case r.streamOut != nil:
		// Written as it came.
	case r.cfg.Tag:
		tag := res.TagIn(res.Slot) + "\t"
		if len(res.Stdout) > 0 {
			r.cfg.Stdout.Write(tagLines(nil, tag, res.Stdout))
		}
		if len(res.Stderr) > 0 {
			r.errOut.Write(tagLines(nil, tag, res.Stderr))
		}
	default:
		if len(res.Stdout) > 0 {
			r.cfg.Stdout.Write(res.Stdout)
		}
		if len(res.Stderr) > 0 {
			r.errOut.Write(res.Stderr)
		}
	}
	switch {
	case res.TimedOut:
		fmt.Fprintf(r.errOut, "worksteal: warning: job %d was killed because it timed out: %s\n", res.Seq, res.Command)
	case errors.Is(res.Exit.Err, errOverLimit):
		// GNU says nothing of a job --limit killed.
	case res.Exit.Err != nil:
		fmt.Fprintf(r.errOut, "worksteal: job %d: %v\n", res.Seq, res.Exit.Err)
	}
	if r.cfg.Joblog != nil {
		if err := r.cfg.Joblog.Write(res.Record(r.cfg.Host)); err != nil && !r.joblogFailed {
			r.joblogFailed = true
			fmt.Fprintf(r.errOut, "worksteal: warning: joblog: %v (the joblog is incomplete)\n", err)
		}
	}
	if r.stream {
		// Written: a stream's output may be larger than memory.
		res.Stdout, res.Stderr = nil, nil
	}
}

func (r *run) progress() {
	if r.cfg.Progress == nil {
		return
	}
	r.cfg.Progress(Progress{Total: len(r.jobs), Succeeded: r.sum.Succeeded, Failed: r.sum.Failed, Running: r.running, Elapsed: time.Since(r.start)})
}

// finishSummary derives the metrics once the loop has ended.
func (r *run) finishSummary() {
	s := &r.sum
	if r.end.IsZero() {
		r.end = time.Now()
	}
	s.Makespan = r.end.Sub(r.start)
	idle := make([]time.Duration, len(s.Busy))
	for i, b := range s.Busy {
		idle[i] = max(0, s.Makespan-b)
	}
	measured := make([]float64, len(r.jobs))
	all := true
	for i, js := range r.jobs {
		if js.res == nil {
			s.NotRun++
			all = false
			continue
		}
		s.Results = append(s.Results, *js.res)
		s.Durations = append(s.Durations, js.res.Runtime)
		measured[i] = js.res.Runtime.Seconds()
	}
	s.Utilization = balance.Utilization(s.Busy, idle)
	s.Imbalance = balance.Imbalance(s.Busy)
	s.StragglerRatio = balance.StragglerRatio(s.Durations)
	if s.LPT {
		identity := make([]int, len(r.jobs))
		for i := range identity {
			identity[i] = i
		}
		costs := measured
		if !all {
			costs, s.Estimated = r.plan.costs, true
		}
		s.InputEstimate = listMakespan(costs, identity, s.Slots)
		s.LPTEstimate = listMakespan(costs, r.plan.order, s.Slots)
	}
}
