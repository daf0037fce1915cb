package runcmd

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/worksteal/worksteal/balance"
	"github.com/worksteal/worksteal/cluster"
	"github.com/worksteal/worksteal/cluster/shelltask"
	"github.com/worksteal/worksteal/internal/cli/cmdenv"
	"github.com/worksteal/worksteal/internal/clusterops"
	"github.com/worksteal/worksteal/internal/gnuinput"
	"github.com/worksteal/worksteal/internal/jobio"
	"github.com/worksteal/worksteal/internal/joblog"
	"github.com/worksteal/worksteal/internal/runopts"
	"github.com/worksteal/worksteal/runner"
)

func addRunClusterFlags(f *pflag.FlagSet, cfg *runConfig) {
	f.StringVar(&cfg.nats, "nats", "", "run the batch on the workers of the NATS server at URL (worksteal serve, worksteal worker)")
	f.StringVar(&cfg.jobName, "job", "", "with --nats: the job's name (default: derived from the commands, so rerunning a batch resumes it)")
	f.StringArrayVar(&cfg.require, "require", nil, "with --nats: run the tasks only on workers with this label, KEY=VALUE (repeatable; worksteal worker --label)")
	f.StringVar(&cfg.reduce, "reduce", "", "with --nats: reduce the commands' standard outputs (theirs and their spawned children's, worksteal spawn) with sum, count, min or max, and print the result at the end instead of each output (default: print each output)")
	f.DurationVar(&cfg.waitTimeout, "wait-timeout", 0, "with --nats: fail when no live worker can run the waiting tasks for this long (0: wait for such a worker; what the tasks wait for is said on stderr either way)")
	cfg.ClusterFlags.Add(f, "with --nats: ")
}

// printsEach says whether run prints each task's output (no --reduce, or
// concat) rather than the reduced value at the end.
func (cfg runConfig) printsEach() bool { return cfg.reduce == "" || cfg.reduce == "concat" }

// JobID names a batch by its commands: the same batch gets the same id,
// which is what lets a rerun of "run --nats" resume it or collect its
// results.
func JobID(jobs []runner.Job) string {
	h := sha256.New()
	for _, j := range jobs {
		fmt.Fprintf(h, "%d\x00%s\n", j.Seq, j.Command)
		if j.Stdin != nil { // --pipe: the same command on other input is another batch
			fmt.Fprintf(h, "%d\x00%x\n", len(j.Stdin), sha256.Sum256(j.Stdin))
		}
	}
	return "run-" + hex.EncodeToString(h.Sum(nil)[:8])
}

