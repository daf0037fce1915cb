package runcmd

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"golang.org/x/term"

	"github.com/worksteal/worksteal/internal/cli/cmdenv"
	"github.com/worksteal/worksteal/internal/gnuinput"
	"github.com/worksteal/worksteal/internal/jobio"
	"github.com/worksteal/worksteal/internal/joblog"
	"github.com/worksteal/worksteal/internal/runopts"
	"github.com/worksteal/worksteal/runner"
)

func init() { cmdenv.AddCommand(newRunCommand) }

// runConfig is what the flags of "worksteal run" fill in.
type runConfig struct {
	jobs           string
	cpus           int // what -j's CPUs count: threads, or as --use-*-instead-of-* say (run_cpus.go)
	argFiles       []string
	colSep         string
	link           bool
	quote          bool
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
	resumeFailed   bool
	retryFailed    bool
	progress       string
	bar            bool
	summary        bool
	grace          time.Duration
	shell          string
	dryRun         bool
	willCite       bool
	http           string // --http: dashboard address, "" for none

	// Derived in runRun.
	showSummary bool

	// GNU parallel's further options (run_gnuopts.go), and those of pipe
	// mode, throttling and the semaphore (run_pipe_flags.go).
	gnu  gnuConfig
	pipe pipeConfig

	// Cluster mode (run_cluster.go).
	nats    string
	jobName string
	require []string // --require KEY=VALUE
	reduce  string   // --reduce NAME: the job's reduction of its tasks' outputs
	// waitTimeout bounds how long a --nats batch waits while no live
	// worker can run its queued tasks (0: for ever).
	waitTimeout time.Duration
	cmdenv.ClusterFlags
}

// Exit statuses of "worksteal run", GNU parallel's: the number of failed
// jobs up to 100, 101 for more, 255 for an error that is not a job's.
const (
	exitRunMaxFailed = 101
	ExitRunError     = 255
)

// runError makes the command exit with status 255: bad flags or input, or a
// failure of the runner itself.
func runError(err error) error { return &cmdenv.ExitError{Code: ExitRunError, Err: err} }

