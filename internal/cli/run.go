package cli

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/worksteal/worksteal/runner"
)

func init() { addCommand(newRunCommand) }

// runConfig is what the flags of "worksteal run" fill in.
type runConfig struct {
	jobs           int
	argFile        string
	colSep         string
	weightCol      int
	order          string
	costsFrom      string
	timeout        string
	retries        int
	retryDelay     time.Duration
	speculate      bool
	speculateAfter time.Duration
	keepOrder      bool
	joblog         string
	resume         bool
	progress       string
	grace          time.Duration
	shell          string
	dryRun         bool
	quiet          bool

	// Cluster mode (run_cluster.go).
	nats    string
	jobName string
	clusterFlags
}

// Exit statuses of "worksteal run", GNU parallel's: the number of failed
// jobs up to 100, 101 for more, 255 for an error that is not a job's.
const (
	exitRunMaxFailed = 101
	exitRunError     = 255
)

// runError makes the command exit with status 255: bad flags or input, or a
// failure of the runner itself.
func runError(err error) error { return &exitError{code: exitRunError, err: err} }

func newRunCommand(env *Env) *cobra.Command {
	var cfg runConfig
	cmd := &cobra.Command{
		Use:   "run [flags] [COMMAND [ARG...]] [::: ARG...] [:::: FILE...]",
		Short: "Run a batch of shell commands on N slots, balanced (like GNU parallel)",
		Long: `run executes a batch of shell commands, as many at once as there are slots,
starting each job as soon as a slot is free.

Jobs come from input lines (a file with -a, or stdin): without a COMMAND,
each line is one shell command; with a COMMAND template, each line fills its
placeholders. Arguments after ::: (or the lines of files after ::::) replace
the input lines; several groups give every combination. Placeholders:
{} the argument, {.} without extension, {/} base name, {//} directory,
{/.} base name without extension, {n} the n-th column (--colsep) or group,
{#} the job number, {%} the slot. Flags come before the COMMAND.

Balance: when costs are known (--weight-col, or the run times of an earlier
--joblog) the longest jobs start first, and the summary says how much that
saved against input order. Stragglers: --timeout (absolute, or 200% of the
median), --retries with exponential backoff, --speculate (idempotent jobs
only: near the end, a copy of a slow job runs in a free slot; the first to
finish wins, the other is killed).

Bookkeeping: --joblog writes GNU parallel's TSV as jobs finish; --resume
skips the jobs it shows as succeeded. On SIGINT or SIGTERM the running jobs
are stopped (their process groups get SIGTERM, then SIGKILL), the joblog
keeps every finished job, and a rerun with --resume completes the rest.

With --nats URL the batch runs on the workers of a NATS cluster instead
(worksteal serve, worksteal worker); rerunning the same batch resumes it.

Output: each job's output is written whole when it finishes (input order
with -k). Progress: a bar on a terminal, plain lines otherwise. Exit status:
0 if every job succeeded, the number of failed jobs (at most 101), 130 or
143 when interrupted, 255 for any other error.`,
		Example: `  printf 'sleep 1\nsleep 2\n' | worksteal run -j 2
  ls *.log | worksteal run -j 8 --joblog jobs.tsv gzip -9 {}
  worksteal run echo {1}-{2} ::: a b ::: 1 2
  worksteal run -j 4 --weight-col 1 < weighted-commands.tsv
  worksteal run --timeout 200% --retries 2 --speculate -a cmds.txt
  worksteal run --joblog jobs.tsv --resume -a cmds.txt
  worksteal run --nats nats://127.0.0.1:4222 -a cmds.txt`,
		RunE: func(cmd *cobra.Command, args []string) error { return runRun(env, cmd, cfg, args) },
	}
	cmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return runError(err) })
	f := cmd.Flags()
	// Flags stop at the COMMAND: its own flags (gzip -9) are not ours.
	f.SetInterspersed(false)
	f.IntVarP(&cfg.jobs, "jobs", "j", 0, "number of slots: jobs run at once (default: number of CPUs; with --nats: the workers' slots)")
	f.StringVarP(&cfg.argFile, "arg-file", "a", "", "read input lines from FILE instead of stdin")
	f.StringVar(&cfg.colSep, "colsep", "", "split input lines into columns {1} {2} ... at this separator")
	f.IntVar(&cfg.weightCol, "weight-col", 0, "column N (1-based) of each input line is the job's cost; it is removed from the line (columns split by --colsep, default tab)")
	f.StringVar(&cfg.order, "order", "auto", "start order: auto (longest first when costs are known), input or lpt")
	f.StringVar(&cfg.costsFrom, "costs-from", "", "a joblog whose run times are the jobs' costs (default: the --joblog file, if it exists)")
	f.StringVar(&cfg.timeout, "timeout", "", "kill a job after this long: a duration (90s, 1m30s, or seconds) or a percentage of the median run time (200%)")
	f.IntVar(&cfg.retries, "retries", 0, "retry a failed job up to N more times")
	f.DurationVar(&cfg.retryDelay, "retry-delay", time.Second, "wait before the first retry, doubling for each next one (with jitter)")
	f.BoolVar(&cfg.speculate, "speculate", false, "near the end, run a copy of slow jobs in free slots; the first to finish wins (idempotent jobs only)")
	f.DurationVar(&cfg.speculateAfter, "speculate-after", 0, "copy jobs running longer than this (default: 1.5 × the 75th percentile of finished jobs)")
	f.BoolVarP(&cfg.keepOrder, "keep-order", "k", false, "write the jobs' output in input order")
	f.StringVar(&cfg.joblog, "joblog", "", "write a TSV log of the finished jobs (GNU parallel's columns) to FILE")
	f.BoolVar(&cfg.resume, "resume", false, "skip the jobs that --joblog shows as succeeded, and append to it")
	f.StringVar(&cfg.progress, "progress", "auto", "progress display: auto (bar on a terminal, else lines), bar, lines or none")
	f.DurationVar(&cfg.grace, "grace", 2*time.Second, "time a stopped job's processes have between SIGTERM and SIGKILL")
	f.StringVar(&cfg.shell, "shell", "/bin/sh", "shell that runs each command (SHELL -c COMMAND)")
	f.BoolVar(&cfg.dryRun, "dry-run", false, "print the commands in the order they would start, and exit")
	f.BoolVarP(&cfg.quiet, "quiet", "q", false, "no summary")
	addRunClusterFlags(f, &cfg)
	return cmd
}

