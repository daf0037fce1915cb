package sim

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/worksteal/worksteal/internal/policyrt"
	"github.com/worksteal/worksteal/policy"
)

// FieldError is a scenario error tied to one field. Path names the field as
// it is spelled in a scenario file ("workload.duration.dist", "faults[1].at");
// Line is the line of the field in the file it came from, or 0 when unknown.
type FieldError struct {
	Path string
	Line int
	Msg  string
}

// Error formats the error as "sim: line N: path: message".
func (e *FieldError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("sim: line %d: %s: %s", e.Line, e.Path, e.Msg)
	}
	return fmt.Sprintf("sim: %s: %s", e.Path, e.Msg)
}

func ferr(path, format string, args ...any) *FieldError {
	return &FieldError{Path: path, Msg: fmt.Sprintf(format, args...)}
}

// choose gives an enumerated field its default, names[0], when it is empty,
// then checks it is one of names.
func choose(path string, v *string, names ...string) *FieldError {
	if *v == "" {
		*v = names[0]
	}
	if !slices.Contains(names, *v) {
		return oneOf(path, *v, names...)
	}
	return nil
}

func oneOf(path, got string, names ...string) *FieldError {
	return ferr(path, "unknown value %q (want one of %s)", got, strings.Join(names, ", "))
}

// Normalize returns a copy of s with every default filled in, or the first
// invalid field as a [*FieldError]. [Run] normalizes its scenario itself.
func (s Scenario) Normalize() (Scenario, error) {
	n := s
	if err := n.normalize(); err != nil {
		return s, s.locate(err)
	}
	return n, nil
}

// maxWorkers bounds a scenario's worker count. A simulated worker costs
// O(1) memory (a few hundred bytes with its queue and victim selector), so
// the bound keeps a mistyped count from exhausting memory rather than
// reflecting a limit of the model.
const maxWorkers = 1 << 17

func (s *Scenario) normalize() *FieldError {
	if err := s.Workers.normalize(); err != nil {
		return err
	}
	if err := s.Workload.normalize(s.Workers.Count); err != nil {
		return err
	}
	if err := s.Policy.normalize(&s.Costs); err != nil {
		return err
	}
	if err := s.Costs.check(); err != nil {
		return err
	}
	for i := range s.Faults {
		if err := s.Faults[i].check(fmt.Sprintf("faults[%d]", i), s.Workers.Count); err != nil {
			return err
		}
	}
	if s.Limit < 0 || math.IsNaN(float64(s.Limit)) {
		return ferr("limit", "must not be negative, got %v", s.Limit)
	}
	if s.sweep != nil {
		if err := checkSweep(s.sweep); err != nil {
			return err
		}
	}
	return nil
}

// normalize fills the worker count (default 4), one speed and one group per
// worker.
func (w *Workers) normalize() *FieldError {
	if w.Count == 0 {
		w.Count = 4
	}
	if w.Count < 1 || w.Count > maxWorkers {
		return ferr("workers.count", "must be between 1 and %d, got %d", maxWorkers, w.Count)
	}
	if len(w.Speeds) > w.Count {
		return ferr("workers.speeds", "has %d entries for %d workers", len(w.Speeds), w.Count)
	}
	sp := make([]float64, w.Count)
	for i := range sp {
		sp[i] = 1
		if i < len(w.Speeds) {
			sp[i] = w.Speeds[i]
			if !(sp[i] > 0) || math.IsInf(sp[i], 0) {
				return ferr(fmt.Sprintf("workers.speeds[%d]", i), "must be a positive number, got %v", sp[i])
			}
		}
	}
	w.Speeds = sp
	if len(w.Groups) > w.Count {
		return ferr("workers.groups", "has %d entries for %d workers", len(w.Groups), w.Count)
	}
	if w.GroupSize < 0 {
		return ferr("workers.group_size", "must not be negative, got %d", w.GroupSize)
	}
	if w.GroupSize > 0 && len(w.Groups) > 0 {
		return ferr("workers.group_size", "cannot be combined with workers.groups")
	}
	gr := make([]int, w.Count)
	for i := range gr {
		switch {
		case i < len(w.Groups):
			gr[i] = w.Groups[i]
			if gr[i] < 0 || gr[i] >= w.Count {
				return ferr(fmt.Sprintf("workers.groups[%d]", i), "must be in [0, %d), got %d", w.Count, gr[i])
			}
		case w.GroupSize > 0:
			gr[i] = i / w.GroupSize
		}
	}
	w.Groups, w.GroupSize = gr, 0
	return nil
}