func newRunCommand(env *cmdenv.Env) *cobra.Command {
	var cfg runConfig
	var profiles []string // --profile, -J
	cmd := &cobra.Command{
		Use:   "run [flags] [COMMAND [ARG...]] [::: ARG... | :::: FILE... | :::+ ARG... | ::::+ FILE...]...",
		Short: "Run a batch of shell commands on N slots, balanced (like GNU parallel)",
		Long: `run executes a batch of shell commands, as many at once as there are slots,
starting each job as soon as a slot is free. It behaves as GNU parallel for
every option it accepts, and refuses GNU parallel's other options by name.

Input sources: -a FILE (repeatable), ::: ARG..., :::: FILE... ("-" is
stdin), or stdin when there is none. The jobs are every combination of the
sources' values (the first varying slowest); :::+ and ::::+ pair a source
with the one before it instead, --link pairs them all. --colsep REGEXP
splits each value into columns. Without a COMMAND, the arguments are the
command. Replacement strings: {} the arguments, {.} without extension,
{/} base name, {//} directory, {/.} base name without extension, {n} {n.}
{n/} {n//} {n/.} the n-th argument (or column), {#} the job number, {%} the
slot. A COMMAND with none of them gets the arguments appended. Values are
shell-quoted, except when a replacement string is in the command word;
-q quotes the COMMAND's words instead. Jobs run under $PARALLEL_SHELL, else
$SHELL, else /bin/sh. Flags come before the COMMAND.

Balance (worksteal's own): when costs are known (--weight-col, or the run
times of an earlier --joblog) the longest jobs start first. Stragglers:
--timeout (seconds, 1m30s, or 200% of the median), --retries N (N tries
in all), --speculate (idempotent jobs only: near the end, a copy of a slow
job runs in a free slot; the first to finish wins, the other is killed).

Bookkeeping: --joblog writes GNU parallel's TSV ("-" for stdout, +FILE to
append); --resume skips the jobs it lists, --resume-failed only those that
succeeded. On SIGINT or SIGTERM the running jobs are stopped (their process
groups get SIGTERM, then SIGKILL), the joblog keeps every finished job, and
a rerun with --resume completes the rest.

With --nats URL the batch runs on the workers of a NATS cluster instead
(worksteal serve, worksteal worker); rerunning the same batch resumes it.

Output: each job's output is written whole when it finishes (input order
with -k); --line-buffer writes whole lines as they come, -u as it comes;
--tag and --tagstring prefix every line; --results saves it in files
instead. --halt stops the batch early (now,fail=1; soon,fail=20%;
now,success=1; ...). -n, -N, -X, -m and --xargs put several arguments in
a job; -0 and -d change the input's delimiter. Off a terminal nothing else is written unless asked
(--progress, --summary); on one, a progress bar and the summary. Exit
status: 0 if every job succeeded, the number of failed jobs (at most 101),
130 or 143 when interrupted, 255 for any other error.`,
		Example: `  printf 'sleep 1\nsleep 2\n' | worksteal run -j 2
  ls *.log | worksteal run -j 8 --joblog jobs.tsv gzip -9 {}
  worksteal run echo {1}-{2} ::: a b ::: 1 2
  worksteal run echo {1}={2} ::: a b :::+ 1 2
  worksteal run -j 4 --weight-col 1 < weighted-commands.tsv
  worksteal run --timeout 200% --retries 3 --speculate -a cmds.txt
  worksteal run --joblog jobs.tsv --resume -a cmds.txt
  worksteal run --nats nats://127.0.0.1:4222 -a cmds.txt`,
		RunE: func(cmd *cobra.Command, args []string) error {
			// --profile (run_profile.go): its options into the flags, before cfg is copied.
			args, err := applyProfiles(cmd.Flags(), func() *pflag.FlagSet { return newRunCommand(env).Flags() }, profiles, args)
			if err != nil {
				return runError(err)
			}
			return runRun(env, cmd, cfg, args)
		},
	}
	cmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return runError(gnuFlagError(err)) })
	f := cmd.Flags()
	// Flags stop at the COMMAND: its own flags (gzip -9) are not ours.
	f.SetInterspersed(false)
	f.StringVarP(&cfg.jobs, "jobs", "j", "", "number of slots: N, +N or -N (CPUs plus or minus N), N% (of the CPUs), 0 (every job at once); default: one per CPU (with --nats: the workers' slots)")
	f.StringArrayVarP(&cfg.argFiles, "arg-file", "a", nil, "an input source: the lines of FILE (\"-\": stdin); repeatable")
	f.StringVarP(&cfg.colSep, "colsep", "C", "", "split each argument into columns {1} {2} ... at this regular expression (columns are trimmed)")
	f.BoolVar(&cfg.link, "link", false, "pair the input sources' values instead of combining them (the shorter sources wrap)")
	f.BoolVarP(&cfg.quote, "quote", "q", false, "quote the COMMAND's words (GNU parallel -q), for commands that hold shell syntax to pass on")
	f.IntVar(&cfg.weightCol, "weight-col", 0, "column N (1-based) of each input line is the job's cost; it is removed from the line (columns split by --colsep, default tab)")
	f.StringVar(&cfg.order, "order", "auto", "start order: auto (longest first when costs are known), input or lpt")
	f.StringVar(&cfg.costsFrom, "costs-from", "", "a joblog whose run times are the jobs' costs (default: the --joblog file, if it exists)")
	f.StringVar(&cfg.timeout, "timeout", "", "kill a job after this long: seconds, with units (1m30s, 2h, 1d), or a percentage of the median run time (200%)")
	f.IntVar(&cfg.retries, "retries", 1, "try a failing job up to N times in all (GNU parallel's meaning; 0: until it succeeds)")
	f.DurationVar(&cfg.retryDelay, "retry-delay", 0, "wait before the first retry, doubling for each next one (with jitter); default: retry at once")
	f.BoolVar(&cfg.speculate, "speculate", false, "near the end, run a copy of slow jobs in free slots; the first to finish wins (idempotent jobs only)")
	f.DurationVar(&cfg.speculateAfter, "speculate-after", 0, "copy jobs running longer than this (default: 1.5 × the 75th percentile of finished jobs)")
	f.BoolVarP(&cfg.keepOrder, "keep-order", "k", false, "write the jobs' output in input order")
	f.StringVar(&cfg.joblog, "joblog", "", "write a TSV log of the finished jobs (GNU parallel's columns) to FILE; \"-\": stdout; +FILE: append")
	f.BoolVar(&cfg.resume, "resume", false, "skip the jobs that --joblog lists (by job number), and append to it")
	f.BoolVar(&cfg.resumeFailed, "resume-failed", false, "skip the jobs that --joblog lists as succeeded, run the rest again, and append to it")
	f.BoolVar(&cfg.retryFailed, "retry-failed", false, "run again the commands that --joblog lists as failed, ignoring the command line, and append to it")
	gnuAlias(f, "retry-failed", "retryfailed")
	f.StringVar(&cfg.progress, "progress", "auto", "progress on stderr: --progress alone (a bar on a terminal, else lines), or --progress=bar, lines or none; default: a bar on a terminal, else none")
	f.Lookup("progress").NoOptDefVal = "on"
	f.BoolVar(&cfg.bar, "bar", false, "a progress bar (--progress=bar)")
	f.BoolVar(&cfg.summary, "summary", false, "write the summary (counts, makespan, balance) to stderr; default: on a terminal")
	f.DurationVar(&cfg.grace, "grace", 2*time.Second, "time a stopped job's processes have between SIGTERM and SIGKILL")
	f.StringVar(&cfg.shell, "shell", "", "shell that runs each command (SHELL -c COMMAND); default: $PARALLEL_SHELL, else $SHELL, else /bin/sh")
	f.BoolVar(&cfg.dryRun, "dry-run", false, "print the commands in the order they would start, and exit")
	f.BoolVar(&cfg.willCite, "will-cite", false, "accepted for GNU parallel's sake: worksteal asks for no citation")
	f.StringVar(&cfg.http, "http", "", "serve a live dashboard of the run on HOST:PORT while it runs (slots, progress, stragglers)")
	addRunClusterFlags(f, &cfg)
	addGNUFlags(f, &cfg.gnu)
	addPipeFlags(f, &cfg.pipe)
	addCPUFlags(f)
	addProfileFlag(f, &profiles)
	addColorFlags(f, &cfg.gnu)
	addVersionFlags(f)
	gnuAbbrev(f)
	return cmd
}