// runCluster submits the batch to the cluster tier and follows it: results
// are written as they are recorded, with the joblog, the progress and the
// summary of a local run.
//
// A batch is one job, named after all its commands (or --job). Running the
// same command again resumes the job if it is unfinished and collects its
// results if it finished: nothing that has a result runs again
// ("worksteal job delete" first to rerun it). The cluster's record of the
// job decides what runs, not the joblog: --resume-failed runs the tasks
// recorded as failed again; --resume and --resume-failed append to the
// joblog the rows it lacks; neither makes a second job beside a live one.
func runCluster(env *cmdenv.Env, cmd *cobra.Command, cfg runConfig, rcfg runner.Config, all, todo []runner.Job) error {
	if done, err := checkClusterRun(cmd, cfg, rcfg, todo); done {
		return err
	}
	stderr := cmd.ErrOrStderr()
	nc, ctx, roleOpts, err := cmdenv.ConnectAs(env.Ctx, cfg.nats, "worksteal run", cluster.RoleSubmitter, cfg.Creds, stderr)
	if err != nil {
		return runError(err)
	}
	defer nc.Close()
	runErr := runError
	runError := func(err error) error { // a refusal explains the error it caused
		if r := cmdenv.Refused(ctx); r != nil {
			return runErr(r)
		}
		return runErr(err)
	}
	node, err := cluster.New(nc, append(cfg.ClusterFlags.Options(), roleOpts...)...)
	if err != nil {
		return runError(err)
	}
	if len(todo) == 0 {
		fmt.Fprintf(stderr, "worksteal: all %d jobs already succeeded\n", len(all))
		return nil
	}
	job := clusterJob(cfg, all)
	start := time.Now()
	sub, err := submitOrFollow(ctx, node, job, stderr)
	if err != nil {
		if ctx.Err() != nil && cmdenv.Refused(ctx) == nil {
			return &cmdenv.ExitError{Code: interruptCode(context.Cause(ctx)), Err: err}
		}
		return runError(err)
	}
	defer sub.Stop()

	var jl *joblog.Log
	if cfg.joblog != "" {
		if jl, err = joblog.Open(cfg.joblog, cfg.resume || cfg.resumeFailed); err != nil {
			return runError(err)
		}
		defer jl.Close()
	}
	p := sub.Progress()
	prog := newJobProgress(cfg.progress, stderr, p.Total)
	sink := newResultSink(cfg, all, prog, jl, cmd.OutOrStdout(), stderr)
	if cfg.resume || cfg.resumeFailed {
		sink.logged = joblogDone(all, todo)
	}
	sink.tag = runopts.Of(&rcfg).Tag
	if cfg.gnu.results != "" {
		rs, err := newResultsSink(cfg.gnu.results, cfg.gnu.header != "" && cfg.gnu.header != "0", cmd.OutOrStdout())
		if err != nil {
			return runError(err)
		}
		defer rs.Close()
		sink.saved = rs
	}
	var halt runopts.HaltTracker
	if h := runopts.Of(&rcfg).Halt; h.When != runopts.HaltNever {
		halt = runopts.NewHaltTracker(h, len(all))
	}
	stopTicks := progressTicks(sub, prog, start)
	// What the tasks wait for is said as it changes; --wait-timeout ends
	// a wait that lasts.
	next, stopNext := context.WithCancelCause(ctx)
	defer stopNext(nil)
	stopStalls := watchStalls(next, node, sub.ID, stderr, cfg.waitTimeout, stopNext)
	defer stopStalls()
	for {
		r, err := sub.Next(next)
		if errors.Is(err, cluster.ErrNoMoreResults) {
			break
		}
		var st *stallTimeout
		if err != nil && errors.As(context.Cause(next), &st) {
			stopTicks()
			prog.finish()
			return runError(st)
		}
		if err != nil {
			stopTicks()
			prog.finish()
			if ctx.Err() != nil && cmdenv.Refused(ctx) == nil {
				fmt.Fprintf(stderr, "interrupted: job %s goes on in the cluster (%d of %d done); rerun the same command to follow it\n",
					sub.ID, sub.Progress().Done(), p.Total)
				return &cmdenv.ExitError{Code: interruptCode(context.Cause(ctx)), Err: runner.ErrInterrupted}
			}
			return runError(err)
		}
		res := sink.take(r)
		prog.updateCluster(sub.Progress(), time.Since(start))
		if halt != nil && res != nil && halt.Observe(*res) {
			// --halt: the job stops in the cluster (queued tasks removed,
			// running ones stopped and not recorded), as a rerun shows.
			fmt.Fprintf(stderr, "worksteal: This job %s:\n%s\nworksteal: --halt: cancelling job %s in the cluster\n", haltWord(runopts.Of(&rcfg).Halt), res.Command, sub.ID)
			if err := node.Cancel(context.WithoutCancel(ctx), sub.ID); err != nil {
				fmt.Fprintf(stderr, "worksteal: --halt: cancelling job %s: %v\n", sub.ID, err)
			}
			break
		}
	}
	stopTicks()
	prog.finish()
	return clusterOutcome(ctx, cmd, cfg, node, sub, sink, start, halt)
}

