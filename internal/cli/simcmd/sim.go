package simcmd

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/worksteal/worksteal/internal/cli/cmdenv"
	"github.com/worksteal/worksteal/internal/simlab"
	"github.com/worksteal/worksteal/policy"
	"github.com/worksteal/worksteal/sim"
)

func init() { cmdenv.AddCommand(newSimCommand) }

// simConfig is what the flags of "worksteal sim" fill in.
type simConfig struct {
	file      string
	list      bool
	seed      uint64
	workers   int
	scheduler string
	victim    string
	amount    string
	maxBatch  int
	idle      string
	sweep     string
	limit     float64
	json      bool
	csv       bool
	svg       string
	trace     string
	verbose   bool
	maxEvents int64
	print     bool
	profile   string  // a work/span profile to simulate (trace.go)
	predict   string  // WORKLOAD:SIZE to predict and measure (predict.go)
	reps      int     // --predict: timed runs per measurement
	speed     float64 // --predict: assumed speed per thread at P (0: measure it and P here)
}

func newSimCommand(env *cmdenv.Env) *cobra.Command {
	var cfg simConfig
	cmd := &cobra.Command{
		Use:   "sim [PRESET]",
		Short: "Simulate work-stealing and load-balancing policies (deterministic, virtual time)",
		Long: `sim runs the deterministic discrete-event simulator of package sim: a
scenario (workers, workload, policy, costs, faults) is simulated in virtual
time and reported as tables (or JSON). The same scenario and seed always give
the same output, byte for byte.

A scenario is a built-in preset (see --list) or a YAML or JSON file (-f).
Flags override the scenario's seed, worker count and policy. A sweep (from
the preset, the file or --sweep) runs the scenario once per value of one
parameter and prints a table (--csv for CSV); --svg draws it as a line plot.
For a single run, --svg draws a Gantt chart and --trace writes Chrome
trace-event JSON, which opens in https://ui.perfetto.dev.

Policies are the runtime's own: victim random, round-robin, largest
(adaptive), two-choices, locality; amount one or half; idle backoff (the
runtime's idle protocol step by step: rounds of attempts, spins, sleeps and
parks, wake-ups on push and by the last searcher), park (after one round),
poll (a round every interval, as the seed tutorial's workers) or spin.
Baseline schedulers: central, static, round-robin, lpt.
Steal-half takes half the victim's queue but at most 32 tasks, the
runtime's cap (policy.MaxBatch); --max-batch -1 lifts the cap (a full half,
as the analyses of steal-half assume). The report's first lines give the
effective policy and costs.

--profile FILE reads a work/span profile (worksteal trace profile --out)
and simulates a fork-join tree with the same work T1 and span T∞ at
P = 1, 2, 4 … 1,024 (or at --workers), printing the predicted makespan
beside the speedup range the profile itself predicts.

--predict WORKLOAD:SIZE predicts the runtime's makespan on a bench workload
(fib:30, nqueens:12, uts:2000) by simulating its join protocol (latent
frames offered at poll points, steal half) on a tree with the profile's
shape (span, forks), at costs measured on short unprofiled runs: go-seq at
the size, the runtime's overhead per fork on a smaller size at one worker,
a deque push and pop per promotion, and the machine's speed per thread
with P busy (P one-worker runs at once); then it measures the runtime and
prints both.`,
		Example: `  worksteal sim --list
  worksteal sim basic
  worksteal sim granularity --svg granularity.svg
  worksteal sim basic -v --svg basic.svg --trace basic.json
  worksteal sim workers --sweep victim=random,largest --workers 8
  worksteal sim -f scenario.yaml --seed 7 --json
  worksteal sim --profile fib.profile.json
  worksteal sim --predict nqueens:12`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return runSim(env, cmd, cfg, args) },
	}
	f := cmd.Flags()
	f.StringVarP(&cfg.file, "file", "f", "", "scenario file, YAML or JSON (.json)")
	f.BoolVar(&cfg.list, "list", false, "list the built-in presets")
	f.Uint64Var(&cfg.seed, "seed", 0, "seed of every random choice (default: the scenario's)")
	f.IntVarP(&cfg.workers, "workers", "w", 0, "number of workers (default: the scenario's)")
	f.StringVar(&cfg.scheduler, "scheduler", "", "steal, central, static, round-robin or lpt")
	f.StringVar(&cfg.victim, "victim", "", "victim policy: random, round-robin, largest (adaptive), two-choices, locality")
	f.StringVar(&cfg.amount, "amount", "", "steal amount: one (the default here, as in the tutorial and the classic analyses) or half (the runtime's default)")
	f.IntVar(&cfg.maxBatch, "max-batch", 0, "steal half: most tasks one steal takes (0: the runtime's 32; -1: no cap)")
	f.StringVar(&cfg.idle, "idle", "", "idle mode: backoff, poll, spin or park")
	f.StringVar(&cfg.sweep, "sweep", "", "sweep one parameter: PARAM=v1,v2,... or PARAM=lo..hi (params: "+strings.Join(simlab.SweepParams(), ", ")+")")
	f.Float64Var(&cfg.limit, "limit", 0, "stop at this virtual time in seconds (default: run to completion)")
	f.BoolVar(&cfg.json, "json", false, "print the report (or the sweep's reports) as JSON")
	f.BoolVar(&cfg.csv, "csv", false, "print a sweep as CSV")
	f.StringVar(&cfg.svg, "svg", "", "write an SVG picture: a Gantt chart of the run, or the sweep's line plot")
	f.StringVar(&cfg.trace, "trace", "", "write the run as Chrome trace-event JSON (Perfetto)")
	f.BoolVarP(&cfg.verbose, "verbose", "v", false, "print the event log before the report")
	f.Int64Var(&cfg.maxEvents, "max-events", 500_000_000, "stop a run after this many events (0: no limit)")
	f.BoolVar(&cfg.print, "print-scenario", false, "print the resolved scenario as JSON and exit")
	f.StringVar(&cfg.profile, "profile", "", "simulate a work/span profile (worksteal trace profile --out) at 1 … 1024 workers")
	f.StringVar(&cfg.predict, "predict", "", "predict the runtime's makespan on a bench workload (fib:30, nqueens:12, uts:2000) at 1 and 2 workers (or -w) and measure it")
	f.IntVar(&cfg.reps, "reps", 5, "--predict: timed runs per measurement (the fastest is kept)")
	f.Float64Var(&cfg.speed, "speed", 0, "--predict: assume this speed per thread at P workers instead of measuring it, and do not run P here (1: a machine with P cores like this one's, the prediction for a machine you do not have)")
	return cmd
}