// splitArgs cuts the positional arguments into the command template and the
// ::: and :::: argument groups.
func splitArgs(args []string) (template []string, groups [][]string, err error) {
	i := 0
	for i < len(args) && args[i] != ":::" && args[i] != "::::" {
		i++
	}
	template = args[:i]
	for i < len(args) {
		sep := args[i]
		i++
		start := i
		for i < len(args) && args[i] != ":::" && args[i] != "::::" {
			i++
		}
		vals := args[start:i]
		if len(vals) == 0 {
			return nil, nil, fmt.Errorf("%s with no arguments after it", sep)
		}
		if sep == ":::" {
			groups = append(groups, vals)
			continue
		}
		for _, name := range vals {
			g, err := readLines(name)
			if err != nil {
				return nil, nil, err
			}
			if len(g) == 0 {
				return nil, nil, fmt.Errorf(":::: %s: no lines", name)
			}
			groups = append(groups, g)
		}
	}
	return template, groups, nil
}

func readLines(name string) ([]string, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		if l := strings.TrimSuffix(sc.Text(), "\r"); l != "" {
			lines = append(lines, l)
		}
	}
	return lines, sc.Err()
}

// parseTimeout reads --timeout: "" (none), "200%", "90s" or "90" seconds.
func parseTimeout(s string) (abs time.Duration, factor float64, err error) {
	s = strings.TrimSpace(s)
	switch {
	case s == "":
		return 0, 0, nil
	case strings.HasSuffix(s, "%"):
		p, err := strconv.ParseFloat(strings.TrimSuffix(s, "%"), 64)
		if err != nil || p <= 0 || p != p {
			return 0, 0, fmt.Errorf("--timeout %q: want a positive percentage of the median, like 200%%", s)
		}
		return 0, p / 100, nil
	}
	if secs, err := strconv.ParseFloat(s, 64); err == nil && secs > 0 && secs < 1e9 {
		return time.Duration(secs * float64(time.Second)), 0, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return 0, 0, fmt.Errorf("--timeout %q: want a positive duration (90s, 1m30s, 90) or a percentage (200%%)", s)
	}
	return d, 0, nil
}

// readJobs builds the batch from the arguments and input.
func readJobs(env *Env, cfg runConfig, args []string) ([]runner.Job, error) {
	template, groups, err := splitArgs(args)
	if err != nil {
		return nil, err
	}
	in := runner.Input{Template: template, Sources: groups, ColSep: cfg.colSep, WeightCol: cfg.weightCol}
	if len(groups) == 0 {
		in.Lines = env.Stdin
		if cfg.argFile != "" {
			f, err := os.Open(cfg.argFile)
			if err != nil {
				return nil, err
			}
			defer f.Close()
			in.Lines = f
		}
	} else if cfg.argFile != "" {
		return nil, errors.New("give input lines (-a) or ::: arguments, not both")
	}
	jobs, err := in.Jobs()
	if err != nil {
		return nil, err
	}
	if len(jobs) == 0 {
		return nil, errors.New("no jobs: the input has no command lines")
	}
	return jobs, nil
}