func checkSec(path string, v Seconds) *FieldError {
	if v < 0 || math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
		return ferr(path, "must be a non-negative time, got %v", float64(v))
	}
	return nil
}

func (wl *Workload) normalize(workers int) *FieldError {
	if err := checkSec("workload.poll", wl.Poll); err != nil {
		return err
	}
	if err := choose("workload.kind", &wl.Kind, kindTasks, kindFib, kindUTS, kindTree); err != nil {
		return err
	}
	if err := wl.Duration.normalize("workload.duration"); err != nil {
		return err
	}
	if wl.Tasks < 0 {
		return ferr("workload.tasks", "must not be negative, got %d", wl.Tasks)
	}
	if err := checkSec("workload.total", wl.Total); err != nil {
		return err
	}
	if err := wl.Arrival.normalize(workers); err != nil {
		return err
	}
	if wl.Arrival.Pattern == arriveBursts {
		sum := 0
		for _, b := range wl.Arrival.Bursts {
			sum += b.Tasks
		}
		if wl.Kind == kindTasks && wl.Tasks != 0 && wl.Tasks != sum {
			return ferr("workload.tasks", "is %d but the bursts hold %d tasks", wl.Tasks, sum)
		}
		wl.Tasks = sum
	}
	switch wl.Kind {
	case kindTasks:
		if err := wl.normalizeTasks(); err != nil {
			return err
		}
	case kindFib:
		if err := wl.Fib.normalize(); err != nil {
			return err
		}
	case kindUTS:
		if err := wl.UTS.normalize(); err != nil {
			return err
		}
	case kindTree:
		t := &wl.Tree
		if err := param("workload.tree.depth", &t.Depth, 6, 1, 20, false); err != nil {
			return err
		}
		if err := checkSec("workload.tree.node", t.Node); err != nil {
			return err
		}
	}
	if wl.Kind != kindTasks {
		if wl.Tasks == 0 {
			wl.Tasks = 1
		}
		if wl.Tasks > 1024 {
			return ferr("workload.tasks", "kind %s runs at most 1024 trees, got %d", wl.Kind, wl.Tasks)
		}
	}
	return nil
}

// normalize checks the arrival pattern, its targets and its bursts.
func (a *Arrival) normalize(workers int) *FieldError {
	if err := choose("workload.arrival.pattern", &a.Pattern, arriveStart, arriveBursts, arrivePoisson); err != nil {
		return err
	}
	if a.Pattern == arriveBursts && len(a.Bursts) == 0 {
		return ferr("workload.arrival.bursts", "pattern bursts needs at least one burst")
	}
	if err := checkTarget("workload.arrival.target", &a.Target, true); err != nil {
		return err
	}
	if a.Worker < 0 || a.Worker >= workers {
		return ferr("workload.arrival.worker", "must be in [0, %d), got %d", workers, a.Worker)
	}
	if a.Pattern == arrivePoisson && !(a.Rate > 0 && !math.IsInf(a.Rate, 0)) {
		return ferr("workload.arrival.rate", "pattern poisson needs a positive rate, got %v", a.Rate)
	}
	if a.Pattern != arriveBursts {
		return nil
	}
	for i := range a.Bursts {
		b := &a.Bursts[i]
		p := fmt.Sprintf("workload.arrival.bursts[%d]", i)
		if err := checkSec(p+".at", b.At); err != nil {
			return err
		}
		if b.Tasks < 0 || b.Tasks > 1<<28 {
			return ferr(p+".tasks", "must be between 0 and %d, got %d", 1<<28, b.Tasks)
		}
		if b.Worker < 0 || b.Worker >= workers {
			return ferr(p+".worker", "must be in [0, %d), got %d", workers, b.Worker)
		}
		if err := checkTarget(p+".target", &b.Target, false); err != nil {
			return err
		}
		if b.Duration != nil {
			d := *b.Duration
			if err := d.normalize(p + ".duration"); err != nil {
				return err
			}
			b.Duration = &d
		}
	}
	return nil
}

