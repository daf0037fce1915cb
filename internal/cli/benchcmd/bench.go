package benchcmd

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"

	"github.com/worksteal/worksteal/internal/bench"
	"github.com/worksteal/worksteal/internal/cli/cmdenv"
)

func init() { cmdenv.AddCommand(newBenchCommand) }

// BenchConfig is what the flags of "worksteal bench" fill in.
// QuickRetryBudget bounds --quick's re-runs of cells run while the machine
// was busy, unless --retry-budget is given: a quick run is a first look, and
// the default minute of re-runs made it take 83 s instead of 20 on a busy
// machine.
const QuickRetryBudget = 10 * time.Second

type BenchConfig struct {
	Quick       bool
	reps        int
	warmup      int
	workloads   []string // filter on the plan
	impls       []string // filter on the plan, or the impls of --entry
	workers     []int
	entries     []string // WORKLOAD=SIZE, replaces the plan
	json        bool
	progress    string  // auto, bar, lines, none
	maxLoad     float64 // re-run a cell when other processes used more cores
	retries     int
	RetryBudget time.Duration
	counters    bool
}

func newBenchCommand(env *cmdenv.Env) *cobra.Command {
	var cfg BenchConfig
	cmd := &cobra.Command{
		Use:   "bench",
		Short: "Run the benchmark suite (fib, nqueens, UTS) and print the comparison table",
		Long: `bench runs the benchmark workloads of package bench with sequential Go,
a goroutine per fork (go-wg), goroutines with a hand-tuned cutoff
(go-wg-cutoff) and the worksteal runtime (ws, and ws-closure for the closure
form of Join), at 1 and 2 workers, and prints for each workload and size the
median times, the cost of one join ((T(1 worker) − T(sequential)) / joins),
the overhead T(1 worker)/T(sequential), the speedup from 1 to 2 workers, the
ratio T(2 workers)/T(sequential) and the number of steals, followed by the
project's performance targets.

Every result is checked against the published reference (or else sequential
Go's); a wrong result makes the command fail after printing the table.

The machine should be otherwise idle. The "load" column gives the most cores
other processes kept busy while one of the row's cells ran; a cell run while
the machine was busy (--max-load) is re-run (--retries, within
--retry-budget) and the quietest attempt kept.

The default plan (fib 30 and 35, nqueens 12 and 13, UTS b0=6000, UTS-SHA1 T1)
takes about 2-3 minutes on 2 cores (more when cells are re-run); --quick runs
small sizes in about 20 seconds on an idle 2-core machine; on a busy one its
cells run slower, and are re-run for at most 10 seconds more (its
--retry-budget unless given). Compare within one run, as ratios.`,
		Example: `  worksteal bench --quick
  worksteal bench --workloads fib,uts --reps 5
  worksteal bench --entry uts-sha1=T3 --entry nqueens=11 --impls go-seq,ws
  worksteal bench --json > bench.json
  worksteal bench --quick --counters --impls ws
  worksteal bench cell ws fib 35 1 5      # the anchors' protocol`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg.QuickDefaults(cmd.Flags().Changed("retry-budget"))
			return runBench(env, cfg)
		},
	}
	f := cmd.Flags()
	f.BoolVar(&cfg.Quick, "quick", false, "small sizes (fib 27, nqueens 11, UTS b0=2000, a 257k-node UTS-SHA1 tree), every implementation, re-runs within 10 s; about 20 s on an idle 2-core machine")
	f.IntVar(&cfg.reps, "reps", 3, "timed iterations per cell (the table shows medians)")
	f.IntVar(&cfg.warmup, "warmup", 1, "untimed iterations before the timed ones")
	f.StringSliceVar(&cfg.workloads, "workloads", nil, "only these workloads of the plan (comma-separated: "+strings.Join(bench.Workloads(), ", ")+")")
	f.StringSliceVar(&cfg.impls, "impls", nil, "only these implementations (comma-separated: "+strings.Join(ImplNames(), ", ")+")")
	f.IntSliceVar(&cfg.workers, "workers", []int{1, 2}, "worker counts for the parallel implementations")
	f.StringArrayVar(&cfg.entries, "entry", nil, "run WORKLOAD=SIZE instead of the plan (repeatable; e.g. uts-sha1=T3, nqueens=11); see 'bench list'")
	f.BoolVar(&cfg.json, "json", false, "print the full report as JSON instead of the table")
	f.StringVar(&cfg.progress, "progress", "auto", "progress display: auto (a bar when stdout is a terminal, else lines on stderr), bar, lines or none")
	f.Float64Var(&cfg.maxLoad, "max-load", 0.3, "re-run a cell when other processes kept more than this many cores busy while it ran, beyond those the cell leaves free (Linux; 0: never)")
	f.IntVar(&cfg.retries, "retries", 1, "re-runs per cell for --max-load (the quietest attempt is kept)")
	f.BoolVar(&cfg.counters, "counters", false, "count each cell's hardware events (instructions, cycles, cache and LLC misses: perf_event_open), context switches, page faults and RAPL energy per timed iteration; counts this machine cannot give print n/a, with the reason once")
	f.DurationVar(&cfg.RetryBudget, "retry-budget", time.Minute, "no more re-runs once they have taken this long in all (0: no limit; --quick: 10s)")
	cmd.AddCommand(newBenchCellCommand(env), newBenchListCommand(env))
	return cmd
}

