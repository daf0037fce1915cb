package simcmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/worksteal/worksteal"
	"github.com/worksteal/worksteal/internal/bench"
	"github.com/worksteal/worksteal/internal/cli/cmdenv"
	"github.com/worksteal/worksteal/internal/simfit"
	"github.com/worksteal/worksteal/internal/simlab"
	"github.com/worksteal/worksteal/internal/traceview"
	"github.com/worksteal/worksteal/policy"
	"github.com/worksteal/worksteal/sim"
)

func init() { cmdenv.AddCommand(newTraceCommand) }

// traceConfig is what the flags of "worksteal trace FILE" fill in.
type traceConfig struct {
	svg   string
	width int
	title string
	top   int
	json  bool
}

func newTraceCommand(env *cmdenv.Env) *cobra.Command {
	var cfg traceConfig
	cmd := &cobra.Command{
		Use:   "trace FILE",
		Short: "See the schedule: summarize a trace, draw it as SVG, record or profile a real run",
		Long: `trace reads a schedule trace in Chrome trace-event JSON — one recorded from
a real run (worksteal trace record, or Pool.Trace().WriteChrome in your own
program) or simulated (worksteal sim --trace) — and prints, per worker, the
utilization (time covered by task spans over the trace's extent), the tasks
run, steals made and suffered, failed steals, parks, and idle gaps (count,
total, longest); then the longest tasks by self time, and the critical path
as far as the trace shows it: the chain of tasks that led to the last one to
finish, linked by steals, nesting and each worker's order, with the time on
it split into running, steal latency, queued and idle. FILE - reads stdin.

--svg draws the timeline: a lane per worker, task bars (nested tasks inset),
idle time shaded, steals and parks marked, and the critical path.

Subcommands record a trace of a real run (record) and measure the work and
span of a run (profile), whose output "worksteal sim --profile" turns into a
prediction of the makespan on up to 1,024 workers.`,
		Example: `  worksteal trace record --workload fib --size 30 --workers 2 -o trace.json
  worksteal trace trace.json --svg trace.svg
  worksteal sim fork-join --trace sim.json && worksteal trace sim.json
  worksteal trace profile --workload fib --size 30 -o fib.profile.json
  worksteal sim --profile fib.profile.json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return runTrace(env, cmd, cfg, args[0]) },
	}
	f := cmd.Flags()
	f.StringVar(&cfg.svg, "svg", "", "write the timeline as SVG to this file")
	f.IntVar(&cfg.width, "width", 1200, "width of the SVG in pixels")
	f.StringVar(&cfg.title, "title", "", "heading of the SVG (default: process, workers, extent)")
	f.IntVar(&cfg.top, "top", 10, "how many of the longest tasks to list")
	f.BoolVar(&cfg.json, "json", false, "print the summary as JSON")
	cmd.AddCommand(newTraceRecordCommand(env), newTraceProfileCommand(env))
	return cmd
}

func runTrace(env *cmdenv.Env, cmd *cobra.Command, cfg traceConfig, path string) error {
	if cfg.top < 1 {
		return cmdenv.UsageError(fmt.Errorf("trace: --top %d: want at least 1", cfg.top))
	}
	if cfg.width < 200 || cfg.width > 100_000 {
		return cmdenv.UsageError(fmt.Errorf("trace: --width %d: want 200 to 100000 pixels", cfg.width))
	}
	var outs cmdenv.Outputs
	defer func() { outs.Abort() }() // outs grows below
	svgOut, err := outs.Open(cmd.CommandPath()+" --svg", cfg.svg)
	if err != nil {
		return err
	}
	// The trace's spans are pointer-free arrays, so collecting often costs
	// little (measured: 10% more CPU) and keeps the heap near what it holds:
	// a 500 MB trace of nothing but spans peaked at 195 MB instead of 336.
	defer debug.SetGCPercent(debug.SetGCPercent(10))
	t, err := loadTrace(env, path, svgOut != nil)
	if err != nil {
		return err
	}
	s := t.Summary(traceview.Options{Top: cfg.top})
	if svgOut != nil {
		if err := svgOut.Write(func(w io.Writer) error {
			return t.WriteSVG(w, s, traceview.SVGOptions{Width: cfg.width, Title: cfg.title})
		}); err != nil {
			return err
		}
		fmt.Fprintf(env.Stderr, "wrote %s\n", cfg.svg)
	}
	out := cmd.OutOrStdout()
	if cfg.json {
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		return enc.Encode(s)
	}
	return s.WriteText(out)
}

// loadTrace reads a trace file, or stdin for "-", one event at a time
// (traceview.Load): a trace of any size is summarized in memory that grows
// with its spans, not its bytes.
func loadTrace(env *cmdenv.Env, path string, timeline bool) (*traceview.Trace, error) {
	var r io.Reader = env.Stdin
	name := "stdin"
	if path != "-" {
		fh, err := os.Open(path)
		if err != nil {
			return nil, cmdenv.UsageError(fmt.Errorf("trace: %w", err))
		}
		defer fh.Close()
		r, name = fh, path
	}
	t, err := traceview.Load(env.Ctx, r, traceview.LoadOptions{Timeline: timeline})
	if err != nil {
		if env.Ctx.Err() != nil {
			return nil, cmdenv.InterruptedError(env.Ctx)
		}
		return nil, cmdenv.UsageError(fmt.Errorf("trace: %s: %w", name, err))
	}
	return t, nil
}

// workloadFlags are the flags that choose a workload and its pool.
type workloadFlags struct {
	name    string
	size    int
	cutoff  int
	leaf    time.Duration
	workers int
}

func (wf *workloadFlags) add(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&wf.name, "workload", "fib", "fib, uts or tree")
	f.IntVar(&wf.size, "size", 0, "fib: n (default 30); uts: root children b0 (default 2000); tree: depth (default 6)")
	f.IntVar(&wf.cutoff, "cutoff", 0, "fib: run serially below this n (default: fork at every call)")
	f.DurationVar(&wf.leaf, "leaf", 0, "tree: busy-wait of each leaf (default 100µs)")
	f.IntVarP(&wf.workers, "workers", "w", 0, fmt.Sprintf("pool workers, at most %d (default GOMAXPROCS)", bench.MaxWorkers))
}

func (wf *workloadFlags) workload(cmd *cobra.Command) (*traceview.Workload, error) {
	size := wf.size
	if !cmd.Flags().Changed("size") {
		size = map[string]int{"fib": 30, "uts": 2000, "tree": 6}[wf.name]
	}
	wl, err := traceview.NewWorkload(traceview.WorkloadSpec{Name: wf.name, Size: size, Cutoff: wf.cutoff, Leaf: wf.leaf})
	if err != nil {
		return nil, cmdenv.UsageError(fmt.Errorf("trace: --workload %s --size %d: %w", wf.name, size, err))
	}
	if wf.workers < 0 || wf.workers > bench.MaxWorkers {
		return nil, cmdenv.UsageError(fmt.Errorf("trace: --workers %d: want 0 (GOMAXPROCS) to %d", wf.workers, bench.MaxWorkers))
	}
	return wl, nil
}

// runOnPool runs fn (a workload on a pool, which takes no ctx) and returns
// its error, or the interruption as soon as ctx is done: the run is then
// abandoned, to end with the process.
func runOnPool(ctx context.Context, fn func() error) error {
	done := make(chan error, 1)
	go func() { done <- fn() }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return cmdenv.InterruptedError(ctx)
	}
}

// maxTraceEvents bounds the events trace record keeps in all workers'
// rings (--ring × workers): 256 MiB of rings and 512 MiB of snapshot.
const maxTraceEvents = 1 << 24

// traceRecordFlags are "trace record"'s own flags.
type traceRecordFlags struct {
	out, svg      string
	ring          int
	counters, pin bool
}

func newTraceRecordCommand(env *cmdenv.Env) *cobra.Command {
	var wf workloadFlags
	var f traceRecordFlags
	cmd := &cobra.Command{
		Use:   "record",
		Short: "Run a workload on a pool with the event trace on and write the trace",
		Long: `record runs one of the fork-join workloads (fib and uts as in "worksteal
bench", or a balanced tree of busy-waiting leaves) once on a pool of
--workers with Config.Trace set to --ring events per worker, checks the
result, and writes the pool's trace as Chrome trace-event JSON (-o), which
"worksteal trace FILE" summarizes and https://ui.perfetto.dev opens. A ring
that wraps drops its oldest events; the command says how many.

The output files are opened before the run: a path that cannot be written
fails at once. Interrupted (SIGINT, SIGTERM), the command stops at once and
removes the files it had created.`,
		Example: `  worksteal trace record --workload fib --size 30 --workers 2 -o trace.json
  worksteal trace record --workload uts --size 2000 -w 2 -o uts.json --svg uts.svg`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runTraceRecord(env, cmd, &wf, &f)
		},
	}
	wf.add(cmd)
	cmd.Flags().StringVarP(&f.out, "output", "o", "trace.json", "write the trace to this file")
	cmd.Flags().StringVar(&f.svg, "svg", "", "also draw the timeline as SVG to this file")
	cmd.Flags().IntVar(&f.ring, "ring", 1<<16, "events kept per worker (Config.Trace)")
	cmd.Flags().BoolVar(&f.counters, "counters", false, "print the run's hardware and kernel counters and energy (Config.Counters); with --pin, each worker's too")
	cmd.Flags().BoolVar(&f.pin, "pin", false, "lock each worker to an OS thread bound to a CPU (Config.Pin; Linux)")
	return cmd
}

// runTraceRecord is "trace record": check the flags, open the outputs, run
// the workload once with the trace on, report, write the trace (and its
// timeline).
func runTraceRecord(env *cmdenv.Env, cmd *cobra.Command, wf *workloadFlags, f *traceRecordFlags) error {
	wl, err := wf.workload(cmd)
	if err != nil {
		return err
	}
	workers := wf.workers
	if workers == 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	if f.ring < 1 || f.ring > maxTraceEvents/workers {
		return cmdenv.UsageError(fmt.Errorf("trace record: --ring %d: want 1 to %d events per worker (at most %d in all on %d workers: 16 bytes each in the rings, 32 in the snapshot)",
			f.ring, maxTraceEvents/workers, maxTraceEvents, workers))
	}
	var outs cmdenv.Outputs
	defer func() { outs.Abort() }() // outs grows below
	traceOut, err := outs.Open(cmd.CommandPath()+" --output", f.out)
	if err != nil {
		return err
	}
	svgOut, err := outs.Open(cmd.CommandPath()+" --svg", f.svg)
	if err != nil {
		return err
	}
	pool, err := worksteal.New(worksteal.Config{Workers: wf.workers, Trace: f.ring, Counters: f.counters, Pin: f.pin})
	if err != nil {
		return cmdenv.UsageError(err)
	}
	var v uint64
	var elapsed time.Duration
	err = runOnPool(env.Ctx, func() error {
		t0 := time.Now()
		var err error
		v, err = worksteal.Run(pool, wl.Run)
		elapsed = time.Since(t0)
		return err
	})
	if env.Ctx.Err() != nil {
		return cmdenv.InterruptedError(env.Ctx) // the pool is left to the process's end
	}
	tr := pool.Trace()
	if cerr := pool.Close(); err == nil {
		err = cerr
	}
	stats := pool.Stats()
	if err != nil {
		return err
	}
	if want := wl.Want(); v != want {
		return fmt.Errorf("trace: %s computed %d; want %d", wl, v, want)
	}
	var events int
	var dropped uint64
	for i := range tr.Workers {
		events += len(tr.Workers[i])
		dropped += tr.Dropped[i]
	}
	w := cmd.OutOrStdout()
	fmt.Fprintf(w, "%s = %d on %d workers in %v; trace: %d events, %d dropped (ring %d per worker)\n",
		wl, v, len(tr.Workers), elapsed.Round(time.Microsecond), events, dropped, f.ring)
	if dropped > 0 {
		fmt.Fprintf(w, "the rings wrapped: raise --ring to keep the whole run\n")
	}
	if f.counters {
		cmdenv.WriteRunCounters(w, stats)
	}
	if err := traceOut.Write(tr.WriteChrome); err != nil {
		return err
	}
	fmt.Fprintf(env.Stderr, "wrote %s\n", f.out)
	if svgOut == nil {
		return nil
	}
	title := fmt.Sprintf("%s on %d workers: %s", wl, len(tr.Workers), elapsed.Round(time.Microsecond))
	if err := writeTimeline(env, svgOut, tr, title); err != nil {
		return err
	}
	fmt.Fprintf(env.Stderr, "wrote %s\n", f.svg)
	return nil
}

// writeTimeline draws tr's timeline as SVG into out, titled title and the
// run's utilization. The trace goes through a pipe into the compact form, as
// a file would: never whole in memory as JSON.
func writeTimeline(env *cmdenv.Env, out *cmdenv.OutputFile, tr *worksteal.Trace, title string) error {
	pr, pw := io.Pipe()
	go func() { pw.CloseWithError(tr.WriteChrome(pw)) }()
	t, err := traceview.Load(env.Ctx, pr, traceview.LoadOptions{Timeline: true})
	pr.CloseWithError(io.ErrClosedPipe) // unblocks the writer if Load stopped early
	if err != nil {
		if env.Ctx.Err() != nil {
			return cmdenv.InterruptedError(env.Ctx)
		}
		return err
	}
	s := t.Summary(traceview.Options{})
	title = fmt.Sprintf("%s, utilization %.1f%%", title, 100*s.Utilization())
	return out.Write(func(w io.Writer) error {
		return t.WriteSVG(w, s, traceview.SVGOptions{Title: title})
	})
}

func newTraceProfileCommand(env *cmdenv.Env) *cobra.Command {
	var wf workloadFlags
	var out string
	var runs int
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "profile",
		Short: "Measure the work T1 and span T∞ of a workload and predict its speedup",
		Long: `profile runs a workload under worksteal.Profile, which times every strand of
the fork-join computation: it prints the work T1, the span T∞ (the critical
path through forks and joins), the burdened span (T∞ plus the measured cost
of each steal on the path), the parallelism T1/T∞ and the speedup range they
predict for P = 1, 2, 4 … 1,024 workers, like OpenCilk's Cilkscale.

Strands are timed on the wall clock, so a strand whose thread another
process preempts grows, and the span with it: profile on an idle machine,
or use --runs N to profile N times and keep the run with the shortest span
(the DAG is the same each time; disturbances only lengthen it). -o/--output
writes the profile as JSON, which "worksteal sim --profile FILE" simulates
at P = 1 … 1,024 to predict the makespan. The output file is opened before
the runs; interrupted, the command stops at once and removes it.`,
		Example: `  worksteal trace profile --workload fib --size 30 --cutoff 12
  worksteal trace profile --workload tree --size 6 --leaf 200us -o tree.json
  worksteal sim --profile tree.json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runTraceProfile(env, cmd, &wf, out, runs, asJSON)
		},
	}
	wf.add(cmd)
	f := cmd.Flags()
	f.StringVarP(&out, "output", "o", "", "write the profile as JSON to this file (input of worksteal sim --profile)")
	// --out was this flag's name before every trace subcommand said --output.
	f.StringVar(&out, "out", "", "")
	_ = f.MarkDeprecated("out", "use -o/--output")
	f.IntVar(&runs, "runs", 1, "profile this many times and keep the run with the shortest span")
	f.BoolVar(&asJSON, "json", false, "print the profile as JSON")
	return cmd
}