// checkClusterRun refuses the options a run on the cluster does not take
// and checks its own; done (with the error to return) also when --dry-run
// printed the plan.
func checkClusterRun(cmd *cobra.Command, cfg runConfig, rcfg runner.Config, todo []runner.Job) (done bool, err error) {
	switch {
	case strings.HasSuffix(strings.TrimSpace(cfg.timeout), "%"):
		return true, runError(errors.New("--timeout N% is not supported with --nats (give a duration)"))
	case cfg.jobs != "":
		return true, runError(errors.New("-j is not used with --nats: the workers' slots run the batch (worksteal worker -j N)"))
	case cfg.gnu.delay != "":
		return true, runError(errors.New("--delay is for a local run: with --nats the workers start the tasks"))
	case cfg.dryRun:
		return true, printPlan(cmd.OutOrStdout(), todo, mustOrder(cfg.order), nil, runopts.Of(&rcfg).Tag)
	}
	if _, err := cmdenv.ParseLabels(cfg.require); err != nil {
		return true, runError(fmt.Errorf("--require: %w", err))
	}
	if cfg.waitTimeout < 0 {
		return true, runError(fmt.Errorf("--wait-timeout %v: want 0 (wait for ever) or a positive duration", cfg.waitTimeout))
	}
	return false, nil
}

// clusterOutcome says how a job on the cluster ended: its reduced value
// (when no result is printed each), the summary, and the exit status
// (--halt's, or the failed tasks').
func clusterOutcome(ctx context.Context, cmd *cobra.Command, cfg runConfig, node *cluster.Node, sub *cluster.Submission, sink *resultSink, start time.Time, halt runopts.HaltTracker) error {
	stderr := cmd.ErrOrStderr()
	final := sub.Progress()
	if !cfg.printsEach() {
		v, _, err := sub.Value()
		if err != nil {
			fmt.Fprintf(stderr, "worksteal: job %s: --reduce %s: %v\n", sub.ID, cfg.reduce, err)
			if final.Failed == 0 {
				return &cmdenv.ExitError{Code: 1, Err: err}
			}
		} else {
			fmt.Fprintf(cmd.OutOrStdout(), "%s\n", bytes.TrimSpace(v))
		}
	}
	if cfg.showSummary {
		slots := 0
		if ws, err := clusterops.Workers(ctx, node); err == nil {
			for _, w := range ws {
				slots += w.Slots
			}
		}
		writeClusterSummary(stderr, sink.results, start, time.Since(start), slots, final)
	}
	if halt != nil {
		return haltExit(halt.ExitStatus(final.Done()), final.Failed, cfg.showSummary)
	}
	return failedExit(final.Failed, cfg.showSummary)
}

// haltWord says what the job that met a --halt did.
func haltWord(h runopts.Halt) string {
	switch h.Why {
	case runopts.HaltOnSuccess:
		return "succeeded"
	case runopts.HaltOnDone:
		return "finished"
	}
	return "failed"
}

// stallTimeout ends a run whose tasks no live worker could run for
// --wait-timeout.
type stallTimeout struct {
	job   string
	limit time.Duration
	what  string
}

func (e *stallTimeout) Error() string {
	return fmt.Sprintf("job %s: %s, for --wait-timeout %v; the job stays recorded: start such a worker and rerun the same command to follow it, or remove it (worksteal job delete %s)",
		e.job, e.what, e.limit, e.job)
}

// stallEvery is how often a run looks for tasks that no live worker can
// run.
const stallEvery = time.Second