func ImplNames() []string {
	var out []string
	for _, im := range bench.Impls() {
		out = append(out, string(im))
	}
	return out
}

// plan turns the flags into the suite's entries.
func (cfg BenchConfig) plan() ([]bench.Entry, error) {
	var impls []bench.Impl
	for _, s := range cfg.impls {
		im, err := bench.ParseImpl(s)
		if err != nil {
			return nil, fmt.Errorf("--impls %s: %w", s, err)
		}
		impls = append(impls, im)
	}
	var plan []bench.Entry
	switch {
	case len(cfg.entries) > 0:
		for _, e := range cfg.entries {
			w, size, ok := strings.Cut(e, "=")
			if !ok {
				return nil, fmt.Errorf("--entry %q: want WORKLOAD=SIZE", e)
			}
			impls, err := bench.ImplsOf(w, size)
			if err != nil {
				return nil, fmt.Errorf("--entry %s: %w", e, err)
			}
			entry := bench.Entry{Workload: w, Size: size, Impls: impls}
			plan = append(plan, entry)
		}
	case cfg.Quick:
		plan = bench.QuickPlan()
	default:
		plan = bench.DefaultPlan()
	}
	if len(cfg.workloads) > 0 {
		for _, w := range cfg.workloads {
			if !slices.Contains(bench.Workloads(), w) {
				return nil, fmt.Errorf("--workloads %s: %w (want one of %v)", w, bench.ErrUnknownWorkload, bench.Workloads())
			}
		}
		plan = slices.DeleteFunc(plan, func(e bench.Entry) bool { return !slices.Contains(cfg.workloads, e.Workload) })
	}
	if len(impls) > 0 {
		for i := range plan {
			plan[i].Impls = slices.DeleteFunc(slices.Clone(plan[i].Impls), func(im bench.Impl) bool { return !slices.Contains(impls, im) })
		}
	}
	plan = slices.DeleteFunc(plan, func(e bench.Entry) bool { return len(e.Impls) == 0 })
	if len(plan) == 0 {
		return nil, errors.New("bench: nothing to run (the filters leave no cell)")
	}
	return plan, nil
}

// quickDefaults gives --quick its own retry budget, unless --retry-budget
// was given (retryBudgetGiven).
func (cfg *BenchConfig) QuickDefaults(retryBudgetGiven bool) {
	if cfg.Quick && !retryBudgetGiven {
		cfg.RetryBudget = QuickRetryBudget
	}
}