// readJobs builds the batch from the arguments and input sources; slots
// is the number of slots it will run on (-m and -X spread over them).
func readJobs(env *cmdenv.Env, f *pflag.FlagSet, cfg runConfig, args []string, slots int) ([]runner.Job, error) {
	template, cmdSources, err := splitArgs(env, args, cfg.gnu.argSep, cfg.gnu.argFileSep)
	if err != nil {
		return nil, err
	}
	var sources []gnuinput.Source
	for _, name := range cfg.argFiles {
		src, err := fileSource(env, name)
		if err != nil {
			return nil, err
		}
		sources = append(sources, src)
	}
	sources = append(sources, cmdSources...)
	if len(sources) == 0 {
		sources = []gnuinput.Source{{Name: "stdin", Lines: env.Stdin}}
	}
	in := gnuinput.Input{Template: template, Sources: sources, Link: cfg.link, Quote: cfg.quote, ColSep: cfg.colSep, WeightCol: cfg.weightCol}
	if err := cfg.gnu.input(f, &in, slots); err != nil {
		return nil, err
	}
	in.Bar = cfg.bar
	for _, w := range cfg.gnu.warnings {
		fmt.Fprintln(env.Stderr, "worksteal: Warning:", w)
	}
	if cfg.gnu.results != "" {
		in.Results = &cfg.gnu.results
	}
	jobs, err := in.Jobs()
	for _, src := range sources {
		if c, ok := src.Lines.(*closingReader); ok {
			c.f.Close() // after an error, the files not read to the end
		}
	}
	if err != nil {
		return nil, err
	}
	return jobs, nil
}