func runSim(env *cmdenv.Env, cmd *cobra.Command, cfg simConfig, args []string) error {
	out := cmd.OutOrStdout()
	if cfg.list {
		return listPresets(out)
	}
	if cfg.predict != "" {
		return runSimPredict(env, cmd, cfg, args)
	}
	if cfg.profile != "" {
		return runSimProfile(env, cmd, cfg, args)
	}
	s, err := resolveScenario(cmd, cfg, args)
	if err != nil {
		return err
	}
	if cfg.print {
		n, err := s.Normalize()
		if err != nil {
			return scenarioError(cfg.file, err)
		}
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		// the sweep block is the scenario file's last key
		return enc.Encode(struct {
			sim.Scenario
			Sweep *simlab.Sweep `json:"sweep"`
		}{n, simlab.SweepOf(n)})
	}
	if simlab.SweepOf(s) != nil {
		return runSimSweep(env, out, cfg, s)
	}
	return runSimOnce(env, out, cfg, s)
}

// resolveScenario builds the scenario to run: the preset or the file, then
// the flags that override it. Bad flags are usage errors naming the flag.
func resolveScenario(cmd *cobra.Command, cfg simConfig, args []string) (sim.Scenario, error) {
	var s sim.Scenario
	switch {
	case len(args) == 1 && cfg.file != "":
		return s, cmdenv.UsageError(errors.New("sim: give a preset or -f FILE, not both"))
	case len(args) == 1:
		p, err := simlab.LookupPreset(args[0])
		if err != nil {
			return s, cmdenv.UsageError(err)
		}
		s = p
	case cfg.file != "":
		sc, err := loadScenario(cfg.file)
		if err != nil {
			return s, cmdenv.UsageError(err)
		}
		s = *sc
	default:
		return s, cmdenv.UsageError(errors.New("sim: name a preset (worksteal sim --list) or a scenario file (-f FILE)"))
	}
	fl := cmd.Flags()
	if fl.Changed("seed") {
		s.Seed = cfg.seed
	}
	if fl.Changed("workers") {
		if cfg.workers < 1 || cfg.workers > simlab.MaxWorkers() {
			return s, cmdenv.UsageError(fmt.Errorf("sim: --workers must be between 1 and %d, got %d", simlab.MaxWorkers(), cfg.workers))
		}
		s.Workers.Count = cfg.workers
		if len(s.Workers.Speeds) > cfg.workers {
			s.Workers.Speeds = s.Workers.Speeds[:cfg.workers]
		}
		if len(s.Workers.Groups) > cfg.workers {
			s.Workers.Groups = s.Workers.Groups[:cfg.workers]
		}
	}
	if cfg.scheduler != "" {
		s.Policy.Scheduler = cfg.scheduler
	}
	if cfg.victim != "" {
		s.Policy.Victim = cfg.victim
	}
	if cfg.amount != "" {
		s.Policy.Amount = cfg.amount
	}
	if fl.Changed("max-batch") {
		if cfg.maxBatch < -1 {
			return s, cmdenv.UsageError(fmt.Errorf("sim: --max-batch must be -1 (no cap), 0 (the runtime's %d) or positive, got %d", policy.MaxBatch, cfg.maxBatch))
		}
		s.Policy.MaxBatch = cfg.maxBatch
	}
	if cfg.idle != "" {
		s.Policy.Idle.Mode = cfg.idle
	}
	if fl.Changed("limit") {
		if !(cfg.limit >= 0) {
			return s, cmdenv.UsageError(fmt.Errorf("sim: --limit must be a non-negative number of seconds, got %v", cfg.limit))
		}
		s.Limit = sim.Seconds(cfg.limit)
	}
	if fl.Changed("max-events") && cfg.maxEvents < 0 {
		return s, cmdenv.UsageError(fmt.Errorf("sim: --max-events must not be negative (0: no limit), got %d", cfg.maxEvents))
	}
	if cfg.sweep != "" {
		sw, err := simlab.ParseSweep(cfg.sweep)
		if err != nil {
			return s, cmdenv.UsageError(fmt.Errorf("--sweep: %w", err))
		}
		s = simlab.WithSweep(s, sw)
	}
	return s, nil
}

