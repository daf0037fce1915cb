package cli

import (
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
	"github.com/worksteal/worksteal/runner"
)

func addRunClusterFlags(f *pflag.FlagSet, cfg *runConfig) {
	f.StringVar(&cfg.nats, "nats", "", "run the batch on the workers of the NATS server at URL (worksteal serve, worksteal worker)")
	f.StringVar(&cfg.jobName, "job", "", "with --nats: the job's name (default: derived from the commands, so rerunning a batch resumes it)")
	cfg.clusterFlags.add(f, "with --nats: ")
}

// jobID names a batch by its commands: the same batch gets the same id,
// which is what lets a restarted "run --nats" resume it.
func jobID(jobs []runner.Job) string {
	h := sha256.New()
	for _, j := range jobs {
		fmt.Fprintf(h, "%d\x00%s\n", j.Seq, j.Command)
	}
	return "run-" + hex.EncodeToString(h.Sum(nil)[:8])
}

// runCluster submits the batch to the cluster tier and follows it: results
// are written as they are recorded, with the joblog, the progress and the
// summary of a local run.
func runCluster(env *Env, cmd *cobra.Command, cfg runConfig, all, todo []runner.Job, skipped int) error {
	switch {
	case strings.HasSuffix(strings.TrimSpace(cfg.timeout), "%"):
		return runError(errors.New("--timeout N% is not supported with --nats (give a duration)"))
	case cfg.jobs != "":
		return runError(errors.New("-j is not used with --nats: the workers' slots run the batch (worksteal worker -j N)"))
	case cfg.dryRun:
		return printPlan(cmd.OutOrStdout(), todo, mustOrder(cfg.order), nil)
	}
	absTimeout, _, _ := parseTimeout(cfg.timeout)
	stdout, stderr := cmd.OutOrStdout(), cmd.ErrOrStderr()
	nc, ctx, roleOpts, err := connectAs(env.Ctx, cfg.nats, "worksteal run", cluster.RoleSubmitter, cfg.creds, stderr)
	if err != nil {
		return runError(err)
	}
	defer nc.Close()
	runErr := runError
	runError := func(err error) error { // a refusal explains the error it caused
		if r := refused(ctx); r != nil {
			return runErr(r)
		}
		return runErr(err)
	}
	node, err := cluster.New(nc, append(cfg.clusterFlags.options(), roleOpts...)...)
	if err != nil {
		return runError(err)
	}
	if len(todo) == 0 {
		fmt.Fprintf(stderr, "worksteal: all %d jobs already succeeded\n", len(all))
		return nil
	}

	// Tasks in start order (longest first when costs are known).
	history := map[string]time.Duration{}
	if cfg.costsFrom != "" {
		recs, _ := runner.ReadJoblogFile(cfg.costsFrom)
		history = runner.Runtimes(recs)
	}
	ordered := runner.Plan(todo, mustOrder(cfg.order), history)
	job := cluster.Job{ID: cfg.jobName, MaxAttempts: min(extraTries(cfg.retries), 1<<20) + 1, RetryDelay: cfg.retryDelay, Speculate: cfg.speculate, SpeculateAfter: cfg.speculateAfter}
	if job.ID == "" {
		job.ID = jobID(todo)
	}
	for _, j := range ordered {
		p, _ := json.Marshal(shellTask{Cmd: j.Command, Seq: j.Seq, TimeoutMs: absTimeout.Milliseconds()})
		job.Tasks = append(job.Tasks, cluster.Task{ID: strconv.Itoa(j.Seq), Handler: shellHandler, Payload: p})
	}

	// A finished job of the same name is run afresh, unless --resume.
	if old, err := node.Open(ctx, job.ID); err == nil {
		p := old.Progress()
		old.Stop()
		if p.Done() == p.Total && !cfg.resume && !cfg.resumeFailed {
			if err := node.Delete(ctx, job.ID); err != nil {
				return runError(err)
			}
		}
	} else if !errors.Is(err, cluster.ErrJobNotFound) {
		return runError(err)
	}
	start := time.Now()
	sub, err := node.Submit(ctx, job)
	if err != nil {
		if ctx.Err() != nil && refused(ctx) == nil {
			return &exitError{code: interruptCode(context.Cause(ctx)), err: err}
		}
		return runError(err)
	}
	defer sub.Stop()
	if sub.Resumed {
		fmt.Fprintf(stderr, "worksteal: resuming job %s: %d of %d tasks have results\n", job.ID, sub.Progress().Done(), len(job.Tasks))
	} else {
		fmt.Fprintf(stderr, "worksteal: job %s: %d tasks submitted\n", job.ID, len(job.Tasks))
	}

	var jl *runner.Joblog
	if cfg.joblog != "" {
		if jl, err = runner.OpenJoblog(cfg.joblog, cfg.resume || cfg.resumeFailed); err != nil {
			return runError(err)
		}
		defer jl.Close()
	}
	prog := newJobProgress(cfg.progress, stderr, len(job.Tasks))
	out, errOut := prog.wrap(stdout), prog.wrap(stderr)
	bySeq := map[int]runner.Job{}
	for _, j := range todo {
		bySeq[j.Seq] = j
	}
	// Keep order: results are held until every earlier job (in input order,
	// not the start order) has written.
	held := map[int]cluster.Result{}
	next := 0 // index into todo
	write := func(r cluster.Result) {
		var sr shellResult
		json.Unmarshal(r.Output, &sr)
		out.Write(sr.Stdout)
		errOut.Write(sr.Stderr)
		if !r.OK() && !strings.HasPrefix(r.Error, "exit status") {
			fmt.Fprintf(errOut, "worksteal: job %s on %s: %s\n", r.Task, r.Worker, r.Error)
		}
	}
	var results []cluster.Result
	for {
		r, err := sub.Next(ctx)
		if errors.Is(err, cluster.ErrNoMoreResults) {
			break
		}
		if err != nil {
			prog.finish()
			if ctx.Err() != nil && refused(ctx) == nil {
				fmt.Fprintf(stderr, "interrupted: job %s goes on in the cluster (%d of %d done); rerun the same command to follow it\n",
					job.ID, sub.Progress().Done(), len(job.Tasks))
				return &exitError{code: interruptCode(context.Cause(ctx)), err: runner.ErrInterrupted}
			}
			return runError(err)
		}
		results = append(results, r)
		seq, _ := strconv.Atoi(r.Task)
		if jl != nil {
			var sr shellResult
			json.Unmarshal(r.Output, &sr)
			code := sr.Exit
			if !r.OK() && code == 0 {
				code = -1
			}
			jl.Write(runner.Record{Seq: seq, Host: r.Worker, Start: r.Start, Runtime: r.Runtime, Exit: code, Signal: sr.Signal, Command: bySeq[seq].Command})
		}
		if !cfg.keepOrder {
			write(r)
		} else {
			held[seq] = r
			for ; next < len(todo); next++ {
				h, ok := held[todo[next].Seq]
				if !ok {
					break
				}
				write(h)
				delete(held, todo[next].Seq)
			}
		}
		p := sub.Progress()
		prog.update(runner.Progress{Total: p.Total, Succeeded: p.Succeeded, Failed: p.Failed, Running: p.Running, Elapsed: time.Since(start)})
	}
	prog.finish()
	if cfg.showSummary {
		slots := 0
		if ws, err := node.Workers(ctx); err == nil {
			for _, w := range ws {
				slots += w.Slots
			}
		}
		writeClusterSummary(stderr, results, time.Since(start), slots, sub.Progress())
	}
	return failedExit(sub.Progress().Failed, cfg.showSummary)
}

func mustOrder(s string) runner.Order {
	o, _ := runner.ParseOrder(s)
	return o
}

// writeClusterSummary prints the counts and the balance metrics of a
// cluster run: per-worker busy time gives the load imbalance, the tasks'
// run times the straggler ratio, the live workers' slots the utilization.
func writeClusterSummary(w io.Writer, results []cluster.Result, makespan time.Duration, slots int, p cluster.Progress) {
	busy := map[string]time.Duration{}
	var durations []time.Duration
	var total time.Duration
	for _, r := range results {
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
	fmt.Fprintf(w, "\nmakespan %s on %d worker(s)", makespan.Round(time.Millisecond), len(busy))
	if slots > 0 && makespan > 0 {
		fmt.Fprintf(w, " with %d slots: utilization %.2f,", slots, min(1, total.Seconds()/(float64(slots)*makespan.Seconds())))
	} else {
		fmt.Fprint(w, ":")
	}
	fmt.Fprintf(w, " load imbalance %.2f, straggler ratio %.2f\n", balance.Imbalance(loads), balance.StragglerRatio(durations))
}