func runBench(env *cmdenv.Env, cfg BenchConfig) error {
	plan, err := cfg.plan()
	if err != nil {
		return cmdenv.UsageError(err)
	}
	if cfg.reps < 1 {
		return cmdenv.UsageError(fmt.Errorf("bench: --reps must be >= 1, got %d", cfg.reps))
	}
	warm := cfg.warmup
	if warm == 0 {
		warm = -1 // Suite: negative means none
	}
	for _, w := range cfg.workers {
		if w < 1 || w > bench.MaxWorkers {
			return cmdenv.UsageError(fmt.Errorf("bench: --workers %d: want 1 to %d", w, bench.MaxWorkers))
		}
	}
	s := &bench.Suite{Entries: plan, Workers: cfg.workers, Reps: cfg.reps, Warmup: warm, MaxLoad: cfg.maxLoad, Retries: cfg.retries, RetryBudget: cfg.RetryBudget, Counters: cfg.counters}
	if err := s.Validate(); err != nil {
		return cmdenv.UsageError(err)
	}
	prog, err := newProgress(env, cfg.progress)
	if err != nil {
		return cmdenv.UsageError(err)
	}
	s.Progress = prog.update
	rep, runErr := s.Run(env.Ctx)
	prog.finish()
	if rep == nil {
		return runErr
	}
	if cfg.json {
		err = rep.WriteJSON(env.Stdout)
	} else {
		err = rep.WriteText(env.Stdout)
	}
	if runErr != nil {
		return runErr
	}
	return err
}

// progress shows how far the suite has come: a bar on a terminal, or one
// line per cell on stderr.
type progress struct {
	bar   *progressbar.ProgressBar
	lines io.Writer
	start time.Time
}

func newProgress(env *cmdenv.Env, mode string) (*progress, error) {
	p := &progress{start: time.Now()}
	switch mode {
	case "auto":
		if isTerminal(env.Stdout) {
			mode = "bar"
		} else {
			mode = "lines"
		}
	case "bar", "lines", "none":
	default:
		return nil, fmt.Errorf("--progress %q: want auto, bar, lines or none", mode)
	}
	switch mode {
	case "lines":
		p.lines = env.Stderr
	case "bar":
		p.bar = progressbar.NewOptions(1,
			progressbar.OptionSetWriter(env.Stdout),
			progressbar.OptionSetWidth(30),
			progressbar.OptionShowCount(),
			progressbar.OptionSetItsString("it"),
			progressbar.OptionSetElapsedTime(true),
			progressbar.OptionSetPredictTime(false),
			progressbar.OptionClearOnFinish(),
			progressbar.OptionShowDescriptionAtLineEnd(),
		)
	}
	return p, nil
}

// update is the suite's Progress callback.
func (p *progress) update(pr bench.Progress) {
	switch {
	case p.bar != nil:
		if p.bar.GetMax() != pr.Total {
			p.bar.ChangeMax(pr.Total)
		}
		desc := fmt.Sprintf("[%d/%d] %v", pr.CellIndex+1, pr.Cells, pr.Cell)
		if pr.Attempt > 1 {
			desc += fmt.Sprintf(" (attempt %d)", pr.Attempt)
		}
		p.bar.Describe(desc)
		_ = p.bar.Set(pr.Done)
	case p.lines != nil && pr.Starting:
		again := ""
		if pr.Attempt > 1 {
			again = fmt.Sprintf(", attempt %d: the machine was busy", pr.Attempt)
		}
		fmt.Fprintf(p.lines, "bench: [%d/%d] %v (%.0f s%s)\n", pr.CellIndex+1, pr.Cells, pr.Cell, time.Since(p.start).Seconds(), again)
	}
}