// onTerminal says w is a terminal (not merely a character device: /dev/null is one).
func onTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

func runRun(env *cmdenv.Env, cmd *cobra.Command, cfg runConfig, args []string) error {
	if done, err := answerFirst(cmd, &cfg); done { // run_common.go
		return err
	}
	if done, err := runGNUModes(env, cmd, cfg, args); done { // pipe mode, the semaphore (run_pipe.go)
		return err
	}
	throttle, nice, err := commonRunFlags(cmd, &cfg) // run_common.go
	if err != nil {
		return err
	}
	stderr := cmd.ErrOrStderr()
	order, err := gnuinput.ParseOrder(cfg.order)
	if err != nil {
		return runError(err)
	}
	absTimeout, factor, shell, err := timeoutAndShell(cfg)
	if err != nil {
		return runError(err)
	}
	// The slots before the jobs are read, for -m, -X and {0%}: -j 0 is
	// then as many as can be.
	preSlots, err := parseSlots(cfg.jobs, 1<<20, cfg.cpus)
	if err != nil {
		return runError(err)
	}
	var rcfg runner.Config
	if err := cfg.gnu.config(cmd.Flags(), &rcfg); err != nil {
		return runError(err)
	}
	if cfg.retryFailed {
		retry, err := retryFailedInput(&cfg, stderr)
		if err != nil {
			return runError(err)
		}
		switch {
		case retry != nil:
			defer os.Remove(retry.Name())
			args = nil // the joblog's commands are the input
		case cfg.joblog != "" && fileExists(strings.TrimPrefix(cfg.joblog, "+")):
			args = dropCommand(args, cfg) // GNU: no commands logged, the sources are
		}
	}
	argEnv, teeData := env, ""
	if cfg.pipe.teeMode() {
		if teeData, argEnv, args, err = teePrepare(env, &cfg, args); err != nil { // run_tee.go
			return runError(err)
		}
	}
	jobs, err := readJobs(argEnv, cmd.Flags(), cfg, args, preSlots)
	if err != nil {
		return runError(err)
	}
	slots := 0
	if cfg.jobs != "" || cfg.nats == "" {
		if slots, err = parseSlots(cfg.jobs, len(jobs), cfg.cpus); err != nil {
			return runError(err)
		}
	}

	// Earlier runs: what was done (--resume) and how long each took (LPT).
	joblogPath, appendLog, records, history, err := earlierRuns(cfg)
	if err != nil {
		return runError(err)
	}
	if len(jobs) == 0 {
		// An empty input is an empty batch, as in GNU parallel, whose
		// joblog still gets its header row and --results table its file.
		if cfg.nats == "" && !cfg.dryRun {
			if err := emptyBatch(cmd, cfg, joblogPath, appendLog); err != nil {
				return runError(err)
			}
		}
		return nil
	}
	todo, skipped := jobs, 0
	if cfg.resume || cfg.resumeFailed || cfg.retryFailed {
		todo, skipped = joblog.Resume(jobs, jobSeq, records, !cfg.resume)
	}
	if cfg.nats != "" {
		if err := refuseLocalOnly(cfg, jobs); err != nil { // run_common.go
			return runError(err)
		}
		return runCluster(env, cmd, cfg, rcfg, jobs, todo)
	}
	if cfg.http != "" {
		if _, _, err := cmdenv.SplitHostPort("http", cfg.http); err != nil {
			return runError(err)
		}
	}
	if cfg.dryRun && !cfg.gnu.latestLine {
		return printPlan(cmd.OutOrStdout(), todo, order, history, runopts.Of(&rcfg).Tag)
	}

	if cfg.pipe.teeMode() {
		if todo, err = teeAttach(env, cfg, teeData, todo, slots); err != nil {
			return runError(err)
		}
	}
	if skipped > 0 && cfg.showSummary {
		fmt.Fprintf(stderr, "worksteal: resuming: %d of %d jobs already in the joblog\n", skipped, len(jobs))
	}
	if cfg.dryRun {
		// GNU's --dry-run under --latest-line: each job runs "true" and
		// its command, written into its output as -v writes it, is
		// painted on its row; no joblog is made.
		o := runopts.Of(&rcfg)
		o.DryRun, o.Verbose, joblogPath = true, true, ""
	}
	rcfg.Slots, rcfg.Shell, rcfg.Order, rcfg.History = slots, shell, order, history
	rcfg.Timeout, rcfg.TimeoutFactor = absTimeout, factor
	runopts.Of(&rcfg).Throttle, rcfg.Nice = throttle, nice
	return runLocalBatch(env, cmd, cfg, rcfg, todo, skipped, joblogPath, appendLog)
}