// normalizeTasks sets the number of independent tasks: Tasks, or Total
// divided by the mean duration. Normalize keeps Total, so a normalized
// workload has both, consistent, and normalizes again to itself.
func (wl *Workload) normalizeTasks() *FieldError {
	if wl.Total > 0 {
		if wl.Arrival.Pattern == arriveBursts {
			return ferr("workload.total", "cannot be combined with bursts")
		}
		m := wl.Duration.mean()
		if !(m > 0) {
			return ferr("workload.total", "needs a duration with a positive mean")
		}
		n := math.Round(float64(wl.Total) / m)
		if n > 1<<28 {
			return ferr("workload.total", "makes %v tasks, more than %d", n, 1<<28)
		}
		k := max(1, int(n))
		if wl.Tasks != 0 && wl.Tasks != k {
			return ferr("workload.total", "makes %d tasks of mean %s, but workload.tasks is %d (give one of them)", k, fmtSec(m), wl.Tasks)
		}
		wl.Tasks = k
	}
	if wl.Tasks == 0 && wl.Arrival.Pattern != arriveBursts {
		wl.Tasks = 1
	}
	if wl.Tasks > 1<<28 {
		return ferr("workload.tasks", "must be at most %d, got %d", 1<<28, wl.Tasks)
	}
	return wl.Spawn.normalize()
}

// normalize fills the fib tree's defaults and checks its size.
func (f *Fib) normalize() *FieldError {
	if err := param("workload.fib.n", &f.N, 20, 0, 60, false); err != nil {
		return err
	}
	if f.Cutoff == 0 {
		f.Cutoff = 10
	}
	if f.Cutoff < 2 {
		return ferr("workload.fib.cutoff", "must be at least 2, got %d", f.Cutoff)
	}
	if f.N-f.Cutoff > 30 {
		return ferr("workload.fib.cutoff", "n - cutoff must be at most 30 (too many tasks), got %d", f.N-f.Cutoff)
	}
	for _, c := range []struct {
		p string
		v *Seconds
	}{{"workload.fib.leaf", &f.Leaf}, {"workload.fib.split", &f.Split}, {"workload.fib.join", &f.Join}} {
		if err := checkSec(c.p, *c.v); err != nil {
			return err
		}
	}
	if f.Leaf == 0 {
		f.Leaf = 10e-9
	}
	if f.Split == 0 {
		f.Split = f.Leaf
	}
	if f.Join == 0 {
		f.Join = f.Leaf
	}
	return nil
}

func checkTarget(path string, t *string, fill bool) *FieldError {
	switch *t {
	case "":
		if fill {
			*t = targetOne
		}
	case targetOne, targetRandom, targetRoundRobin:
	default:
		return oneOf(path, *t, targetOne, targetRandom, targetRoundRobin)
	}
	return nil
}

func (d *Dist) normalize(p string) *FieldError {
	for _, c := range []struct {
		n string
		v Seconds
	}{{"value", d.Value}, {"min", d.Min}, {"max", d.Max}, {"mean", d.Mean}, {"short", d.Short}, {"long", d.Long}} {
		if err := checkSec(p+"."+c.n, c.v); err != nil {
			return err
		}
	}
	switch d.Dist {
	case "":
		d.Dist = distConstant
		if d.Value == 0 {
			d.Value = 1
		}
	case distConstant:
	case distUniform:
		if d.Max < d.Min {
			return ferr(p+".max", "is below min (%v < %v)", float64(d.Max), float64(d.Min))
		}
	case distExponential:
		if d.Mean == 0 {
			return ferr(p+".mean", "exponential needs a positive mean")
		}
	case distLognormal:
		if d.Mean == 0 {
			return ferr(p+".mean", "lognormal needs a positive mean")
		}
		if err := param(p+".sigma", &d.Sigma, 1, 0, 10, true); err != nil {
			return err
		}
	case distPareto:
		if d.Min == 0 {
			return ferr(p+".min", "pareto needs a positive scale min")
		}
		if err := param(p+".alpha", &d.Alpha, 1.5, 0, 100, true); err != nil {
			return err
		}
		if d.Max != 0 && d.Max < d.Min {
			return ferr(p+".max", "is below min (%v < %v)", float64(d.Max), float64(d.Min))
		}
	case distBimodal:
		if err := param(p+".long_frac", &d.LongFrac, 0.1, 0, 1, false); err != nil {
			return err
		}
	default:
		return oneOf(p+".dist", d.Dist, distConstant, distUniform, distExponential, distLognormal, distPareto, distBimodal)
	}
	return nil
}

// param gives a scenario parameter its default when it is 0, then checks it
// lies in [lo, hi], or (lo, hi] when openLo. A NaN is never in range.
func param[T int | float64](path string, v *T, def, lo, hi T, openLo bool) *FieldError {
	if *v == 0 {
		*v = def
	}
	if openLo && !(*v > lo && *v <= hi) {
		return ferr(path, "must be in (%v, %v], got %v", lo, hi, *v)
	}
	if !openLo && !(*v >= lo && *v <= hi) {
		return ferr(path, "must be in [%v, %v], got %v", lo, hi, *v)
	}
	return nil
}