func (p *progress) finish() {
	if p.bar != nil {
		_ = p.bar.Clear()
	}
	if p.lines != nil {
		fmt.Fprintf(p.lines, "bench: done in %.0f s\n", time.Since(p.start).Seconds())
	}
}

// isTerminal reports whether w is a character device (a terminal).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

func newBenchCellCommand(env *cmdenv.Env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "cell IMPL WORKLOAD SIZE THREADS [REPS [WARM]]",
		Short: "Run one cell with the anchor suite's protocol",
		Long: `cell runs one (implementation, workload, size, threads) cell the way the
anchor suite's programs do: it builds the input (untimed), runs WARM untimed
iterations (default 1), then REPS timed ones (default 1), and prints one line
per timed iteration:

    impl workload size threads ms result [leaves=N depth=D]

IMPL is one of ` + strings.Join(ImplNames(), ", ") + ` (go-ws and go-ws-closure
are accepted for ws and ws-closure and printed as given, so that the anchors'
report pairs them with go-seq), or go-counter, a baseline with no scheduler
at all (THREADS goroutines take coarse's leaves or mandel's rows from an
atomic counter; coarse, coarse-poll, mandel and mandel-unrolled only). THREADS (1 to ` + strconv.Itoa(bench.MaxWorkers) + `) sets GOMAXPROCS
and, for the worksteal implementations, the number of workers. Every
iteration's result is checked: the value (fib(n), n-queens solutions, tree
nodes, and for the loops sort, mapreduce and mandel (and their -mulhi and
-unrolled forms) the anchors' checksums)
and, for uts-sha1, the leaf count and depth, against the published
reference and against the first iteration; a difference is an error. The
loops offer go-seq and ws (and go-wg for the mandels: a goroutine per row); sort
refills its input before each iteration and checks the order after it, both
untimed. The
result column is the value; leaves and depth follow when the workload has
them. See internal/bench/anchors.md for adding worksteal to the anchors' run.sh.

The cluster form, cell cluster uts-sha1 SIZE THREADS [REPS [WARM]] --nats URL
[--split D] [--stream NAME], runs the tree as one job of spawning tasks on
the workers of the NATS server at URL (worksteal worker, started apart; their
-j and GOMAXPROCS decide the parallelism, THREADS is only printed). --split D
(0 to 64, default 4): the root task spawns the tree's nodes down to depth D as
tasks, and each counts its subtree below on its worker's pool. --stream NAME:
the deployment's stream (worker --stream; default ws). Each line adds
handed=N (subtrees handed between workers, each a task message and a result
of its own), idle=N (idle signals heard) and task-msgs=N (task messages
published for the job, counted on their subject).`,
		Example: `  worksteal bench cell ws fib 35 1 5
  worksteal bench cell go-ws uts 6000 2 5 1
  worksteal bench cell ws uts-sha1 T3 2
  worksteal bench cell go-ws mandel 1000 2 5 1
  worksteal bench cell cluster uts-sha1 T1L 12 3 1 --nats nats://127.0.0.1:4222 --split 4`,
		// The arguments are positional numbers: "-5" is a (bad) THREADS,
		// not a flag, so cobra does not parse flags here (-h still helps).
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			for _, a := range args {
				if a == "-h" || a == "--help" {
					return cmd.Help()
				}
			}
			if len(args) > 0 && args[0] == "cluster" {
				return runClusterCell(env, args) // bench_cluster.go: its own flags
			}
			if len(args) < 4 || len(args) > 6 {
				return cmdenv.UsageError(fmt.Errorf("bench cell: want IMPL WORKLOAD SIZE THREADS [REPS [WARM]], got %d argument(s)", len(args)))
			}
			return runBenchCell(env, args)
		},
	}
	return cmd
}

// cellArgs are the numbers of "bench cell".
type cellArgs struct{ threads, reps, warm int }

