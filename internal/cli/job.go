package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/worksteal/worksteal/cluster"
	"github.com/worksteal/worksteal/internal/cli/cmdenv"
	"github.com/worksteal/worksteal/internal/clusterops"
	"github.com/worksteal/worksteal/internal/clusterwire"
)

func init() { cmdenv.AddCommand(newJobCommand) }

// jobConfig is what the flags of "worksteal job" fill in.
type jobConfig struct {
	nats string
	cmdenv.ClusterFlags
	json bool
	role string // the credentials' role, "" for the verb's default
}

func newJobCommand(env *cmdenv.Env) *cobra.Command {
	var cfg jobConfig
	cmd := &cobra.Command{
		Use:   "job list | status ID | results ID | cancel ID | delete ID",
		Short: "Look at and manage the cluster tier's jobs",
		Long: `job shows and manages the jobs of the cluster tier (those that worksteal run
--nats submits), without a Go program:

  list          every recorded job: tasks, published, state, age
  status ID     its progress: succeeded, failed, running, the longest-running
                task and its worker, extra executions
  results ID    its results so far, one line each (task, state, worker,
                attempt, deliveries, reruns, start, run time, error);
                --json for the whole records
  cancel ID     its queued tasks are removed and its running tasks stopped
                without a result; a "run --nats" that follows it ends
  delete ID     it is removed with its results: the same batch runs afresh

With credentials (--creds), list connects as an observer, and status,
results, cancel and delete as a submitter: status and results read the
job's results (the tasks' outputs), which an observer may not. A
submitter lists jobs with its own credentials with --role submitter.

Exit status: 0, 1 if the job does not exist or the server refuses, 2 for
bad usage.`,
		Example: `  worksteal job list --nats nats://10.0.0.1:4222
  worksteal job status run-5f2a9c0d1e3b4a7f
  worksteal job delete run-5f2a9c0d1e3b4a7f`,
		Args:      cobra.RangeArgs(1, 2),
		ValidArgs: []string{"list", "status", "results", "cancel", "delete"},
		RunE: func(cmd *cobra.Command, args []string) error {
			return runJob(env, cmd, cfg, args)
		},
	}
	f := cmd.Flags()
	f.StringVar(&cfg.nats, "nats", "nats://127.0.0.1:4222", "URL of the NATS server (several: comma-separated)")
	cfg.ClusterFlags.Add(f, "")
	f.BoolVar(&cfg.json, "json", false, "results: one JSON record per line")
	f.StringVar(&cfg.role, "role", "", "the role of the --creds credentials: observer (the default for list) or submitter (the default for status, results, cancel, delete; it may do all)")
	return cmd
}

func runJob(env *cmdenv.Env, cmd *cobra.Command, cfg jobConfig, args []string) error {
	verb := args[0]
	switch {
	case verb == "list" && len(args) == 1:
	case (verb == "status" || verb == "results" || verb == "cancel" || verb == "delete") && len(args) == 2:
	case verb == "list":
		return cmdenv.UsageError(errors.New("job list takes no job id"))
	case verb == "status" || verb == "results" || verb == "cancel" || verb == "delete":
		return cmdenv.UsageError(fmt.Errorf("job %s needs a job id (worksteal job list shows them)", verb))
	default:
		return cmdenv.UsageError(fmt.Errorf("job %q: want list, status, results, cancel or delete", verb))
	}
	out, errs := cmd.OutOrStdout(), cmd.ErrOrStderr()
	// An observer lists jobs; following a job reads its results (the
	// tasks' outputs), which only a submitter may, as it may change them.
	role := cluster.RoleSubmitter
	if verb == "list" {
		role = cluster.RoleObserver
		if _, hrole, ok := cfg.Creds.FromEnv().Holder(); ok && cfg.role == "" && (hrole == cluster.RoleSubmitter || hrole == cluster.RoleAdmin) {
			role = cluster.RoleSubmitter // a person lists its own jobs, an admin all
		}
	}
	switch cfg.role {
	case "":
	case string(cluster.RoleSubmitter):
		role = cluster.RoleSubmitter
	case string(cluster.RoleObserver):
		switch verb {
		case "status", "results":
			return cmdenv.UsageError(fmt.Errorf("--role observer: job %s reads the job's results (the tasks' outputs), which only a submitter may", verb))
		case "cancel", "delete":
			return cmdenv.UsageError(fmt.Errorf("--role observer: job %s changes the cluster, which only a submitter may", verb))
		}
	default:
		return cmdenv.UsageError(fmt.Errorf("--role %q: want observer or submitter", cfg.role))
	}
	nc, ctx, roleOpts, err := cmdenv.ConnectAs(env.Ctx, cfg.nats, "worksteal job", role, cfg.Creds, errs)
	if err != nil {
		return err
	}
	defer nc.Close()
	node, err := cluster.New(nc, append(cfg.ClusterFlags.Options(), roleOpts...)...)
	if err != nil {
		return cmdenv.UsageError(err)
	}
	fail := func(err error) error {
		if r := cmdenv.Refused(ctx); r != nil {
			switch {
			case cfg.role == "" && role == cluster.RoleObserver:
				return fmt.Errorf("%w; with a submitter's credentials, give --role submitter", r)
			case cfg.role == "" && (verb == "status" || verb == "results"):
				return fmt.Errorf("%w; job %s reads the job's results (the tasks' outputs): it takes a submitter's credentials", r, verb)
			}
			return r
		}
		return err
	}
	switch verb {
	case "list":
		jobs, err := clusterops.Jobs(ctx, node)
		if err != nil {
			return fail(err)
		}
		writeJobList(out, jobs)
	case "status":
		return fail(jobStatus(ctx, node, out, args[1]))
	case "results":
		return fail(jobResults(ctx, node, out, args[1], cfg.json))
	case "cancel":
		if err := node.Cancel(ctx, args[1]); err != nil {
			return fail(err)
		}
		fmt.Fprintf(out, "job %s cancelled\n", args[1])
	case "delete":
		if _, err := clusterops.Job(ctx, node, args[1]); err != nil {
			return fail(err)
		}
		if err := node.Delete(ctx, args[1]); err != nil {
			return fail(err)
		}
		fmt.Fprintf(out, "job %s deleted\n", args[1])
	}
	return nil
}