// watchStalls says on w what job's queued tasks wait for (clusterops.Stalls)
// whenever it changes, and calls stop with a *stallTimeout once they have
// waited for no live worker for limit (> 0) without a break.
func watchStalls(ctx context.Context, node *cluster.Node, job string, w io.Writer, limit time.Duration, stop context.CancelCauseFunc) (done func()) {
	quit := make(chan struct{})
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		t := time.NewTicker(stallEvery)
		defer t.Stop()
		said := ""
		var since time.Time // when the present stall began, here
		for {
			select {
			case <-quit:
				return
			case <-ctx.Done():
				return
			case <-t.C:
			}
			stalls, err := clusterops.Stalls(ctx, node, job)
			if err != nil {
				continue
			}
			var lines []string
			for _, s := range stalls {
				lines = append(lines, s.String())
			}
			now := strings.Join(lines, "; ")
			if now != said {
				switch {
				case now != "":
					fmt.Fprintf(w, "worksteal: job %s waits: %s\n", job, now)
				case said != "":
					fmt.Fprintf(w, "worksteal: job %s: a worker that can run its waiting tasks is live again\n", job)
				}
				said = now
			}
			switch {
			case now == "":
				since = time.Time{}
			case since.IsZero():
				since = time.Now()
			case limit > 0 && time.Since(since) >= limit:
				stop(&stallTimeout{job: job, limit: limit, what: now})
				return
			}
		}
	}()
	return func() { close(quit); <-ended }
}

// clusterJob is the batch as a cluster job: every job of the batch, in
// start order (longest first when costs are known), named after the batch.
// With --resume-failed, the tasks recorded as failed run again.
func clusterJob(cfg runConfig, all []runner.Job) cluster.Job {
	absTimeout, _, _ := parseTimeout(cfg.timeout)
	history := map[string]time.Duration{}
	if cfg.costsFrom != "" {
		recs, _ := joblog.ReadFile(cfg.costsFrom)
		history = joblog.Runtimes(recs)
	}
	job := cluster.Job{ID: cfg.jobName, MaxAttempts: min(extraTries(cfg.retries), 1<<20) + 1, RetryDelay: cfg.retryDelay,
		Speculate: cfg.speculate, SpeculateAfter: cfg.speculateAfter, RetryFailed: cfg.resumeFailed, Reduce: cfg.reduce}
	if job.ID == "" {
		job.ID = JobID(all)
	}
	if len(cfg.require) > 0 {
		job.Require, _ = cmdenv.ParseLabels(cfg.require) // checked by runCluster
	}
	for _, j := range runner.Plan(all, mustOrder(cfg.order), history) {
		p, _ := json.Marshal(shelltask.Task{Cmd: j.Command, Seq: j.Seq, TimeoutMs: absTimeout.Milliseconds(), Stdin: j.Stdin, Env: cfg.gnu.envOf()})
		job.Tasks = append(job.Tasks, cluster.Task{ID: strconv.Itoa(j.Seq), Handler: shelltask.HandlerName, Payload: p})
	}
	return job
}

// submitOrFollow submits job, or resumes it, or follows the job of that id
// recorded with other tasks (a --resume whose joblog moved on): never a
// second job beside a live one.
func submitOrFollow(ctx context.Context, node *cluster.Node, job cluster.Job, stderr io.Writer) (*cluster.Submission, error) {
	sub, err := node.Submit(ctx, job)
	if errors.Is(err, cluster.ErrJobMismatch) {
		if sub, err = node.Open(ctx, job.ID); err != nil {
			return nil, err
		}
		p := sub.Progress()
		fmt.Fprintf(stderr, "worksteal: following job %s as recorded in the cluster (%d tasks, %d have results)\n", job.ID, p.Total, p.Done())
		return sub, nil
	}
	if err != nil {
		return nil, err
	}
	p := sub.Progress()
	switch {
	case !sub.Resumed:
		fmt.Fprintf(stderr, "worksteal: job %s: %d tasks submitted\n", job.ID, len(job.Tasks))
	case p.Done() == p.Total:
		fmt.Fprintf(stderr, "worksteal: job %s finished earlier: collecting its %d results, nothing runs again (worksteal job delete %s to rerun it)\n", job.ID, p.Total, job.ID)
	default:
		fmt.Fprintf(stderr, "worksteal: resuming job %s: %d of %d tasks have results\n", job.ID, p.Done(), p.Total)
	}
	return sub, nil
}