func (sp *Spawn) normalize() *FieldError {
	if err := param("workload.spawn.prob", &sp.Prob, 0, 0, 1, false); err != nil {
		return err
	}
	if err := param("workload.spawn.min", &sp.Min, 1, 1, 1000, false); err != nil {
		return err
	}
	if sp.Max == 0 {
		sp.Max = max(3, sp.Min)
	}
	if sp.Max < sp.Min || sp.Max > 1000 {
		return ferr("workload.spawn.max", "must be in [min, 1000], got %d", sp.Max)
	}
	if err := param("workload.spawn.at", &sp.At, 0, 0, 1, false); err != nil {
		return err
	}
	if err := param("workload.spawn.depth", &sp.Depth, 8, 1, 64, false); err != nil {
		return err
	}
	if sp.Duration != nil {
		d := *sp.Duration // a copy: presets and callers may share the pointer
		if err := d.normalize("workload.spawn.duration"); err != nil {
			return err
		}
		sp.Duration = &d
	}
	return nil
}

// UTS tree types and geometric shapes.
const (
	utsGeometric = "geometric"
	utsBinomial  = "binomial"
	utsHybrid    = "hybrid"
	utsSplitmix  = "splitmix"

	utsJoinSpawn  = "spawn"
	utsJoinBinary = "binary"

	shapeLinear = "linear"
	shapeExpDec = "exp-dec"
	shapeCyclic = "cyclic"
	shapeFixed  = "fixed"
)

func (u *UTS) normalize() *FieldError {
	if err := choose("workload.uts.type", &u.Type, utsGeometric, utsBinomial, utsHybrid, utsSplitmix); err != nil {
		return err
	}
	if err := choose("workload.uts.join", &u.Join, utsJoinSpawn, utsJoinBinary); err != nil {
		return err
	}
	if err := choose("workload.uts.shape", &u.Shape, shapeLinear, shapeExpDec, shapeCyclic, shapeFixed); err != nil {
		return err
	}
	if u.B0 == 0 {
		u.B0 = 4
	}
	if !(u.B0 > 0 && u.B0 <= 1e6) {
		return ferr("workload.uts.b0", "must be in (0, 1e6], got %v", u.B0)
	}
	if u.Join == utsJoinBinary && u.B0 > math.MaxInt16 {
		return ferr("workload.uts.b0", "must be at most %d with join binary, got %v", math.MaxInt16, u.B0)
	}
	if u.Join == utsJoinBinary && u.Type != utsBinomial && u.Type != utsSplitmix {
		// Its tasks' depth counts forks, and only these shapes do not
		// depend on a node's depth below the root.
		return ferr("workload.uts.join", "binary needs type binomial or splitmix, got %s", u.Type)
	}
	if err := param("workload.uts.depth", &u.Depth, 6, 1, 6000, false); err != nil {
		return err
	}
	if err := param("workload.uts.q", &u.Q, 0.124875, 0, 1, false); err != nil {
		return err
	}
	if err := param("workload.uts.m", &u.M, 8, 1, 100, false); err != nil {
		return err
	}
	if err := checkSec("workload.uts.node", u.Node); err != nil {
		return err
	}
	if u.Node == 0 {
		u.Node = 1e-6
	}
	if err := param("workload.uts.max_nodes", &u.MaxNodes, 10_000_000, 1, 1<<28, false); err != nil {
		return err
	}
	return nil
}