// runSimSweep runs a sweep and prints its table, CSV or JSON, and its plot.
func runSimSweep(env *cmdenv.Env, out io.Writer, cfg simConfig, s sim.Scenario) error {
	if cfg.trace != "" || cfg.verbose {
		return cmdenv.UsageError(errors.New("sim: --trace and --verbose need a single run, not a sweep"))
	}
	var outs cmdenv.Outputs
	defer func() { outs.Abort() }() // an interrupted or failed run leaves no file behind
	svgOut, err := outs.Open("--svg", cfg.svg)
	if err != nil {
		return err
	}
	res, err := simlab.RunSweep(env.Ctx, s, simlab.Options(sim.Options{}, cfg.maxEvents, false))
	if err != nil {
		return scenarioError(cfg.file, err)
	}
	if err := writeOutput(env, svgOut, res.WriteSVG); err != nil {
		return err
	}
	switch {
	case cfg.json:
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		return enc.Encode(struct {
			Param   string       `json:"param"`
			Values  []string     `json:"values"`
			Reports []sim.Report `json:"reports"`
		}{res.Param, res.Values, res.Reports})
	case cfg.csv:
		return res.WriteCSV(out)
	}
	return res.WriteTable(out)
}

// runSimOnce runs one scenario and prints its report, log and pictures.
func runSimOnce(env *cmdenv.Env, out io.Writer, cfg simConfig, s sim.Scenario) error {
	if cfg.csv {
		return cmdenv.UsageError(errors.New("sim: --csv needs a sweep (--sweep PARAM=...)"))
	}
	opts := simlab.Options(sim.Options{}, cfg.maxEvents, cfg.svg != "" || cfg.trace != "")
	if cfg.verbose {
		opts.Log = out
	}
	// The outputs are opened before the run: a path that cannot be written
	// fails at once, not after a long simulation.
	var outs cmdenv.Outputs
	defer func() { outs.Abort() }() // an interrupted or failed run leaves no file behind
	svgOut, err := outs.Open("--svg", cfg.svg)
	if err != nil {
		return err
	}
	traceOut, err := outs.Open("--trace", cfg.trace)
	if err != nil {
		return err
	}
	res, err := sim.Run(env.Ctx, s, opts)
	if err != nil {
		return scenarioError(cfg.file, err)
	}
	if err := writeOutput(env, svgOut, func(w io.Writer) error { return simlab.WriteGantt(res, w) }); err != nil {
		return err
	}
	if err := writeOutput(env, traceOut, func(w io.Writer) error { return simlab.WriteTrace(res, w) }); err != nil {
		return err
	}
	if cfg.verbose {
		fmt.Fprintln(out)
	}
	if cfg.json {
		return res.Report.WriteJSON(out)
	}
	return res.Report.WriteText(out)
}