// runLocalBatch runs the batch todo on this machine: the joblog, the
// progress, --results and --files, the dashboard, then the run itself
// (runLocal). rcfg holds the run's slots, order, timeouts and throttle.
// emptyBatch writes what GNU parallel writes for a batch of no jobs: the
// joblog's header row (a new file, or stdout) and an empty --results
// table.
func emptyBatch(cmd *cobra.Command, cfg runConfig, joblogPath string, appendLog bool) error {
	_, closeLog, err := openJoblogAt(cmd, joblogPath, appendLog) // run_common.go
	if err != nil {
		return err
	}
	closeLog()
	if r := cfg.gnu.results; strings.HasSuffix(r, ".csv") || strings.HasSuffix(r, ".tsv") || strings.HasSuffix(r, ".json") {
		sink, err := newResultsSink(r, false, cmd.OutOrStdout())
		if err != nil {
			return err
		}
		return sink.Close()
	}
	return nil
}

func runLocalBatch(env *cmdenv.Env, cmd *cobra.Command, cfg runConfig, rcfg runner.Config, todo []runner.Job, skipped int, joblogPath string, appendLog bool) error {
	stderr := cmd.ErrOrStderr()
	jl, closeLog, err := openJoblogAt(cmd, joblogPath, appendLog) // run_common.go
	if err != nil {
		return runError(err)
	}
	defer closeLog()
	prog := newJobProgress(cfg.progress, stderr, len(todo))
	rcfg.Retries, rcfg.RetryDelay = extraTries(cfg.retries), cfg.retryDelay
	rcfg.Speculate, rcfg.SpeculateAfter = cfg.speculate, cfg.speculateAfter
	rcfg.KeepOrder, rcfg.Stdout, rcfg.Stderr = cfg.keepOrder, prog.wrap(cmd.OutOrStdout()), prog.wrap(stderr)
	o := runopts.Of(&rcfg)
	o.Joblog, rcfg.Grace, rcfg.Progress = jl, cfg.grace, prog.update
	if cfg.gnu.files && cfg.gnu.results != "" {
		return runError(errors.New("--files with --results: give one (GNU parallel 20221122 prints the --results file names then)"))
	}
	latestDrop := o.LatestLine && (cfg.gnu.files ||
		cfg.gnu.results != "" && !strings.HasSuffix(cfg.gnu.results, ".csv") && !strings.HasSuffix(cfg.gnu.results, ".tsv"))
	switch {
	case latestDrop:
		// GNU 20221122: --latest-line reads a job's output from a pipe and
		// saves no file; with --files or --results DIR it never reads that
		// pipe, and prints an empty row (and a line of the tag) for each.
		o.LatestLineDrop = true
	case cfg.gnu.results != "":
		sink, err := newResultsSink(cfg.gnu.results, cfg.gnu.header != "" && cfg.gnu.header != "0", cmd.OutOrStdout())
		if err != nil {
			return runError(err)
		}
		defer sink.Close()
		rcfg.Results = sink.take
		rcfg.Output, o.LatestLine = runner.OutputGroup, false // GNU buffers --results output on disk
	}
	if cfg.gnu.files && !latestDrop && rcfg.Output != runner.OutputUngroup { // GNU: -u wins
		rcfg.Results = filesSink(cfg.gnu.tmpDir, rcfg.Stdout, o.Tag)
		rcfg.Output, o.LatestLine = runner.OutputGroup, false
	}
	stopDash, err := startRunDashboard(env, cfg, &rcfg, len(todo), rcfg.TimeoutFactor, stderr)
	if err != nil {
		return runError(err)
	}
	return runLocal(env.Ctx, cfg, rcfg, todo, skipped, stopDash, prog, stderr)
}