// runTraceProfile is "trace profile": profile the workload runs times, keep
// the run with the shortest span, write and print its profile.
func runTraceProfile(env *cmdenv.Env, cmd *cobra.Command, wf *workloadFlags, out string, runs int, asJSON bool) error {
	wl, err := wf.workload(cmd)
	if err != nil {
		return err
	}
	if runs < 1 {
		return cmdenv.UsageError(fmt.Errorf("trace: --runs must be at least 1, got %d", runs))
	}
	var outs cmdenv.Outputs
	defer func() { outs.Abort() }() // outs grows below
	profOut, err := outs.Open(cmd.CommandPath()+" --output", out)
	if err != nil {
		return err
	}
	best, v, err := profileShortest(env, wl, wf.workers, runs)
	if err != nil {
		return err
	}
	if want := wl.Want(); v != want {
		return fmt.Errorf("trace: %s computed %d; want %d", wl, v, want)
	}
	prof := profileOf(wl.String(), best)
	if profOut != nil {
		err := profOut.Write(func(w io.Writer) error {
			enc := json.NewEncoder(w)
			enc.SetIndent("", "  ")
			return enc.Encode(prof)
		})
		if err != nil {
			return err
		}
		fmt.Fprintf(env.Stderr, "wrote %s\n", out)
	}
	w := cmd.OutOrStdout()
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(prof)
	}
	fmt.Fprintf(w, "%s = %d\n%s", wl, v, best)
	return nil
}