func (p *Policy) normalize(c *Costs) *FieldError {
	if err := choose("policy.scheduler", &p.Scheduler, schedSteal, schedCentral, schedStatic, schedRoundRobin, schedLPT); err != nil {
		return err
	}
	if p.Victim == "" {
		p.Victim = policy.Random.String()
	}
	v, err := policyrt.ParseVictim(p.Victim)
	if err != nil {
		return oneOf("policy.victim", p.Victim, "random", "round-robin", "largest", "adaptive", "two-choices", "locality")
	}
	p.Victim = v.String()
	if p.Amount == "" {
		p.Amount = policy.StealOne.String()
	}
	a, err := policyrt.ParseAmount(p.Amount)
	if err != nil {
		return oneOf("policy.amount", p.Amount, "one", "half")
	}
	p.Amount = a.String()
	if err := choose("policy.join", &p.Join, joinLatent, joinEager); err != nil {
		return err
	}
	if err := choose("policy.join_wait", &p.JoinWait, joinWaitStack, joinWaitAny); err != nil {
		return err
	}
	switch p.EagerWidens {
	case 0:
		p.EagerWidens = -1
		if policyrt.EagerWidens {
			p.EagerWidens = 1
		}
	case 1, -1:
	default:
		return ferr("policy.eager_widens", "must be 1 (on), -1 (off) or 0 (the runtime's), got %d", p.EagerWidens)
	}
	for _, k := range []struct {
		path, none string
		v          *int
		def        int
	}{
		{"policy.heartbeat", "none", &p.Heartbeat, runtimeHeartbeat},
		{"policy.eager_depth", "none", &p.EagerDepth, policyrt.EagerDepth},
		{"policy.latent_frames", "no limit", &p.LatentFrames, runtimeLatentFrames},
		{"policy.hungry_frames", "none", &p.HungryFrames, runtimeHungryFrames},
		{"policy.quiet_beats", "never", &p.QuietBeats, runtimeQuietBeats},
		{"policy.max_batch", "no cap", &p.MaxBatch, policy.MaxBatch},
	} {
		switch {
		case *k.v == 0:
			*k.v = k.def
		case *k.v < -1:
			return ferr(k.path, "must be -1 (%s), 0 (the runtime's %d) or positive, got %d", k.none, k.def, *k.v)
		}
	}
	id := &p.Idle
	if err := choose("policy.idle.mode", &id.Mode, idleBackoff, idlePoll, idleSpin, idlePark); err != nil {
		return err
	}
	for _, f := range []struct {
		n string
		v Seconds
	}{{"base", id.Base}, {"cap", id.Cap}, {"interval", id.Interval}} {
		if err := checkSec("policy.idle."+f.n, f.v); err != nil {
			return err
		}
	}
	if id.Rounds < 0 {
		return ferr("policy.idle.rounds", "must not be negative, got %d", id.Rounds)
	}
	if id.Attempts < 0 {
		return ferr("policy.idle.attempts", "must not be negative, got %d", id.Attempts)
	}
	if err := param("policy.idle.jitter", &id.Jitter, 0, 0, 1, false); err != nil {
		return err
	}
	pi, perr := policyrt.NormalizeIdle(id.policyIdle())
	if perr != nil {
		return ferr("policy.idle", "%v", strings.TrimPrefix(perr.Error(), "policy: "))
	}
	id.Rounds, id.Base, id.Cap, id.Jitter = pi.Rounds, Seconds(pi.Base.Seconds()), Seconds(pi.Cap.Seconds()), pi.Jitter
	if id.Interval == 0 {
		id.Interval = id.Base
	}
	if id.Mode == idleSpin && c.Steal.Duration() == 0 && c.Failed.Duration() == 0 && p.Scheduler == schedSteal {
		return ferr("policy.idle.mode", "spin needs costs.steal or costs.failed_steal above zero (or it never lets time pass)")
	}
	return nil
}

func (c *Costs) check() *FieldError {
	for _, f := range []struct {
		n string
		v Seconds
	}{{"task", c.Task}, {"steal", c.Steal}, {"move", c.Move}, {"failed_steal", c.Failed}, {"cross_group", c.CrossGroup},
		{"wake", c.Wake}, {"queue", c.Queue}, {"contention", c.Contention}, {"fork", c.Fork}, {"promote", c.Promote}} {
		if err := checkSec("costs."+f.n, f.v); err != nil {
			return err
		}
	}
	return nil
}

func (f *Fault) check(p string, workers int) *FieldError {
	if f.Worker < 0 || f.Worker >= workers {
		return ferr(p+".worker", "must be in [0, %d), got %d", workers, f.Worker)
	}
	if err := checkSec(p+".at", f.At); err != nil {
		return err
	}
	switch f.Kind {
	case faultSlow:
		if !(f.Factor > 0 && f.Factor <= 1e6) {
			return ferr(p+".factor", "must be a positive speed multiplier, got %v", f.Factor)
		}
		if err := checkSec(p+".until", f.Until); err != nil {
			return err
		}
		if f.Until != 0 && f.Until <= f.At {
			return ferr(p+".until", "must be after at (%v <= %v)", float64(f.Until), float64(f.At))
		}
	case faultLose:
		if err := checkSec(p+".detect", f.Detect); err != nil {
			return err
		}
	default:
		return oneOf(p+".kind", f.Kind, faultSlow, faultLose)
	}
	return nil
}