// joblogDone is the set of jobs the joblog shows succeeded: with --resume
// their rows are not written again.
func joblogDone(all, todo []runner.Job) map[int]bool {
	done := map[int]bool{}
	for _, j := range all {
		done[j.Seq] = true
	}
	for _, j := range todo {
		delete(done, j.Seq)
	}
	return done
}

// progressTicks updates the progress every second, also while no result
// comes (a hung task shows as the longest running), until stopped.
func progressTicks(sub *cluster.Submission, prog *jobProgress, start time.Time) (stop func()) {
	done := make(chan struct{})
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				prog.updateCluster(sub.Progress(), time.Since(start))
			}
		}
	}()
	return func() { close(done); <-ended }
}

// resultSink writes each result as it comes: its output (in input order
// with -k), a note for a failure that is not the command's own exit, and
// its joblog row.
type resultSink struct {
	keepOrder   bool
	printEach   bool // each output, not the reduction at the end (--reduce)
	out, errOut io.Writer
	jl          *joblog.Log
	bySeq       map[int]runner.Job
	todo        []runner.Job
	logged      map[int]bool // rows the joblog has (--resume)
	held        map[int]cluster.Result
	next        int // index into todo
	results     []cluster.Result
	tag         bool         // --tag, --tagstring: each output line prefixed with its job's tag
	saved       *resultsSink // --results: the output saved there, not written
}

func newResultSink(cfg runConfig, todo []runner.Job, prog *jobProgress, jl *joblog.Log, stdout, stderr io.Writer) *resultSink {
	s := &resultSink{keepOrder: cfg.keepOrder, printEach: cfg.printsEach(), out: prog.wrap(stdout), errOut: prog.wrap(stderr), jl: jl,
		bySeq: map[int]runner.Job{}, todo: todo, held: map[int]cluster.Result{}}
	for _, j := range todo {
		s.bySeq[j.Seq] = j
	}
	return s
}

// take writes one result, and returns it as the runner's (nil for one
// that --resume had logged).
func (s *resultSink) take(r cluster.Result) *runner.Result {
	s.results = append(s.results, r)
	var sr shelltask.Result
	json.Unmarshal(r.Output, &sr)
	if r.Value != nil && s.printEach {
		sr.Stdout = r.Value // its output and its children's (run --reduce concat)
	}
	if r.Parent != "" {
		s.write(r, sr) // a spawned child handed over to another worker: no row of its own
		return nil
	}
	seq, _ := strconv.Atoi(r.Task)
	if s.logged[seq] {
		return nil // --resume: the joblog has it, and its output was written then
	}
	res := s.asRunner(r, sr)
	if s.jl != nil {
		code := sr.Exit
		if !r.OK() && code == 0 {
			code = -1
		}
		s.jl.Write(joblog.Record{Seq: seq, Host: r.Worker, Start: r.Start, Runtime: r.Runtime, Send: int64(len(s.bySeq[seq].Stdin)), Receive: int64(len(sr.Stdout)), Exit: code, Signal: sr.Signal, Command: s.bySeq[seq].Command})
	}
	if !s.keepOrder {
		s.write(r, sr)
		return res
	}
	// Keep order: results are held until every earlier job (in input
	// order, not the start order) has written.
	s.held[seq] = r
	for ; s.next < len(s.todo); s.next++ {
		h, ok := s.held[s.todo[s.next].Seq]
		if !ok {
			break
		}
		var hr shelltask.Result
		json.Unmarshal(h.Output, &hr)
		if h.Value != nil && s.printEach {
			hr.Stdout = h.Value
		}
		s.write(h, hr)
		delete(s.held, s.todo[s.next].Seq)
	}
	return res
}