// profileShortest profiles wl runs times on one pool of workers and returns
// the profile with the shortest span and the workload's value.
func profileShortest(env *cmdenv.Env, wl *traceview.Workload, workers, runs int) (worksteal.WorkSpan, uint64, error) {
	// Steal one: the schedules a burdened span describes (see
	// worksteal.WorkSpan.BurdenedSpan).
	pool, err := worksteal.New(worksteal.Config{Workers: workers, Steal: policy.StealOne})
	if err != nil {
		return worksteal.WorkSpan{}, 0, cmdenv.UsageError(err)
	}
	var best worksteal.WorkSpan
	var v uint64
	for i := 0; i < runs; i++ {
		var r uint64
		var ws worksteal.WorkSpan
		err := runOnPool(env.Ctx, func() error {
			var err error
			r, ws, err = worksteal.Profile(pool, wl.Run)
			return err
		})
		if env.Ctx.Err() != nil {
			return best, v, cmdenv.InterruptedError(env.Ctx) // the pool is left to the process's end
		}
		if err != nil {
			pool.Close()
			return best, v, err
		}
		if i == 0 || ws.Span < best.Span {
			best, v = ws, r
		}
	}
	pool.Close()
	return best, v, nil
}

// profileOf converts the runtime's profile to the simulator's input.
func profileOf(workload string, ws worksteal.WorkSpan) simfit.Profile {
	return simfit.Profile{
		Workload:     workload,
		Work:         sim.Seconds(ws.Work.Seconds()),
		Span:         sim.Seconds(ws.Span.Seconds()),
		BurdenedSpan: sim.Seconds(ws.BurdenedSpan.Seconds()),
		Forks:        ws.Forks,
		Steals:       ws.Steals,
		StealCost:    sim.Seconds(ws.StealCost.Seconds()),
		Workers:      ws.Workers,
		Elapsed:      sim.Seconds(ws.Elapsed.Seconds()),
	}
}