func runRun(env *Env, cmd *cobra.Command, cfg runConfig, args []string) error {
	if cfg.jobs < 0 {
		return runError(fmt.Errorf("-j %d: want 1 or more slots (0: one per CPU)", cfg.jobs))
	}
	if cfg.retries < 0 {
		return runError(fmt.Errorf("--retries %d: want 0 or more", cfg.retries))
	}
	if cfg.resume && cfg.joblog == "" {
		return runError(errors.New("--resume needs --joblog FILE"))
	}
	switch cfg.progress {
	case "auto", "bar", "lines", "none":
	default:
		return runError(fmt.Errorf("--progress %q: want auto, bar, lines or none", cfg.progress))
	}
	order, err := runner.ParseOrder(cfg.order)
	if err != nil {
		return runError(err)
	}
	absTimeout, factor, err := parseTimeout(cfg.timeout)
	if err != nil {
		return runError(err)
	}
	jobs, err := readJobs(env, cfg, args)
	if err != nil {
		return runError(err)
	}

	// Earlier runs: what succeeded (--resume) and how long each took (LPT).
	var records []runner.Record
	if cfg.joblog != "" {
		if records, err = runner.ReadJoblogFile(cfg.joblog); err != nil {
			return runError(err)
		}
	}
	history := runner.Runtimes(records)
	if cfg.costsFrom != "" {
		recs, err := runner.ReadJoblogFile(cfg.costsFrom)
		if err != nil {
			return runError(err)
		}
		if len(recs) == 0 {
			return runError(fmt.Errorf("--costs-from %s: no runs recorded", cfg.costsFrom))
		}
		history = runner.Runtimes(recs)
	}
	todo, skipped := jobs, 0
	if cfg.resume {
		todo, skipped = runner.Resume(jobs, records)
	}
	if cfg.nats != "" {
		return runCluster(env, cmd, cfg, jobs, todo, skipped)
	}
	if cfg.dryRun {
		return printPlan(cmd.OutOrStdout(), todo, order, history)
	}

	stderr := cmd.ErrOrStderr()
	if skipped > 0 {
		fmt.Fprintf(stderr, "worksteal: resuming: %d of %d jobs already succeeded\n", skipped, len(jobs))
	}
	var jl *runner.Joblog
	if cfg.joblog != "" {
		if jl, err = runner.OpenJoblog(cfg.joblog, cfg.resume); err != nil {
			return runError(err)
		}
		defer jl.Close()
	}
	prog := newJobProgress(cfg.progress, stderr, len(todo))
	rcfg := runner.Config{
		Slots: cfg.jobs, Shell: cfg.shell, Order: order, History: history,
		Timeout: absTimeout, TimeoutFactor: factor,
		Retries: cfg.retries, RetryDelay: cfg.retryDelay,
		Speculate: cfg.speculate, SpeculateAfter: cfg.speculateAfter,
		KeepOrder: cfg.keepOrder, Stdout: prog.wrap(cmd.OutOrStdout()), Stderr: prog.wrap(stderr),
		Joblog: jl, Grace: cfg.grace, Progress: prog.update,
	}
	sum, err := runner.Run(env.Ctx, rcfg, todo)
	prog.finish()
	if sum == nil {
		return runError(err)
	}
	if !cfg.quiet {
		if skipped > 0 {
			fmt.Fprintf(stderr, "resumed: %d jobs skipped (already succeeded)\n", skipped)
		}
		fmt.Fprint(stderr, sum)
	}
	if err != nil {
		if errors.Is(err, runner.ErrInterrupted) {
			fmt.Fprintf(stderr, "interrupted: %d jobs finished, %d not run", sum.Succeeded+sum.Failed, sum.NotRun)
			if cfg.joblog != "" {
				fmt.Fprintf(stderr, "; rerun with --resume to complete them")
			}
			fmt.Fprintln(stderr)
		}
		return &exitError{code: interruptCode(err), err: err}
	}
	return failedExit(sum.Failed)
}

// failedExit is the exit status for n failed jobs.
func failedExit(n int) error {
	if n == 0 {
		return nil
	}
	return &exitError{code: min(n, exitRunMaxFailed), err: fmt.Errorf("%d job(s) failed", n)}
}

// interruptCode is 128 + the signal that stopped the run: 130 for SIGINT,
// 143 for SIGTERM (the cause os/signal.NotifyContext gives names it).
func interruptCode(err error) int {
	if strings.Contains(err.Error(), "terminated") {
		return 143
	}
	return 130
}

// printPlan writes the commands in start order (--dry-run).
func printPlan(w io.Writer, jobs []runner.Job, order runner.Order, history map[string]time.Duration) error {
	for _, j := range runner.Plan(jobs, order, history) {
		fmt.Fprintln(w, j.Command)
	}
	return nil
}
