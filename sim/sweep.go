package sim

import (
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
)

// sweepParams are the parameters a [sweepSpec] can vary, and what a value means:
//
//	workers    worker count
//	grain      (or granularity) mean task duration in seconds (kind tasks; with workload.total
//	           the number of tasks follows), or the cutoff (kind fib)
//	victim     victim policy (random, round-robin, largest, two-choices, locality)
//	amount     steal amount (one, half)
//	max_batch  cap of one steal-half (-1: none; 0: the runtime's 32)
//	join       join protocol (latent, eager)
//	join_wait  what a worker does at a fork whose half was stolen (stack: the runtime's, any: greedy)
//	eager_depth  join latent: levels near the root of a worker's stack that fork eagerly (0: the runtime's, -1: none)
//	idle       idle mode (backoff, poll, spin, park)
//	backoff    "off" (spin, no backoff), or the first backoff delay in seconds
//	spawn      spawn probability
//	straggler  worker 0 is this many times slower for the whole run
//	scheduler  steal, central, static, round-robin, lpt
//	tasks      number of root tasks
//	seed       the seed
var sweepParams = []string{"workers", "grain", "victim", "amount", "max_batch", "join", "join_wait", "eager_depth", "idle", "backoff", "spawn", "straggler", "scheduler", "tasks", "seed"}

func checkSweep(sw *sweepSpec) *FieldError {
	if sw.Param == "granularity" { // the word for it
		sw.Param = "grain"
	}
	if !slices.Contains(sweepParams, sw.Param) {
		return oneOf("sweep.param", sw.Param, sweepParams...)
	}
	if len(sw.Values) == 0 {
		return ferr("sweep.values", "needs at least one value")
	}
	if len(sw.Values) > maxSweepValues {
		return ferr("sweep.values", "at most %d values, got %d", maxSweepValues, len(sw.Values))
	}
	return nil
}

// maxSweepValues bounds the values of one sweep.
const maxSweepValues = 1000

// parseSweep reads a sweep given as "param=v1,v2,...", with "a..b" for a
// range of integers (workers=2..8).
func parseSweep(spec string) (*sweepSpec, error) {
	p, vals, ok := strings.Cut(spec, "=")
	if !ok || p == "" || vals == "" {
		return nil, fmt.Errorf("sim: sweep %q: want param=v1,v2,... (params: %s)", spec, strings.Join(sweepParams, ", "))
	}
	sw := &sweepSpec{Param: strings.TrimSpace(p)}
	for _, v := range strings.Split(vals, ",") {
		v = strings.TrimSpace(v)
		if a, b, ok := strings.Cut(v, ".."); ok {
			lo, err1 := strconv.Atoi(strings.TrimSpace(a))
			hi, err2 := strconv.Atoi(strings.TrimSpace(b))
			switch {
			case err1 != nil || err2 != nil:
				return nil, fmt.Errorf("sim: sweep range %q: want lo..hi with integers lo and hi", v)
			case hi < lo:
				return nil, fmt.Errorf("sim: sweep range %q is reversed (%d > %d): write %d..%d", v, lo, hi, hi, lo)
			case hi-lo >= maxSweepValues:
				return nil, fmt.Errorf("sim: sweep range %q has %d values; a sweep holds at most %d", v, hi-lo+1, maxSweepValues)
			}
			if len(sw.Values)+hi-lo+1 > maxSweepValues {
				return nil, fmt.Errorf("sim: sweep %q has more than %d values", spec, maxSweepValues)
			}
			for i := lo; i <= hi; i++ {
				sw.Values = append(sw.Values, strconv.Itoa(i))
			}
			continue
		}
		sw.Values = append(sw.Values, v)
	}
	if err := checkSweep(sw); err != nil {
		return nil, err
	}
	return sw, nil
}

