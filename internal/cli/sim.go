package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"gopkg.in/yaml.v3"

	"github.com/worksteal/worksteal/sim"
)

func init() { addCommand(newSimCommand) }

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
	profile   string // a work/span profile to simulate (trace.go)
}

func newSimCommand(env *Env) *cobra.Command {
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
(adaptive), two-choices, locality; amount one or half; idle backoff, poll,
spin or park. Baseline schedulers: central, static, round-robin, lpt.
Steal-half takes half the victim's queue but at most 32 tasks, the
runtime's cap (policy.MaxBatch); --max-batch -1 lifts the cap (a full half,
as the analyses of steal-half assume). The report's first lines give the
effective policy and costs.

--profile FILE reads a work/span profile (worksteal trace profile --out)
and simulates a fork-join tree with the same work T1 and span T∞ at
P = 1, 2, 4 … 1,024 (or at --workers), printing the predicted makespan
beside the speedup range the profile itself predicts.`,
		Example: `  worksteal sim --list
  worksteal sim basic
  worksteal sim granularity --svg granularity.svg
  worksteal sim basic -v --svg basic.svg --trace basic.json
  worksteal sim workers --sweep victim=random,largest --workers 8
  worksteal sim -f scenario.yaml --seed 7 --json
  worksteal sim --profile fib.profile.json`,
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
	f.StringVar(&cfg.amount, "amount", "", "steal amount: one or half")
	f.IntVar(&cfg.maxBatch, "max-batch", 0, "steal half: most tasks one steal takes (0: the runtime's 32; -1: no cap)")
	f.StringVar(&cfg.idle, "idle", "", "idle mode: backoff, poll, spin or park")
	f.StringVar(&cfg.sweep, "sweep", "", "sweep one parameter: PARAM=v1,v2,... or PARAM=lo..hi (params: "+strings.Join(sim.SweepParams, ", ")+")")
	f.Float64Var(&cfg.limit, "limit", 0, "stop at this virtual time in seconds (default: run to completion)")
	f.BoolVar(&cfg.json, "json", false, "print the report (or the sweep's reports) as JSON")
	f.BoolVar(&cfg.csv, "csv", false, "print a sweep as CSV")
	f.StringVar(&cfg.svg, "svg", "", "write an SVG picture: a Gantt chart of the run, or the sweep's line plot")
	f.StringVar(&cfg.trace, "trace", "", "write the run as Chrome trace-event JSON (Perfetto)")
	f.BoolVarP(&cfg.verbose, "verbose", "v", false, "print the event log before the report")
	f.Int64Var(&cfg.maxEvents, "max-events", 500_000_000, "stop a run after this many events (0: no limit)")
	f.BoolVar(&cfg.print, "print-scenario", false, "print the resolved scenario as JSON and exit")
	f.StringVar(&cfg.profile, "profile", "", "simulate a work/span profile (worksteal trace profile --out) at 1 … 1024 workers")
	return cmd
}

// usageError makes the command exit with status 2.
func usageError(err error) error { return &exitError{code: 2, err: err} }

func runSim(env *Env, cmd *cobra.Command, cfg simConfig, args []string) error {
	out := cmd.OutOrStdout()
	if cfg.list {
		return listPresets(out)
	}
	if cfg.profile != "" {
		return runSimProfile(env, cmd, cfg, args)
	}
	var s sim.Scenario
	switch {
	case len(args) == 1 && cfg.file != "":
		return usageError(errors.New("sim: give a preset or -f FILE, not both"))
	case len(args) == 1:
		p, err := sim.LookupPreset(args[0])
		if err != nil {
			return usageError(err)
		}
		s = p
	case cfg.file != "":
		sc, err := loadScenario(cfg.file)
		if err != nil {
			return usageError(err)
		}
		s = *sc
	default:
		return usageError(errors.New("sim: name a preset (worksteal sim --list) or a scenario file (-f FILE)"))
	}
	fl := cmd.Flags()
	if fl.Changed("seed") {
		s.Seed = cfg.seed
	}
	if fl.Changed("workers") {
		s.Workers.Count = cfg.workers
		if len(s.Workers.Speeds) > cfg.workers && cfg.workers > 0 {
			s.Workers.Speeds = s.Workers.Speeds[:cfg.workers]
		}
		if len(s.Workers.Groups) > cfg.workers && cfg.workers > 0 {
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
		s.Policy.MaxBatch = cfg.maxBatch
	}
	if cfg.idle != "" {
		s.Policy.Idle.Mode = cfg.idle
	}
	if fl.Changed("limit") {
		s.Limit = sim.Seconds(cfg.limit)
	}
	if cfg.sweep != "" {
		sw, err := sim.ParseSweep(cfg.sweep)
		if err != nil {
			return usageError(err)
		}
		s.Sweep = sw
	}
	if cfg.print {
		n, err := s.Normalize()
		if err != nil {
			return usageError(err)
		}
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		return enc.Encode(n)
	}
	opts := sim.Options{MaxEvents: cfg.maxEvents}
	if s.Sweep != nil {
		if cfg.trace != "" || cfg.verbose {
			return usageError(errors.New("sim: --trace and --verbose need a single run, not a sweep"))
		}
		res, err := sim.RunSweep(env.Ctx, s, opts)
		if err != nil {
			return scenarioError(err)
		}
		if cfg.svg != "" {
			if err := writeFile(env, cfg.svg, res.WriteSVG); err != nil {
				return err
			}
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
	if cfg.csv {
		return usageError(errors.New("sim: --csv needs a sweep (--sweep PARAM=...)"))
	}
	if cfg.verbose {
		opts.Log = out
	}
	opts.Record = cfg.svg != "" || cfg.trace != ""
	res, err := sim.Run(env.Ctx, s, opts)
	if err != nil {
		return scenarioError(err)
	}
	if cfg.svg != "" {
		if err := writeFile(env, cfg.svg, res.WriteGantt); err != nil {
			return err
		}
	}
	if cfg.trace != "" {
		if err := writeFile(env, cfg.trace, res.WriteTrace); err != nil {
			return err
		}
	}
	if cfg.verbose {
		fmt.Fprintln(out)
	}
	if cfg.json {
		return res.Report.WriteJSON(out)
	}
	return res.Report.WriteText(out)
}

// scenarioError marks invalid scenarios (a flag or a sweep value) as usage
// errors and passes other failures through.
func scenarioError(err error) error {
	var fe *sim.FieldError
	if errors.As(err, &fe) {
		return usageError(err)
	}
	return err
}

func listPresets(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, p := range sim.Presets() {
		kind := "run"
		if p.Scenario.Sweep != nil {
			kind = "sweep " + p.Scenario.Sweep.Param
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", p.Name, kind, p.Description)
	}
	return tw.Flush()
}

func writeFile(env *Env, path string, write func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("sim: %w", err)
	}
	if err := write(f); err != nil {
		f.Close()
		return fmt.Errorf("sim: writing %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("sim: %w", err)
	}
	fmt.Fprintf(env.Stderr, "wrote %s\n", path)
	return nil
}

// loadScenario reads a scenario file: JSON when it ends in .json, YAML
// otherwise. Errors name the file, the line and the field.
func loadScenario(path string) (*sim.Scenario, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("sim: %w", err)
	}
	var s *sim.Scenario
	if strings.EqualFold(filepath.Ext(path), ".json") {
		s, err = sim.ParseScenario(data)
	} else {
		s, err = parseYAMLScenario(data)
	}
	if err != nil {
		var fe *sim.FieldError
		if errors.As(err, &fe) && fe.Line > 0 {
			return nil, fmt.Errorf("%s:%d: %s: %s", path, fe.Line, fe.Path, fe.Msg)
		}
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

// parseYAMLScenario decodes a YAML scenario. The YAML library stays in this
// layer: the document is converted to sim's line-numbered tree, and package
// sim (standard library only) decodes and checks it.
func parseYAMLScenario(data []byte) (*sim.Scenario, error) {
	if len(data) > 4<<20 {
		return nil, errors.New("sim: scenario larger than 4 MiB")
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("sim: %v", err)
	}
	budget := 1 << 20
	root, err := yamlToNode(&doc, 0, &budget)
	if err != nil {
		return nil, err
	}
	return sim.DecodeScenario(root)
}

// yamlToNode converts a YAML node to a sim.Node. Depth and a node budget
// bound the work, so aliases cannot blow a small file up.
func yamlToNode(n *yaml.Node, depth int, budget *int) (*sim.Node, error) {
	*budget--
	if depth > 64 || *budget < 0 {
		return nil, fmt.Errorf("sim: line %d: scenario nested too deeply or too large", n.Line)
	}
	out := &sim.Node{Line: n.Line}
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return &sim.Node{Kind: sim.ObjectNode, Line: 1}, nil
		}
		return yamlToNode(n.Content[0], depth+1, budget)
	case yaml.AliasNode:
		if n.Alias == nil {
			return nil, fmt.Errorf("sim: line %d: unknown alias", n.Line)
		}
		a, err := yamlToNode(n.Alias, depth+1, budget)
		if err != nil {
			return nil, err
		}
		a.Line = n.Line
		return a, nil
	case yaml.MappingNode:
		out.Kind = sim.ObjectNode
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.Kind != yaml.ScalarNode {
				return nil, fmt.Errorf("sim: line %d: a field name must be a plain word", k.Line)
			}
			if k.Value == "<<" {
				return nil, fmt.Errorf("sim: line %d: merge keys (<<) are not supported", k.Line)
			}
			c, err := yamlToNode(v, depth+1, budget)
			if err != nil {
				return nil, err
			}
			if v.Kind == yaml.MappingNode || v.Kind == yaml.SequenceNode {
				c.Line = k.Line // report a block under its key's line
			}
			out.Keys = append(out.Keys, k.Value)
			out.Items = append(out.Items, c)
		}
	case yaml.SequenceNode:
		out.Kind = sim.ArrayNode
		for _, c := range n.Content {
			x, err := yamlToNode(c, depth+1, budget)
			if err != nil {
				return nil, err
			}
			out.Items = append(out.Items, x)
		}
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!null":
			out.Kind = sim.NullNode
		case "!!bool":
			var b bool
			if err := n.Decode(&b); err != nil {
				return nil, fmt.Errorf("sim: line %d: %v", n.Line, err)
			}
			out.Kind, out.Value = sim.BoolNode, strconv.FormatBool(b)
		case "!!int":
			var i int64
			if err := n.Decode(&i); err != nil {
				return nil, fmt.Errorf("sim: line %d: %v", n.Line, err)
			}
			out.Kind, out.Value = sim.NumberNode, strconv.FormatInt(i, 10)
		case "!!float":
			var f float64
			if err := n.Decode(&f); err != nil {
				return nil, fmt.Errorf("sim: line %d: %v", n.Line, err)
			}
			out.Kind, out.Value = sim.NumberNode, strconv.FormatFloat(f, 'g', -1, 64)
		default:
			out.Kind, out.Value = sim.StringNode, n.Value
		}
	default:
		return nil, fmt.Errorf("sim: line %d: unexpected YAML node", n.Line)
	}
	return out, nil
}