// workSpanOf converts a profile back, for its speedup bounds.
func workSpanOf(p *simfit.Profile) worksteal.WorkSpan {
	return worksteal.WorkSpan{
		Work: p.Work.Duration(), Span: p.Span.Duration(), BurdenedSpan: p.BurdenedSpan.Duration(),
		Forks: p.Forks, Steals: p.Steals, StealCost: p.StealCost.Duration(), Workers: p.Workers, Elapsed: p.Elapsed.Duration(),
	}
}

// ProfileRow is one line of "worksteal sim --profile".
type ProfileRow struct {
	Workers   int     `json:"workers"`
	SpeedupLo float64 `json:"profile_speedup_lo"` // greedy bound with the burdened span
	SpeedupHi float64 `json:"profile_speedup_hi"` // min(P, T1/T∞)
	Makespan  float64 `json:"sim_makespan"`       // seconds
	Speedup   float64 `json:"sim_speedup"`        // T1 / makespan
	Steals    int64   `json:"sim_steals"`
	Bound     float64 `json:"lower_bound"` // max(T1/P, T∞), seconds
}

// runSimProfile is "worksteal sim --profile FILE": it fits a fork-join DAG
// to the profile's T1 and T∞ and simulates it at P = 1, 2, 4 … 1,024 (or
// at --workers), beside the speedup range the profile itself predicts.
func runSimProfile(env *cmdenv.Env, cmd *cobra.Command, cfg simConfig, args []string) error {
	if len(args) > 0 || cfg.file != "" || cfg.sweep != "" {
		return cmdenv.UsageError(errors.New("sim: --profile replaces the preset, -f and --sweep"))
	}
	if cfg.svg != "" || cfg.trace != "" || cfg.csv || cfg.verbose || cfg.print {
		return cmdenv.UsageError(errors.New("sim: --profile prints a table (or --json); --svg, --trace, --csv, -v and --print-scenario need a scenario"))
	}
	ps := []int{1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024}
	fl := cmd.Flags()
	if fl.Changed("workers") {
		if cfg.workers < 1 || cfg.workers > simlab.MaxWorkers() {
			return cmdenv.UsageError(fmt.Errorf("sim: --workers must be between 1 and %d, got %d", simlab.MaxWorkers(), cfg.workers))
		}
		ps = []int{cfg.workers}
	}
	data, err := os.ReadFile(cfg.profile)
	if err != nil {
		return fmt.Errorf("sim: %w", err)
	}
	p, err := simfit.ParseProfile(data)
	if err != nil {
		return cmdenv.UsageError(fmt.Errorf("%s: %w", cfg.profile, err))
	}
	ws := workSpanOf(p)
	var fit simfit.ProfileFit
	var rows []ProfileRow
	for _, workers := range ps {
		s, f, err := simfit.FitProfile(*p, workers, 0)
		if err != nil {
			return cmdenv.UsageError(err)
		}
		fit = f
		if fl.Changed("seed") {
			s.Seed = cfg.seed
		}
		s.Policy.Scheduler, s.Policy.Victim, s.Policy.Amount, s.Policy.Idle.Mode = cfg.scheduler, cfg.victim, cfg.amount, cfg.idle
		res, err := sim.Run(env.Ctx, s, simlab.Options(sim.Options{}, cfg.maxEvents, false))
		if err != nil {
			return scenarioError("", err)
		}
		lo, hi := ws.SpeedupRange(workers)
		t := res.Report.Totals
		rows = append(rows, ProfileRow{Workers: workers, SpeedupLo: lo, SpeedupHi: hi, Makespan: t.Makespan,
			Speedup: float64(p.Work) / t.Makespan, Steals: t.Steals, Bound: res.Report.DAG.LowerBound})
	}
	out := cmd.OutOrStdout()
	if cfg.json {
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		return enc.Encode(struct {
			Profile *simfit.Profile   `json:"profile"`
			Fit     simfit.ProfileFit `json:"fit"`
			Rows    []ProfileRow      `json:"rows"`
		}{p, fit, rows})
	}
	name := p.Workload
	if name == "" {
		name = cfg.profile
	}
	sec := func(x sim.Seconds) time.Duration { return x.Duration() }
	fmt.Fprintf(out, "profile of %s (%d workers, profiled run %v): work T1 %v, span T∞ %v, burdened span %v, parallelism %.1f\n",
		name, p.Workers, sec(p.Elapsed).Round(time.Microsecond), sec(p.Work), sec(p.Span), sec(p.BurdenedSpan), p.Parallelism())
	fb := fit.Fib
	fmt.Fprintf(out, "simulated as a fib-like tree: n %d, cutoff %d, leaf %v per serial call, split %v, join %v;\n",
		fb.N, fb.Cutoff, fb.Leaf.Duration(), fb.Split.Duration(), fb.Join.Duration())
	fmt.Fprintf(out, "  %d forks, T1 %v, T∞ %v (within %.2g%% of the profile); steal latency %v (the profile's mean steal cost)\n\n",
		fit.Forks, fit.Work, fit.Span, 100*fit.RelError, sec(p.StealCost))
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "workers\tprofile speedup\tsim makespan\tsim speedup\tefficiency\tsteals\tmax(T1/P, T∞)\t")
	for _, r := range rows {
		fmt.Fprintf(tw, "%d\t%.2f .. %.2f\t%v\t%.2f\t%.1f%%\t%d\t%v\t\n", r.Workers, r.SpeedupLo, r.SpeedupHi,
			secDur(r.Makespan), r.Speedup, 100*r.Speedup/float64(r.Workers), r.Steals, secDur(r.Bound))
	}
	tw.Flush()
	fmt.Fprintln(out, "\nprofile speedup: T1/(T1/P + burdened T∞) .. min(P, T1/T∞); sim: the simulated makespan of the fitted tree.")
	return nil
}

// secDur rounds seconds to a readable duration.
func secDur(s float64) time.Duration {
	d := time.Duration(s * 1e9)
	switch {
	case d >= time.Second:
		return d.Round(time.Millisecond)
	case d >= time.Millisecond:
		return d.Round(time.Microsecond)
	}
	return d.Round(10 * time.Nanosecond)
}