// apply sets the sweep parameter of s (not yet normalized) to value v.
func applySweep(s *Scenario, param, v string, path string) error {
	num := func() (float64, error) {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return 0, ferr(path, "%s wants a number, got %q", param, v)
		}
		return f, nil
	}
	integer := func() (int, error) {
		i, err := strconv.Atoi(v)
		if err != nil {
			return 0, ferr(path, "%s wants an integer, got %q", param, v)
		}
		return i, nil
	}
	switch param {
	case "workers":
		n, err := integer()
		if err != nil {
			return err
		}
		if n < 1 || n > maxWorkers {
			return ferr(path, "workers must be between 1 and %d, got %d", maxWorkers, n)
		}
		s.Workers.Count = n
		if len(s.Workers.Speeds) > n && n >= 0 {
			s.Workers.Speeds = s.Workers.Speeds[:n]
		}
		if len(s.Workers.Groups) > n && n >= 0 {
			s.Workers.Groups = s.Workers.Groups[:n]
		}
	case "grain":
		if s.Workload.Kind == kindFib {
			n, err := integer()
			if err != nil {
				return err
			}
			s.Workload.Fib.Cutoff = n
			return nil
		}
		g, err := num()
		if err != nil {
			return err
		}
		if !(g > 0) {
			return ferr(path, "grain must be positive, got %v", g)
		}
		d := &s.Workload.Duration
		if err := d.normalize("workload.duration"); err != nil {
			return err
		}
		if d.Dist == distConstant {
			d.Value = Seconds(g)
			return nil
		}
		f := g / d.mean()
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return ferr(path, "cannot scale a duration with mean 0")
		}
		for _, x := range []*Seconds{&d.Value, &d.Min, &d.Max, &d.Mean, &d.Short, &d.Long} {
			*x = Seconds(float64(*x) * f)
		}
	case "victim":
		s.Policy.Victim = v
	case "amount":
		s.Policy.Amount = v
	case "join":
		s.Policy.Join = v
	case "join_wait":
		s.Policy.JoinWait = v
	case "max_batch":
		n, err := integer()
		if err != nil {
			return err
		}
		s.Policy.MaxBatch = n
	case "eager_depth":
		n, err := integer()
		if err != nil {
			return err
		}
		s.Policy.EagerDepth = n
	case "idle":
		s.Policy.Idle.Mode = v
	case "backoff":
		if v == "off" || v == "none" {
			s.Policy.Idle.Mode = idleSpin
			return nil
		}
		b, err := num()
		if err != nil {
			return err
		}
		id := &s.Policy.Idle
		id.Mode, id.Base = idleBackoff, Seconds(b)
		if id.Cap < id.Base*64 {
			id.Cap = id.Base * 64
		}
	case "spawn":
		p, err := num()
		if err != nil {
			return err
		}
		s.Workload.Spawn.Prob = p
	case "straggler":
		f, err := num()
		if err != nil {
			return err
		}
		if !(f >= 1) {
			return ferr(path, "straggler wants a slowdown of at least 1, got %v", f)
		}
		if f > 1 {
			s.Faults = append(slices.Clip(s.Faults), Fault{Kind: faultSlow, Worker: 0, Factor: 1 / f})
		}
	case "scheduler":
		s.Policy.Scheduler = v
	case "tasks":
		n, err := integer()
		if err != nil {
			return err
		}
		if n < 1 {
			return ferr(path, "tasks must be at least 1, got %d", n)
		}
		s.Workload.Tasks, s.Workload.Total = n, 0
	case "seed":
		u, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			return ferr(path, "seed wants a non-negative integer, got %q", v)
		}
		s.Seed = u
	}
	return nil
}

// sweepResult is one report per value of the swept parameter.
type sweepResult struct {
	Name    string
	Param   string
	Values  []string
	Reports []Report
}