func jobState(j clusterops.JobInfo) string {
	switch {
	case j.Cancelled:
		return "cancelled"
	case j.Done:
		return "done"
	case j.Published < j.Total:
		return "publishing"
	}
	return "running"
}

func writeJobList(w io.Writer, jobs []clusterops.JobInfo) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "JOB\tTASKS\tPUBLISHED\tSTATE\tCREATED")
	for _, j := range jobs {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t%s ago\n", j.ID, j.Total, j.Published, jobState(j), time.Since(j.Created).Round(time.Second))
	}
	tw.Flush()
}

func jobStatus(ctx context.Context, node *cluster.Node, w io.Writer, id string) error {
	info, err := clusterops.Job(ctx, node, id)
	if err != nil {
		return err
	}
	sub, err := node.Open(ctx, id)
	if err != nil {
		return err
	}
	defer sub.Stop()
	select {
	case <-sub.Done():
	default:
		// The workers tell which tasks run, and what the trees have handed
		// over so far, every clusterwire.StatusEvery: listen for one round of
		// that (and a little more) before saying.
		select {
		case <-sub.Done():
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(clusterwire.StatusEvery * 3 / 2):
		}
	}
	p := sub.Progress()
	fmt.Fprintf(w, "job %s: %s, %d tasks: %d succeeded, %d failed, %d running, %d waiting\n",
		id, jobState(info), p.Total, p.Succeeded, p.Failed, p.Running, max(0, p.Total-p.Done()-p.Running))
	if l := p.Longest; l.Task != "" {
		fmt.Fprintf(w, "longest running: task %s on %s for %s (attempt %d)\n", l.Task, l.Worker, time.Since(l.Start).Round(100*time.Millisecond), l.Attempt)
	}
	fmt.Fprintf(w, "extra executions: %d (%d reruns after a worker was lost or stopped or the server was away, %d retries after failures)\n", p.Reruns+p.Retries, p.Reruns, p.Retries)
	if p.Done() < p.Total {
		stalls, err := clusterops.Stalls(ctx, node, id)
		if err != nil {
			return err
		}
		for _, s := range stalls {
			fmt.Fprintf(w, "waits: %s\n", s)
		}
	}
	if len(p.Workers) > 0 {
		names := make([]string, 0, len(p.Workers))
		for w := range p.Workers {
			names = append(names, w)
		}
		slices.Sort(names)
		var parts []string
		for _, w := range names {
			parts = append(parts, fmt.Sprintf("%s %d", w, p.Workers[w]))
		}
		fmt.Fprintf(w, "running per worker: %s\n", strings.Join(parts, ", "))
	}
	if p.Spawned > 0 {
		fmt.Fprintf(w, "spawned: %d tasks handed over between workers so far (counted in the tasks; the children a worker ran itself are in their parent's result)\n", p.Spawned)
	}
	if v, ok, err := sub.Value(); err == nil && ok && info.Reduce != "" {
		fmt.Fprintf(w, "value (%s) so far: %s\n", info.Reduce, bytes.TrimSpace(v))
	}
	return nil
}

func jobResults(ctx context.Context, node *cluster.Node, w io.Writer, id string, asJSON bool) error {
	sub, err := node.Open(ctx, id)
	if err != nil {
		return err
	}
	defer sub.Stop()
	if asJSON {
		enc := json.NewEncoder(w)
		for _, r := range sub.Results() {
			if err := enc.Encode(r); err != nil {
				return err
			}
		}
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "TASK\tSTATE\tWORKER\tATTEMPT\tDELIVERIES\tRERUNS\tSTART\tRUNTIME\tERROR")
	for _, r := range sub.Results() {
		state := "ok"
		if !r.OK() {
			state = "failed"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%d\t%s\t%s\t%s\n", r.Task, state, r.Worker, r.Attempt, r.Deliveries, r.Reruns(),
			r.Start.Format(time.RFC3339), r.Runtime.Round(time.Millisecond), strings.ReplaceAll(r.Error, "\n", " "))
	}
	return tw.Flush()
}