// scenarioError marks invalid scenarios (a field, a flag or a sweep value)
// as usage errors, naming the scenario file when there is one, and passes
// other failures through.
func scenarioError(file string, err error) error {
	var fe *sim.FieldError
	if !errors.As(err, &fe) {
		return err
	}
	if file != "" {
		err = inFile(file, err)
	}
	return cmdenv.UsageError(err)
}

func listPresets(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, p := range simlab.Presets() {
		kind := "run"
		if sw := simlab.SweepOf(p.Scenario); sw != nil {
			kind = "sweep " + sw.Param
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", p.Name, kind, p.Description)
	}
	return tw.Flush()
}

// writeOutput writes an output opened before the run (nil: not asked for)
// and says so on stderr.
func writeOutput(env *cmdenv.Env, o *cmdenv.OutputFile, write func(io.Writer) error) error {
	if o == nil {
		return nil
	}
	if err := o.Write(write); err != nil {
		return fmt.Errorf("sim: %w", err)
	}
	fmt.Fprintf(env.Stderr, "wrote %s\n", o.Path)
	return nil
}

// loadScenario reads a scenario file, YAML or JSON (sim.ParseScenario reads
// both). Errors name the file, the line and the field.
func loadScenario(path string) (*sim.Scenario, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("sim: %w", err)
	}
	defer f.Close()
	const max = 4 << 20
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, fmt.Errorf("sim: %s: %w", path, err)
	}
	if len(data) > max {
		return nil, fmt.Errorf("sim: %s: larger than %d bytes: not a scenario", path, max)
	}
	s, err := sim.ParseScenario(data)
	if err != nil {
		return nil, inFile(path, err)
	}
	return s, nil
}

// inFile prefixes a scenario error with the file it came from, as
// FILE:LINE: FIELD: MESSAGE when the error names a line.
func inFile(path string, err error) error {
	var fe *sim.FieldError
	if errors.As(err, &fe) && fe.Line > 0 {
		return &fileError{msg: fmt.Sprintf("%s:%d: %s: %s", path, fe.Line, fe.Path, fe.Msg), err: err}
	}
	return &fileError{msg: fmt.Sprintf("%s: %v", path, err), err: err}
}

// fileError is a scenario error with its file name; it unwraps to the
// scenario error (a *sim.FieldError is still one).
type fileError struct {
	msg string
	err error
}

func (e *fileError) Error() string { return e.msg }
func (e *fileError) Unwrap() error { return e.err }