// earlierRuns reads the joblog of earlier runs (what --resume skips) and the
// runtimes in it or in --costs-from's (what LPT orders by): joblogPath is
// --joblog without its "+", appendLog whether the new rows are appended.
func earlierRuns(cfg runConfig) (joblogPath string, appendLog bool, records []joblog.Record, history map[string]time.Duration, err error) {
	joblogPath, appendLog = cfg.joblog, cfg.resume || cfg.resumeFailed || cfg.retryFailed
	if p, ok := strings.CutPrefix(joblogPath, "+"); ok {
		joblogPath, appendLog = p, true
	}
	if joblogPath != "" && joblogPath != "-" {
		if records, err = joblog.ReadFile(joblogPath); err != nil {
			return "", false, nil, nil, fmt.Errorf("--joblog %w", err)
		}
	}
	history = joblog.Runtimes(records)
	if cfg.costsFrom != "" {
		recs, err := joblog.ReadFile(cfg.costsFrom)
		if err != nil {
			return "", false, nil, nil, fmt.Errorf("--costs-from %w", err)
		}
		if len(recs) == 0 {
			return "", false, nil, nil, fmt.Errorf("--costs-from %s: no runs recorded", cfg.costsFrom)
		}
		history = joblog.Runtimes(recs)
	}
	return joblogPath, appendLog, records, history, nil
}

// runLocal runs the jobs on this machine, then says how the run ended: the
// summary, and an exit status for an interruption, a halt or failed jobs.
func runLocal(ctx context.Context, cfg runConfig, rcfg runner.Config, todo []runner.Job, skipped int, stopDash func(), prog *jobProgress, stderr io.Writer) error {
	sum, err := runner.Run(ctx, rcfg, todo)
	stopDash()
	prog.finish()
	if sum == nil {
		return runError(err)
	}
	if cfg.showSummary {
		if skipped > 0 {
			fmt.Fprintf(stderr, "resumed: %d jobs skipped (in the joblog)\n", skipped)
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
		return &cmdenv.ExitError{Code: interruptCode(err), Err: err}
	}
	if status, set := runopts.HaltStatus(sum); set {
		return haltExit(status, sum.Failed, cfg.showSummary)
	}
	return failedExit(sum.Failed, cfg.showSummary)
}

// haltExit is the exit status under --halt: GNU parallel's (the failed
// job's own status for fail=1, the failed jobs' count or percentage
// otherwise, 0 for success=...).
func haltExit(status, failed int, say bool) error {
	if status == 0 {
		return nil
	}
	err := errSilent
	if say {
		err = fmt.Errorf("%d job(s) failed; --halt exit status %d", failed, status)
	}
	return &cmdenv.ExitError{Code: status, Err: err}
}

// extraTries turns --retries N (GNU parallel's: N tries in all, 0 for no
// limit) into runner.Config.Retries (tries after the first).
func extraTries(n int) int {
	if n == 0 {
		return math.MaxInt32 // GNU parallel: 2**31
	}
	return max(n-1, 0)
}

// failedExit is the exit status for n failed jobs: GNU parallel's, which
// says nothing more (the jobs' own output said it); with say, the
// summary's "N job(s) failed" line.
func failedExit(n int, say bool) error {
	if n == 0 {
		return nil
	}
	err := errSilent
	if say {
		err = fmt.Errorf("%d job(s) failed", n)
	}
	return &cmdenv.ExitError{Code: min(n, exitRunMaxFailed), Err: err}
}

// errSilent is an error that the command line does not print: the exit
// status says it all.
var errSilent = errors.New("")

// interruptCode is 128 + the signal that stopped the run: 130 for SIGINT,
// 143 for SIGTERM (the cause os/signal.NotifyContext gives names it).
func interruptCode(err error) int {
	if strings.Contains(err.Error(), "terminated") {
		return 143
	}
	return 130
}

// retryFailedInput reads --retry-failed's joblog, as GNU parallel 20221122
// does: the commands become the input (a file made for it, put in place
// of -a; the caller removes it), one a job number, the last logged for
// each, "true" where one run succeeded, "" where none was logged; the
// command line is ignored (the caller drops it when the file is not nil).
// With no joblog file yet, or one without rows, there is no file (nil).
// Commands holding a newline turn --null on, with GNU's warning.
func retryFailedInput(cfg *runConfig, stderr io.Writer) (*os.File, error) {
	path := strings.TrimPrefix(cfg.joblog, "+")
	if path == "" || path == "-" {
		return nil, nil
	}
	records, err := joblog.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--joblog %w", err)
	}
	if _, err := os.Stat(path); err != nil {
		return nil, nil
	}
	var group []string
	for _, r := range records {
		if r.Seq < 1 || r.Seq > 1<<24 {
			return nil, fmt.Errorf("--retry-failed: --joblog %s: job number %d out of range", path, r.Seq)
		}
		for len(group) < r.Seq {
			group = append(group, "")
		}
		group[r.Seq-1] = r.Command
		if r.OK() {
			group[r.Seq-1] = "true"
		}
	}
	if len(group) == 0 {
		return nil, nil
	}
	f, err := os.CreateTemp("", "worksteal-retry-*.arg")
	if err != nil {
		return nil, err
	}
	end := "\n"
	if slices.ContainsFunc(group, func(c string) bool { return strings.Contains(c, "\n") }) {
		fmt.Fprintln(stderr, "worksteal: Warning: Command lines contain newline. Forcing --null.")
		cfg.gnu.null, end = true, "\x00"
	}
	for _, c := range group {
		io.WriteString(f, c+end)
	}
	if err := f.Close(); err != nil {
		os.Remove(f.Name())
		return nil, err
	}
	cfg.argFiles = []string{f.Name()}
	return f, nil
}