// asRunner is a cluster result as the runner's.
func (s *resultSink) asRunner(r cluster.Result, sr shelltask.Result) *runner.Result {
	code := sr.Exit
	if !r.OK() && code == 0 && sr.Signal == 0 {
		code = -1
	}
	// A spawned child is saved and tagged as its root task (the batch's
	// task whose id its own begins with).
	root, _, _ := strings.Cut(r.Task, "=")
	seq, _ := strconv.Atoi(root)
	return &runner.Result{Job: s.bySeq[seq], Slot: 1, Exit: runner.Exit{Start: r.Start, Runtime: r.Runtime, Code: code, Signal: sr.Signal,
		Stdout: sr.Stdout, Stderr: sr.Stderr, Received: int64(len(sr.Stdout))}}
}

func (s *resultSink) write(r cluster.Result, sr shelltask.Result) {
	if s.saved != nil {
		if err := s.saved.takeOn(*s.asRunner(r, sr), r.Worker); err != nil {
			fmt.Fprintf(s.errOut, "worksteal: warning: results: %v\n", err)
		}
	} else if s.tag {
		root, _, _ := strings.Cut(r.Task, "=") // a spawned child: its root task's tag
		seq, _ := strconv.Atoi(root)
		tag := jobio.Of(s.bySeq[seq]).TagIn(1) + "\t"
		if s.printEach {
			s.out.Write(jobio.TagLines(nil, tag, sr.Stdout))
		}
		s.errOut.Write(jobio.TagLines(nil, tag, sr.Stderr))
	} else {
		if s.printEach {
			s.out.Write(sr.Stdout)
		}
		s.errOut.Write(sr.Stderr)
	}
	if !r.OK() && !strings.HasPrefix(r.Error, "exit status") {
		fmt.Fprintf(s.errOut, "worksteal: job %s on %s: %s\n", r.Task, r.Worker, r.Error)
	}
}

func mustOrder(s string) runner.Order {
	o, _ := gnuinput.ParseOrder(s)
	return o
}

// writeClusterSummary prints the counts and the balance metrics of a
// cluster run: per-worker busy time gives the load imbalance, the tasks'
// run times the straggler ratio, the live workers' slots the utilization.
// Only this run's time counts: results recorded before a resume are
// counted as results, not as busy time.
func writeClusterSummary(w io.Writer, results []cluster.Result, start time.Time, makespan time.Duration, slots int, p cluster.Progress) {
	busy := map[string]time.Duration{}
	var durations []time.Duration
	var total time.Duration
	earlier := 0
	for _, r := range results {
		if r.Start.Before(start) {
			earlier++
			continue
		}
		busy[r.Worker] += r.Runtime
		total += r.Runtime
		durations = append(durations, r.Runtime)
	}
	var loads []time.Duration
	for _, b := range busy {
		loads = append(loads, b)
	}
	fmt.Fprintf(w, "jobs %d: %d succeeded, %d failed", p.Total, p.Succeeded, p.Failed)
	if p.Copies > 0 {
		fmt.Fprintf(w, " (%d speculative copies)", p.Copies)
	}
	if earlier > 0 {
		fmt.Fprintf(w, "; %d recorded before this run", earlier)
	}
	fmt.Fprintf(w, "\nmakespan %s on %d worker(s)", makespan.Round(time.Millisecond), len(busy))
	if slots > 0 && makespan > 0 {
		fmt.Fprintf(w, " with %d slots: utilization %.2f,", slots, min(1, total.Seconds()/(float64(slots)*makespan.Seconds())))
	} else {
		fmt.Fprint(w, ":")
	}
	fmt.Fprintf(w, " load imbalance %.2f, straggler ratio %.2f\n", balance.Imbalance(loads), balance.StragglerRatio(durations))
	fmt.Fprintf(w, "extra executions: %d (%d reruns after a worker was lost or stopped or the server was away, %d retries after failures)\n",
		p.Reruns+p.Retries, p.Reruns, p.Retries)
}