// parseCellArgs reads THREADS, REPS and WARM, each with its bounds.
func parseCellArgs(args []string) (cellArgs, error) {
	c := cellArgs{reps: 1, warm: 1}
	for i, spec := range []struct {
		name   string
		dst    *int
		lo, hi int
	}{
		{"THREADS", &c.threads, 1, bench.MaxWorkers},
		{"REPS", &c.reps, 1, 1_000_000},
		{"WARM", &c.warm, 0, 1_000_000},
	} {
		if 3+i >= len(args) {
			continue
		}
		v := args[3+i]
		n, err := strconv.Atoi(v)
		if err != nil || n < spec.lo || n > spec.hi {
			return c, cmdenv.UsageError(fmt.Errorf("bench cell: %s %q: want a whole number from %d to %d", spec.name, v, spec.lo, spec.hi))
		}
		*spec.dst = n
	}
	return c, nil
}

func runBenchCell(env *cmdenv.Env, args []string) error {
	implName, workload, size := args[0], args[1], args[2]
	im, err := bench.ParseImpl(implName)
	if err != nil {
		return cmdenv.UsageError(fmt.Errorf("bench cell: IMPL: %w", err))
	}
	ca, err := parseCellArgs(args)
	if err != nil {
		return err
	}
	threads, reps, warm := ca.threads, ca.reps, ca.warm
	in, err := bench.Prepare(workload, size, im, threads)
	if err != nil {
		return cmdenv.UsageError(err)
	}
	want, hasWant, _ := bench.Reference(workload, size)
	var first bench.Result
	for i := range warm + reps {
		it, err := in.RunContext(env.Ctx)
		if env.Ctx.Err() != nil {
			// The iteration under way is abandoned (the process exits now).
			return cmdenv.InterruptedError(env.Ctx)
		}
		if err != nil {
			in.Close()
			return err
		}
		if i == 0 {
			first = it.Result
			if hasWant && it.Result != want {
				in.Close()
				return fmt.Errorf("%s %s %s: result %v, want %v", implName, workload, size, it.Result, want)
			}
		} else if it.Result != first {
			in.Close()
			return fmt.Errorf("result changed between iterations: %v vs %v", first, it.Result)
		}
		if i >= warm {
			fmt.Fprintf(env.Stdout, "%s %s %s %d %.3f %v\n", implName, workload, size, threads,
				float64(it.Elapsed.Nanoseconds())/1e6, it.Result)
		}
	}
	return in.Close()
}

func newBenchListCommand(env *cmdenv.Env) *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "List the workloads, their sizes and the standard UTS trees",
		Long: `list prints what "worksteal bench" can run: the implementations, each
workload with what its size means and the sizes of the default plan, and
the standard UTS trees (T1 … T3, with their published node and leaf counts
and depth), which are the sizes uts-sha1 takes. Use the names with
bench --workloads/--impls/--entry and bench cell.`,
		Example: `  worksteal bench list
  worksteal bench --entry uts-sha1=T3 --impls go-seq,ws`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			w := env.Stdout
			fmt.Fprintln(w, "Implementations:", strings.Join(ImplNames(), ", "))
			fmt.Fprintln(w, "\nWorkloads (default plan sizes):")
			for _, name := range bench.Workloads() {
				doc, _ := bench.Describe(name)
				var sizes []string
				for _, e := range bench.DefaultPlan() {
					if e.Workload == name {
						sizes = append(sizes, e.Size)
					}
				}
				fmt.Fprintf(w, "  %-9s %s [%s]\n", name, doc, strings.Join(sizes, ", "))
			}
			fmt.Fprintln(w, "\nStandard UTS trees (uts-sha1 sizes; nodes, leaves, depth as published):")
			for _, t := range bench.StandardTrees() {
				note := ""
				if t.Large {
					note = " (large)"
				}
				fmt.Fprintf(w, "  %-7s %-48s %v%s\n", t.Name, t.String(), t.Want, note)
			}
			return nil
		},
	}
}
