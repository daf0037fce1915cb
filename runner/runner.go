package runner

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/worksteal/worksteal/balance"
	"github.com/worksteal/worksteal/internal/jobio"
	"github.com/worksteal/worksteal/internal/runopts"
)

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
	timer  *time.Timer  // cuts the attempt at its limit; nil while none applies
	pgid   atomic.Int64 // its process group while it runs, 0 before and after (Command.Started)
	paused bool         // stopped by Throttle.MemSuspend (the loop's)
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
	r.sum = Summary{Jobs: len(jobs), Slots: cfg.Slots, Busy: make([]time.Duration, cfg.Slots), lpt: r.plan.lpt, costsKnown: r.plan.known}
	r.events = make(chan attemptDone)
	r.retryCh = make(chan *jobState, len(jobs))
	if feed != nil {
		r.retryCh = make(chan *jobState, 1<<16) // retries wait in timers, not here, beyond that
	}
	r.halt = halting{Halt: cfg.x.Halt, total: len(jobs)}
	r.errOut = cfg.Stderr
	if (cfg.Output != OutputGroup && !cfg.KeepOrder && cfg.Results == nil) || cfg.Output == outputLatestLine {
		mu := new(sync.Mutex)
		r.streamOut = &lockedWriter{w: cfg.Stdout, mu: mu}
		r.streamErr = &lockedWriter{w: cfg.Stderr, mu: mu}
		r.errOut = r.streamErr // the runner's own lines too, between the jobs' writes
		if cfg.Output == outputLatestLine {
			// GNU: --latest-line keeps the order of the rows (its -k), not
			// of the output.
			r.latest = newLatestScreen(r.streamOut, cfg.x.Screen, cfg.KeepOrder)
			r.latest.resize = cfg.x.Resize
		}
	}
	err := r.loop(ctx)
	r.releaseInputs()
	r.finishSummary()
	if r.halt.When != runopts.HaltNever {
		r.sum.haltSet = true
		r.sum.halted = r.halt.triggered
		r.sum.haltStatus = r.halt.exitStatus(r.started)
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
	gate    gate // Throttle's state (gate.go)
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
	latest               *latestScreen // outputLatestLine's rows
	errOut               io.Writer     // where the runner's own lines go: Stderr, or streamErr
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
	a := &attempt{js: js, slot: slot, copy: copy, start: time.Now(), cancel: cancel, line: js.job.x.CommandIn(js.job.Command, slot)}
	r.arm(a, r.limit())
	js.tries++
	js.running = append(js.running, a)
	r.running++
	if r.cfg.x.Attempts != nil {
		r.cfg.x.Attempts(runopts.Attempt{Seq: js.job.Seq, Slot: slot, Try: js.tries, Copy: copy, Start: a.start})
	}
	seq, sl := strconv.Itoa(js.job.Seq), strconv.Itoa(slot)
	sl0 := strconv.Itoa(slot - 1)
	env := append(slices.Clip(r.cfg.Env), "WORKSTEAL_SEQ="+seq, "WORKSTEAL_SLOT="+sl, "PARALLEL_SEQ="+seq, "PARALLEL_JOBSLOT="+sl,
		cmp.Or(r.cfg.x.SlotVar, "PARALLEL_JOBSLOT0")+"="+sl0) // GNU's --process-slot-var

	c := Command{Shell: r.cfg.Shell, Line: jobio.ShellQuoted(a.line, r.cfg.x.ShellQuote), Env: env, Grace: r.cfg.Grace, termSeq: r.cfg.x.TermSeq, Nice: r.cfg.Nice,
		started: func(pgid int) { a.pgid.Store(int64(pgid)) }}
	switch {
	case r.cfg.x.Ask != nil:
		if !r.cfg.x.Ask(a.line) {
			js.job.x.Skip = 's' // GNU: skip(), exit status -2, never retried
		}
	case r.cfg.x.Trace && r.errOut != nil:
		io.WriteString(r.errOut, a.line+"\n") // -t: as the attempt starts
	}
	var flush func(failed bool)
	if r.streamOut != nil {
		first := "" // -v under --latest-line: GNU's first line of the job's own output
		if r.cfg.x.Verbose && r.latest != nil {
			first = a.line + "\n"
		}
		c.Stdout, c.Stderr, flush = r.streams(js.job, slot, first)
		if r.cfg.x.Verbose && r.latest == nil {
			// -v: the first of the job's output, tagged as it is.
			io.WriteString(c.Stdout, a.line+"\n")
		}
	}
	in := openInput(js.job)
	go func() {
		if js.job.x.Skip != 0 || r.cfg.x.DryRun {
			// GNU's skip() (exit -2), its wrapper of a --pipe command
			// that gets no input (exit 0), or --dry-run's "true": nothing
			// runs; -t and -v above show the command.
			if flush != nil {
				flush(false)
			}
			code := 0
			if js.job.x.Skip == 's' {
				code = -2
			}
			r.events <- attemptDone{a: a, e: Exit{Start: time.Now(), Code: code}}
			return
		}
		stdin, extra, sent, err := in.Attempt()
		if err != nil {
			r.events <- attemptDone{a: a, e: Exit{Start: time.Now(), Code: -1, Err: err}}
			return
		}
		c.Stdin, c.Env = stdin, append(c.Env, extra...)
		if err := js.job.x.WriteTemplates(slot); err != nil {
			r.events <- attemptDone{a: a, e: Exit{Start: time.Now(), Code: -1, Err: err}}
			return
		}
		if r.cfg.x.TTY && c.Stdin == nil {
			if tty, err := os.Open("/dev/tty"); err == nil {
				c.Stdin, c.tty = tty, true
				defer tty.Close()
			}
		}
		e := Exec(actx, c)
		if flush != nil {
			flush(e.Code != 0 || e.Signal != 0 || e.Err != nil)
		}
		if r.cfg.x.Compress != "" && c.Stdout == nil && actx.Err() == nil {
			e = r.compressed(actx, e)
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
	if r.cfg.x.Attempts != nil {
		r.cfg.x.Attempts(runopts.Attempt{Seq: js.job.Seq, Slot: a.slot, Try: js.tries, Copy: a.copy, Start: a.start, Ended: true, Runtime: e.Runtime, OK: e.OK()})
	}
	r.sum.Busy[a.slot-1] += e.Runtime
	timedOut := errors.Is(e.Err, errTimedOut)
	if timedOut {
		r.sum.TimedOut++
		r.hist.Observe(e.Runtime) // censored at the limit; see balance.History
	}
	killed := errors.Is(e.Err, errOverLimit) || errors.Is(e.Err, errLowMemory)
	res := &Result{Job: js.job, Exit: e, Slot: a.slot, Attempts: js.tries, TimedOut: timedOut, CopyWon: a.copy, sent: d.sent, killed: killed}
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
	case js.job.x.Skip == 's':
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
// does, and under runopts.HaltNow stops the running attempts (which are then
// neither logged nor counted).
func (r *run) halted(res *Result) {
	what := map[runopts.HaltWhy]string{runopts.HaltOnFail: "failed", runopts.HaltOnSuccess: "succeeded", runopts.HaltOnDone: "finished"}[r.halt.Why]
	fmt.Fprintf(r.errOut, "worksteal: This job %s:\n%s\n", what, res.Command)
	if r.halt.When == runopts.HaltNow {
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
	if r.cfg.x.Verbose && r.streamOut == nil && (r.cfg.Results != nil || r.cfg.Stdout != nil) {
		// GNU: -v's line is part of the job's output: tagged, coloured,
		// saved and counted in the joblog's Receive with it.
		res.Stdout = append([]byte(res.Command+"\n"), res.Stdout...)
		res.Received += int64(len(res.Command) + 1)
	}
	if r.cfg.x.Verbose && r.streamOut != nil && r.cfg.Output != OutputUngroup {
		res.Received += int64(len(res.Command) + 1) // written as it came
	}
	switch {
	case r.cfg.Results != nil:
		if err := r.cfg.Results(*res); err != nil && !r.resultsFailed {
			r.resultsFailed = true
			fmt.Fprintf(r.errOut, "worksteal: warning: results: %v (the results are incomplete)\n", err)
		}
	case r.streamOut != nil:
		// Written as it came.
	case r.cfg.x.Color != nil:
		tag := ""
		if r.cfg.x.Tag {
			tag = res.x.TagIn(res.Slot) + "\t"
		}
		begin, end := r.cfg.x.Color(res.Seq, res.Code != 0 || res.Signal != 0)
		if len(res.Stdout) > 0 {
			r.cfg.Stdout.Write(colorLines(nil, begin+tag, end, res.Stdout))
		}
		if len(res.Stderr) > 0 {
			r.errOut.Write(colorLines(nil, begin+tag, end, res.Stderr))
		}
	case r.cfg.x.Tag:
		tag := res.x.TagIn(res.Slot) + "\t"
		if len(res.Stdout) > 0 {
			r.cfg.Stdout.Write(jobio.TagLines(nil, tag, res.Stdout))
		}
		if len(res.Stderr) > 0 {
			r.errOut.Write(jobio.TagLines(nil, tag, res.Stderr))
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
	if r.cfg.x.Joblog != nil {
		rec := res.record(r.cfg.x.Host)
		if r.cfg.Output == OutputUngroup {
			rec.Receive = 0 // GNU counts no output it does not hold (-u)
		}
		if err := r.cfg.x.Joblog.Write(rec); err != nil && !r.joblogFailed {
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
	if s.lpt {
		identity := make([]int, len(r.jobs))
		for i := range identity {
			identity[i] = i
		}
		costs := measured
		if !all {
			costs, s.estimated = r.plan.costs, true
		}
		s.inputEstimate = listMakespan(costs, identity, s.Slots)
		s.lptEstimate = listMakespan(costs, r.plan.order, s.Slots)
	}
}