// runSweep runs s once per value of s.Sweep (which must be set), changing
// only that parameter, and collects the reports in value order. A value that
// makes the scenario invalid is an error naming "sweep.values[i]" and the
// field it broke. Options apply to every run.
func runSweep(ctx context.Context, s Scenario, o Options) (*sweepResult, error) {
	if s.sweep == nil {
		return nil, ferr("sweep", "scenario has no sweep")
	}
	sw := *s.sweep
	if err := checkSweep(&sw); err != nil {
		return nil, s.locate(err)
	}
	res := &sweepResult{Name: s.Name, Param: sw.Param, Values: slices.Clone(sw.Values)}
	for i, v := range sw.Values {
		c := s
		c.sweep = nil
		c.Workers.Speeds = slices.Clone(s.Workers.Speeds)
		c.Workers.Groups = slices.Clone(s.Workers.Groups)
		c.Faults = slices.Clone(s.Faults)
		path := fmt.Sprintf("sweep.values[%d]", i)
		if err := applySweep(&c, sw.Param, v, path); err != nil {
			if fe, ok := err.(*FieldError); ok {
				return nil, s.locate(fe)
			}
			return nil, err
		}
		r, err := Run(ctx, c, o)
		if err != nil {
			if fe, ok := err.(*FieldError); ok {
				return nil, s.locate(ferr(path, "%s=%s: %s: %s", sw.Param, v, fe.Path, fe.Msg))
			}
			return nil, err
		}
		res.Reports = append(res.Reports, r.Report)
	}
	return res, nil
}

// sweepColumns are the columns of a sweep table.
var sweepColumns = []struct {
	name string
	get  func(r *Report) float64
	fmt  func(float64) string
}{
	{"makespan", func(r *Report) float64 { return r.Totals.Makespan }, fmtSec},
	{"speedup", func(r *Report) float64 { return r.Totals.Speedup }, f3},
	{"efficiency", func(r *Report) float64 { return r.Totals.Efficiency }, pct},
	{"steal_rate", func(r *Report) float64 { return r.Totals.StealRate }, f3},
	{"attempts", func(r *Report) float64 { return float64(r.Totals.attempts) }, f0},
	{"idle", func(r *Report) float64 { return r.Totals.idle }, fmtSec},
	{"overhead", func(r *Report) float64 { return r.Totals.overhead }, fmtSec},
	{"utilization", func(r *Report) float64 { return r.Totals.Utilization }, pct},
	{"imbalance", func(r *Report) float64 { return r.Totals.Imbalance }, f3},
	{"completion", func(r *Report) float64 { return r.Totals.completion }, pct},
}

func f3(x float64) string { return strconv.FormatFloat(x, 'f', 3, 64) }
func f0(x float64) string { return strconv.FormatFloat(x, 'f', 0, 64) }

// WriteTable writes the sweep as a text table, one row per value.
func (sr *sweepResult) WriteTable(w io.Writer) error {
	var b strings.Builder
	if sr.Name != "" {
		fmt.Fprintf(&b, "%s: ", sr.Name)
	}
	fmt.Fprintf(&b, "sweep of %s", sr.Param)
	if len(sr.Reports) > 0 {
		fmt.Fprintf(&b, " (%s; %s)", sr.Reports[0].policyDesc, sr.Reports[0].workloadDesc)
	}
	b.WriteString("\n\n")
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, sr.Param, "\t")
	for _, c := range sweepColumns {
		fmt.Fprint(tw, c.name, "\t")
	}
	fmt.Fprintln(tw)
	for i, r := range sr.Reports {
		fmt.Fprint(tw, sr.Values[i], "\t")
		for _, c := range sweepColumns {
			fmt.Fprint(tw, c.fmt(c.get(&r)), "\t")
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
	_, err := io.WriteString(w, trimLines(b.String()))
	return err
}

// WriteCSV writes the sweep as CSV with a header row; times in seconds.
func (sr *sweepResult) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	head := []string{sr.Param}
	for _, c := range sweepColumns {
		head = append(head, c.name)
	}
	cw.Write(head)
	for i, r := range sr.Reports {
		row := []string{sr.Values[i]}
		for _, c := range sweepColumns {
			row = append(row, strconv.FormatFloat(c.get(&r), 'g', 8, 64))
		}
		cw.Write(row)
	}
	cw.Flush()
	return cw.Error()
}