// dropCommand is args without the command before the input sources: a
// --retry-failed joblog that holds no commands drops the command line's
// command, and GNU parallel reads the sources as commands.
func dropCommand(args []string, cfg runConfig) []string {
	sep, fileSep := cfg.gnu.argSep, cmp.Or(cfg.gnu.argFileSep, "::::")
	for i, a := range args {
		if a == sep || a == sep+"+" || a == fileSep || a == fileSep+"+" {
			return args[i:]
		}
	}
	return nil
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// printPlan writes the commands in start order (--dry-run). The jobs that
// --plus {uniq} or {choose_k} skip are shown, and count as failed, as GNU
// parallel's dry run does.
func printPlan(w io.Writer, jobs []runner.Job, order runner.Order, history map[string]time.Duration, tag bool) error {
	skipped := 0
	for _, j := range runner.Plan(jobs, order, history) {
		line := jobio.Of(j).CommandIn(j.Command, 1) // {%}: GNU parallel's dry run shows slot 1
		if tag {
			// GNU prints a dry run's command as the job's output:
			// each line tagged.
			line = string(jobio.TagLines(nil, jobio.Of(j).TagIn(1)+"\t", []byte(line)))
		}
		fmt.Fprintln(w, line)
		if jobio.Of(j).Skipped() {
			skipped++
		}
	}
	return failedExit(skipped, false)
}

// timeoutAndShell reads --timeout (a duration, or N% of the median run
// time) and --shell, as run and run --pipe both do.
func timeoutAndShell(cfg runConfig) (abs time.Duration, factor float64, shell string, err error) {
	if abs, factor, err = parseTimeout(cfg.timeout); err != nil {
		return 0, 0, "", err
	}
	shell, err = resolveShell(cfg.shell)
	return abs, factor, shell, err
}

// jobSeq is a job's sequence number, which --resume matches.
func jobSeq(j runner.Job) int { return j.Seq }
