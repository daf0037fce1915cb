package sim

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
)

// Report is what a run measured. Times are virtual seconds. It is written
// as text tables by [Report.WriteText] and as JSON by [Report.WriteJSON]; the
// JSON field names are the stable interface, and the JSON is the whole
// report. Go code reads the figures as fields; the header (the scenario's
// name, seed and worker count, and descriptions of the effective policy,
// costs and workload) and the sums of the per-worker figures are only in
// the text and the JSON: a program has the scenario it ran, and PerWork.
type Report struct {
	scenarioName string        // JSON "scenario"
	seed         uint64        // JSON "seed"
	workers      int           // JSON "workers"
	policyDesc   string        // the effective policy, every parameter filled in (JSON "policy")
	costsDesc    string        // the effective costs ("none": the ideal machine) (JSON "costs")
	workloadDesc string        // JSON "workload"
	PerWork      []WorkerStats `json:"per_worker"`
	Totals       Totals        `json:"totals"`
	DAG          DAG           `json:"dag"`
	Joins        *JoinStats    `json:"joins,omitempty"`
	Faults       *FaultStats   `json:"faults,omitempty"`
}

// WorkerStats is one worker's account: worker i's is PerWork[i]. Busy +
// Overhead + Idle is the time the worker was up (the makespan, unless it was
// lost). Its JSON (in the report's) also names the worker and its speed and
// group, as the scenario gave them.
type WorkerStats struct {
	worker     int     // JSON "worker"
	speed      float64 // JSON "speed"
	group      int     // JSON "group"
	Executed   int64   `json:"executed"`           // pieces run to completion (a fork-join task is two: up to its fork, and its continuation)
	Stolen     int64   `json:"stolen"`             // tasks it took from others
	StolenFrom int64   `json:"stolen_from"`        // tasks others took from it
	Attempts   int64   `json:"attempts"`           // steal attempts
	Failed     int64   `json:"failed"`             // steal attempts that found nothing
	Parks      int64   `json:"parks"`              // times it parked (slept until woken)
	Sleeps     int64   `json:"sleeps"`             // timed parks (backoffs of at least policyrt.SpinLimit)
	Promoted   int64   `json:"promoted,omitempty"` // join latent: latent frames it made public at poll points
	QueueEnd   int     `json:"queue_end"`          // tasks left in its queue at the end
	Busy       float64 `json:"busy"`               // running tasks
	Overhead   float64 `json:"overhead"`           // per-task overhead and central-queue access
	Idle       float64 `json:"idle"`               // searching, backing off, parked
	Lost       bool    `json:"lost,omitempty"`
}

// Totals are the run's summary statistics. Their JSON (in the report's)
// also holds the completion rate (Completed/Tasks), the sums of the
// per-worker figures (executed, stolen, attempts, failed, busy, overhead,
// idle), the total work (DAG.T1) and the number of events the engine
// processed.
type Totals struct {
	Tasks       int64   `json:"tasks"`     // tasks created (roots and children)
	Completed   int64   `json:"completed"` // tasks finished
	completion  float64 // Completed / Tasks (JSON "completion_rate")
	work        float64 // work of the finished tasks at speed 1 (JSON "total_work")
	Makespan    float64 `json:"makespan"`
	Speedup     float64 `json:"speedup"`    // total work / makespan
	Efficiency  float64 `json:"efficiency"` // speedup / workers
	executed    int64   // JSON "executed"
	stolen      int64   // JSON "stolen"
	Steals      int64   `json:"steals"`             // successful steal operations (one may take several tasks)
	Promoted    int64   `json:"promoted,omitempty"` // join latent: latent frames made public at poll points
	attempts    int64   // JSON "attempts"
	failed      int64   // JSON "failed"
	StealRate   float64 `json:"steal_rate"`  // stolen / executed
	Imbalance   float64 `json:"imbalance"`   // max / mean busy time
	Straggler   float64 `json:"straggler"`   // max / median busy time
	Utilization float64 `json:"utilization"` // busy / (busy + overhead + idle)
	busy        float64 // JSON "busy"
	overhead    float64 // JSON "overhead"
	idle        float64 // JSON "idle"
	// Queue depth over time: the time-weighted mean and variance of the
	// number of queued tasks (all queues), and the time-weighted mean of the
	// variance of queue length across workers.
	QueueMean   float64 `json:"queue_depth_mean"`
	QueueVar    float64 `json:"queue_depth_variance"`
	QueueSpread float64 `json:"queue_spread_variance"`
	// Steal latency: from the moment a worker starts looking (goes idle or is
	// woken) to its successful steal.
	StealLatencyMean float64 `json:"steal_latency_mean"`
	StealLatencyP99  float64 `json:"steal_latency_p99"`
	events           int64   // events the engine processed (JSON "events")
}

// DAG compares the makespan with the work-span bounds. T1 is the total work
// and TInf the critical path (release times included). LowerBound is
// max(T1/ΣS, T∞/maxS) for worker speeds S, which is max(T1/P, T∞) when
// every speed is 1; no schedule beats it. GreedyBound is T1/P + T∞, which
// every greedy schedule meets on speed-1 workers with zero costs. The
// makespan it is compared with is Totals.Makespan; the JSON (and the text)
// also give it here, with the parallelism T1/T∞.
type DAG struct {
	T1          float64 `json:"t1"`
	TInf        float64 `json:"tinf"`
	parallelism float64 // T1 / T∞ (JSON "parallelism")
	LowerBound  float64 `json:"lower_bound"`
	GreedyBound float64 `json:"greedy_bound"`
	makespan    float64 // JSON "makespan"
}

// JoinStats says how much the joins stretched fork-join parents: the wait
// is from reaching the join to resuming, the stretch is a parent's whole
// time (first start to finish) over its own work. The text report lists
// the five most stretched parents, the JSON the ten.
type JoinStats struct {
	Parents     int         `json:"parents"`
	WaitMean    float64     `json:"wait_mean"`
	WaitP50     float64     `json:"wait_p50"`
	WaitP99     float64     `json:"wait_p99"`
	WaitMax     float64     `json:"wait_max"`
	StretchMean float64     `json:"stretch_mean"`
	StretchMax  float64     `json:"stretch_max"`
	most        []joinEntry // up to 10, most stretched first (JSON "most_stretched")
}

// joinEntry is one fork-join parent.
type joinEntry struct {
	Task    int     `json:"task"`
	Work    float64 `json:"work"`
	Wait    float64 `json:"wait"`
	Stretch float64 `json:"stretch"`
}

// FaultStats counts what faults cost.
type FaultStats struct {
	Lost       int     `json:"workers_lost"`
	Requeued   int64   `json:"requeued"`    // tasks re-queued from lost workers
	ReExecuted int64   `json:"re_executed"` // pieces that were running on a lost worker and ran again
	LostWork   float64 `json:"lost_work"`   // work done by those pieces before the loss (done twice)
}

// The report's JSON, written by [Report.MarshalJSON]: the keys and their
// order of the exported and unexported fields alike, so that the JSON is
// the whole report (the stable interface) while Go code reads the figures.
type reportJSON struct {
	Scenario string       `json:"scenario"`
	Seed     uint64       `json:"seed"`
	Workers  int          `json:"workers"`
	Policy   string       `json:"policy"`
	Costs    string       `json:"costs"`
	Workload string       `json:"workload"`
	PerWork  []workerJSON `json:"per_worker"`
	Totals   totalsJSON   `json:"totals"`
	DAG      dagJSON      `json:"dag"`
	Joins    *joinsJSON   `json:"joins,omitempty"`
	Faults   *FaultStats  `json:"faults,omitempty"`
}

type workerJSON struct {
	Worker     int     `json:"worker"`
	Speed      float64 `json:"speed"`
	Group      int     `json:"group"`
	Executed   int64   `json:"executed"`
	Stolen     int64   `json:"stolen"`
	StolenFrom int64   `json:"stolen_from"`
	Attempts   int64   `json:"attempts"`
	Failed     int64   `json:"failed"`
	Parks      int64   `json:"parks"`
	Sleeps     int64   `json:"sleeps"`
	Promoted   int64   `json:"promoted,omitempty"`
	QueueEnd   int     `json:"queue_end"`
	Busy       float64 `json:"busy"`
	Overhead   float64 `json:"overhead"`
	Idle       float64 `json:"idle"`
	Lost       bool    `json:"lost,omitempty"`
}

type totalsJSON struct {
	Tasks            int64   `json:"tasks"`
	Completed        int64   `json:"completed"`
	Completion       float64 `json:"completion_rate"`
	Work             float64 `json:"total_work"`
	Makespan         float64 `json:"makespan"`
	Speedup          float64 `json:"speedup"`
	Efficiency       float64 `json:"efficiency"`
	Executed         int64   `json:"executed"`
	Stolen           int64   `json:"stolen"`
	Steals           int64   `json:"steals"`
	Promoted         int64   `json:"promoted,omitempty"`
	Attempts         int64   `json:"attempts"`
	Failed           int64   `json:"failed"`
	StealRate        float64 `json:"steal_rate"`
	Imbalance        float64 `json:"imbalance"`
	Straggler        float64 `json:"straggler"`
	Utilization      float64 `json:"utilization"`
	Busy             float64 `json:"busy"`
	Overhead         float64 `json:"overhead"`
	Idle             float64 `json:"idle"`
	QueueMean        float64 `json:"queue_depth_mean"`
	QueueVar         float64 `json:"queue_depth_variance"`
	QueueSpread      float64 `json:"queue_spread_variance"`
	StealLatencyMean float64 `json:"steal_latency_mean"`
	StealLatencyP99  float64 `json:"steal_latency_p99"`
	Events           int64   `json:"events"`
}

type dagJSON struct {
	T1          float64 `json:"t1"`
	TInf        float64 `json:"tinf"`
	Parallelism float64 `json:"parallelism"`
	LowerBound  float64 `json:"lower_bound"`
	GreedyBound float64 `json:"greedy_bound"`
	Makespan    float64 `json:"makespan"`
}

type joinsJSON struct {
	Parents     int         `json:"parents"`
	WaitMean    float64     `json:"wait_mean"`
	WaitP50     float64     `json:"wait_p50"`
	WaitP99     float64     `json:"wait_p99"`
	WaitMax     float64     `json:"wait_max"`
	StretchMean float64     `json:"stretch_mean"`
	StretchMax  float64     `json:"stretch_max"`
	Most        []joinEntry `json:"most_stretched"`
}

// MarshalJSON writes the whole report, the figures that Go code reads as
// fields and the ones it does not (the scenario's description, the sums of
// the per-worker figures, the most stretched joins) under the keys that
// docs/simulator.md's report schema names.
func (r Report) MarshalJSON() ([]byte, error) {
	j := reportJSON{Scenario: r.scenarioName, Seed: r.seed, Workers: r.workers, Policy: r.policyDesc, Costs: r.costsDesc, Workload: r.workloadDesc, Faults: r.Faults}
	if r.PerWork != nil {
		j.PerWork = make([]workerJSON, 0, len(r.PerWork))
	}
	for _, w := range r.PerWork {
		j.PerWork = append(j.PerWork, workerJSON{Worker: w.worker, Speed: w.speed, Group: w.group, Executed: w.Executed, Stolen: w.Stolen, StolenFrom: w.StolenFrom, Attempts: w.Attempts, Failed: w.Failed, Parks: w.Parks, Sleeps: w.Sleeps, Promoted: w.Promoted, QueueEnd: w.QueueEnd, Busy: w.Busy, Overhead: w.Overhead, Idle: w.Idle, Lost: w.Lost})
	}
	t := &r.Totals
	j.Totals = totalsJSON{Tasks: t.Tasks, Completed: t.Completed, Completion: t.completion, Work: t.work, Makespan: t.Makespan, Speedup: t.Speedup, Efficiency: t.Efficiency, Executed: t.executed, Stolen: t.stolen, Steals: t.Steals, Promoted: t.Promoted, Attempts: t.attempts, Failed: t.failed, StealRate: t.StealRate, Imbalance: t.Imbalance, Straggler: t.Straggler, Utilization: t.Utilization, Busy: t.busy, Overhead: t.overhead, Idle: t.idle, QueueMean: t.QueueMean, QueueVar: t.QueueVar, QueueSpread: t.QueueSpread, StealLatencyMean: t.StealLatencyMean, StealLatencyP99: t.StealLatencyP99, Events: t.events}
	d := &r.DAG
	j.DAG = dagJSON{T1: d.T1, TInf: d.TInf, Parallelism: d.parallelism, LowerBound: d.LowerBound, GreedyBound: d.GreedyBound, Makespan: d.makespan}
	if r.Joins != nil {
		x := r.Joins
		j.Joins = &joinsJSON{Parents: x.Parents, WaitMean: x.WaitMean, WaitP50: x.WaitP50, WaitP99: x.WaitP99, WaitMax: x.WaitMax, StretchMean: x.StretchMean, StretchMax: x.StretchMax, Most: x.most}
	}
	return json.Marshal(j)
}

func sec(d time.Duration) float64 { return d.Seconds() }

func ceil(x float64) float64 { return math.Ceil(x) }

func logOneMinus(u float64) float64 { return math.Log(1 - u) }

func (e *engine) report() Report {
	s := e.s
	p := len(e.ws)
	r := Report{scenarioName: s.Name, seed: s.Seed, workers: p, policyDesc: describePolicy(s), costsDesc: describeCosts(&s.Costs), workloadDesc: describeWorkload(s)}
	tot := &r.Totals
	busy := make([]float64, 0, p)
	sumSpeed, maxSpeed := 0.0, 0.0
	for i := range e.ws {
		w := &e.ws[i]
		st := w.st
		st.QueueEnd = w.dq.len()
		st.Busy, st.Overhead, st.Idle = sec(w.busy), sec(w.over), sec(w.idle)
		r.PerWork = append(r.PerWork, st)
		tot.executed += st.Executed
		tot.stolen += st.Stolen
		tot.attempts += st.Attempts
		tot.failed += st.Failed
		tot.busy += st.Busy
		tot.overhead += st.Overhead
		tot.idle += st.Idle
		busy = append(busy, st.Busy)
		sumSpeed += w.base
		maxSpeed = max(maxSpeed, w.base)
	}
	tot.Tasks, tot.Completed, tot.Steals, tot.events = e.created, e.completed, e.steals, e.events
	tot.Promoted = e.promoted
	tot.completion = ratio(float64(e.completed), float64(e.created))
	if e.created == 0 {
		tot.completion = 1
	}
	tot.work, tot.Makespan = sec(e.work), sec(e.now)
	tot.Speedup = ratio(tot.work, tot.Makespan)
	tot.Efficiency = tot.Speedup / float64(p)
	tot.StealRate = ratio(float64(tot.stolen), float64(tot.executed))
	mean := tot.busy / float64(p)
	slices.Sort(busy)
	tot.Imbalance = ratio(busy[p-1], mean)
	tot.Straggler = ratio(busy[p-1], median(busy))
	tot.Utilization = ratio(tot.busy, tot.busy+tot.overhead+tot.idle)
	if T := float64(e.now); T > 0 {
		tot.QueueMean = e.qArea / T
		tot.QueueVar = math.Max(0, e.qArea2/T-tot.QueueMean*tot.QueueMean)
		tot.QueueSpread = math.Max(0, e.spreadArea/T)
	}
	if n := len(e.latencies); n > 0 {
		var sum time.Duration
		for _, l := range e.latencies {
			sum += l
		}
		tot.StealLatencyMean = sec(sum) / float64(n)
		tot.StealLatencyP99 = sec(quantile(e.latencies, 0.99))
	}
	d := &r.DAG
	d.T1, d.TInf, d.makespan = sec(e.work), sec(e.tinf), tot.Makespan
	d.parallelism = ratio(d.T1, d.TInf)
	d.LowerBound = math.Max(d.T1/sumSpeed, d.TInf/maxSpeed)
	d.GreedyBound = d.T1/float64(p) + d.TInf
	if len(e.joinWaits) > 0 {
		r.Joins = e.joinStats()
	}
	lost := 0
	for i := range e.ws {
		if e.ws[i].lost {
			lost++
		}
	}
	if len(s.Faults) > 0 {
		r.Faults = &FaultStats{Lost: lost, Requeued: e.requeued, ReExecuted: e.reexec, LostWork: sec(e.lostWork)}
	}
	return r
}

func (e *engine) joinStats() *JoinStats {
	j := &JoinStats{Parents: len(e.joinWaits)}
	waits := make([]time.Duration, len(e.joinWaits))
	var sum time.Duration
	for i, r := range e.joinWaits {
		waits[i] = r.wait
		sum += r.wait
		st := ratio(float64(r.total), float64(r.own))
		j.StretchMean += st
		j.StretchMax = math.Max(j.StretchMax, st)
	}
	j.StretchMean /= float64(len(e.joinWaits))
	j.WaitMean = sec(sum) / float64(len(waits))
	j.WaitP50 = sec(quantile(waits, 0.5))
	j.WaitP99 = sec(quantile(waits, 0.99))
	j.WaitMax = sec(quantile(waits, 1))
	recs := slices.Clone(e.joinWaits)
	slices.SortStableFunc(recs, func(a, b joinRec) int {
		sa, sb := ratio(float64(a.total), float64(a.own)), ratio(float64(b.total), float64(b.own))
		switch {
		case sa > sb:
			return -1
		case sa < sb:
			return 1
		}
		return int(a.task - b.task)
	})
	for _, r := range recs[:min(10, len(recs))] {
		j.most = append(j.most, joinEntry{Task: int(r.task), Work: sec(r.own), Wait: sec(r.wait), Stretch: ratio(float64(r.total), float64(r.own))})
	}
	return j
}

func ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}

func median(sorted []float64) float64 {
	n := len(sorted)
	if n == 0 {
		return 0
	}
	if n%2 == 1 {
		return sorted[n/2]
	}
	return (sorted[n/2-1] + sorted[n/2]) / 2
}

// quantile returns the q-quantile (nearest rank) of xs, sorting a copy.
func quantile(xs []time.Duration, q float64) time.Duration {
	if len(xs) == 0 {
		return 0
	}
	c := slices.Clone(xs)
	slices.Sort(c)
	i := int(math.Ceil(q*float64(len(c)))) - 1
	return c[max(0, min(i, len(c)-1))]
}

func describePolicy(s *Scenario) string {
	p := &s.Policy
	if p.Scheduler != schedSteal {
		if p.Scheduler == schedCentral {
			return fmt.Sprintf("central queue (access %s, contention %s per waiter)", fmtSec(float64(s.Costs.Queue)), fmtSec(float64(s.Costs.Contention)))
		}
		return p.Scheduler
	}
	id := &p.Idle
	idle := id.Mode
	switch id.Mode {
	case idleBackoff:
		idle = fmt.Sprintf("backoff %d rounds, %s..%s, jitter %g", id.Rounds, fmtSec(float64(id.Base)), fmtSec(float64(id.Cap)), id.Jitter)
	case idlePoll:
		idle = "poll every " + fmtSec(float64(id.Interval))
	}
	if id.Attempts > 0 {
		idle += fmt.Sprintf(", %d attempts a round", id.Attempts)
	}
	amount := p.Amount
	if p.Amount == "half" {
		if p.MaxBatch < 1 {
			amount += " (no cap)"
		} else {
			amount += fmt.Sprintf(" (at most %d)", p.MaxBatch)
		}
	}
	join := ""
	if s.Workload.Kind == kindFib || s.Workload.Spawn.Join && s.Workload.Spawn.Prob > 0 {
		join = ", join " + p.Join
		if p.Join == joinLatent {
			if p.Heartbeat > 0 {
				join += fmt.Sprintf(" (heartbeat every %d polls)", p.Heartbeat)
			} else {
				join += " (no heartbeat)"
			}
		}
		if p.JoinWait == joinWaitAny {
			join += ", a done join resumes anywhere"
		}
	}
	return fmt.Sprintf("steal (victim %s, amount %s, idle %s%s)", p.Victim, amount, idle, join)
}

// describeCosts lists the non-zero costs, or "none" for the ideal machine.
func describeCosts(c *Costs) string {
	var parts []string
	for _, f := range []struct {
		name string
		v    Seconds
	}{{"task", c.Task}, {"steal", c.Steal}, {"move", c.Move}, {"failed steal", c.Failed}, {"cross-group", c.CrossGroup},
		{"wake", c.Wake}, {"queue", c.Queue}, {"contention", c.Contention}, {"fork", c.Fork}, {"promote", c.Promote}} {
		if f.v > 0 {
			parts = append(parts, f.name+" "+fmtSec(float64(f.v)))
		}
	}
	if len(parts) == 0 {
		return "none (the ideal machine)"
	}
	return strings.Join(parts, ", ")
}

func describeDist(d *Dist) string {
	switch d.Dist {
	case distUniform:
		return fmt.Sprintf("uniform %s..%s", fmtSec(float64(d.Min)), fmtSec(float64(d.Max)))
	case distExponential:
		return "exponential mean " + fmtSec(float64(d.Mean))
	case distLognormal:
		return fmt.Sprintf("lognormal mean %s sigma %g", fmtSec(float64(d.Mean)), d.Sigma)
	case distPareto:
		return fmt.Sprintf("pareto min %s alpha %g", fmtSec(float64(d.Min)), d.Alpha)
	case distBimodal:
		return fmt.Sprintf("bimodal %s / %s (%g long)", fmtSec(float64(d.Short)), fmtSec(float64(d.Long)), d.LongFrac)
	}
	return "constant " + fmtSec(float64(d.Value))
}

func describeWorkload(s *Scenario) string {
	wl := &s.Workload
	var b strings.Builder
	switch wl.Kind {
	case kindFib:
		fmt.Fprintf(&b, "fib(%d) cutoff %d, leaf %s per call", wl.Fib.N, wl.Fib.Cutoff, fmtSec(float64(wl.Fib.Leaf)))
	case kindUTS:
		u := &wl.UTS
		fmt.Fprintf(&b, "uts %s", u.Type)
		if u.Type != utsBinomial {
			fmt.Fprintf(&b, " %s", u.Shape)
		}
		fmt.Fprintf(&b, " b0=%g depth=%d root=%d, %s per node", u.B0, u.Depth, u.Root, fmtSec(float64(u.Node)))
	default:
		fmt.Fprintf(&b, "%d tasks, %s", wl.Tasks, describeDist(&wl.Duration))
		if sp := &wl.Spawn; sp.Prob > 0 {
			verb := "spawn"
			if sp.Join {
				verb = "fork-join"
			}
			fmt.Fprintf(&b, ", %s %d-%d children with p=%g (depth %d)", verb, sp.Min, sp.Max, sp.Prob, sp.Depth)
			if sp.Duration != nil {
				fmt.Fprintf(&b, " of %s", describeDist(sp.Duration))
			}
		}
	}
	if wl.Kind != kindTasks && wl.Tasks > 1 {
		fmt.Fprintf(&b, ", %d trees", wl.Tasks)
	}
	a := &wl.Arrival
	switch a.Pattern {
	case arriveBursts:
		fmt.Fprintf(&b, ", %d bursts", len(a.Bursts))
	case arrivePoisson:
		fmt.Fprintf(&b, ", poisson %g/s", a.Rate)
	}
	if s.Policy.Scheduler == schedSteal && a.Pattern != arriveBursts {
		if a.Target == targetOne {
			fmt.Fprintf(&b, " to worker %d", a.Worker)
		} else {
			fmt.Fprintf(&b, " to %s workers", a.Target)
		}
	}
	return b.String()
}

// fmtSec prints seconds with a unit that keeps about four digits.
func fmtSec(x float64) string {
	a := math.Abs(x)
	switch {
	case x == 0:
		return "0s"
	case a >= 1:
		return trimFloat(x, "s")
	case a >= 1e-3:
		return trimFloat(x*1e3, "ms")
	case a >= 1e-6:
		return trimFloat(x*1e6, "µs")
	}
	return trimFloat(x*1e9, "ns")
}

func trimFloat(x float64, unit string) string {
	s := fmt.Sprintf("%.4g", x)
	if strings.ContainsAny(s, "e") {
		s = fmt.Sprintf("%.0f", x)
	}
	return s + unit
}

func pct(x float64) string { return fmt.Sprintf("%.1f%%", 100*x) }

// WriteText writes the report as text tables: one row per worker, then the
// totals, the work-span bounds, joins and faults.
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	name := r.scenarioName
	if name == "" {
		name = "scenario"
	}
	fmt.Fprintf(&b, "%s: %d workers, seed %d\n", name, r.workers, r.seed)
	fmt.Fprintf(&b, "policy:   %s\ncosts:    %s\nworkload: %s\n\n", r.policyDesc, r.costsDesc, r.workloadDesc)
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "worker\tspeed\tgroup\texecuted\tstolen\tstolen-from\tattempts\tfailed\tqueue\tbusy\toverhead\tidle\tutil\t\t")
	const maxRows = 64
	for i, s := range r.PerWork {
		if i == maxRows && len(r.PerWork) > maxRows+1 {
			fmt.Fprintf(tw, "...\t%d more\t\t\t\t\t\t\t\t\t\t\t\t\n", len(r.PerWork)-maxRows)
			break
		}
		lost := ""
		if s.Lost {
			lost = "lost"
		}
		fmt.Fprintf(tw, "%d\t%g\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%s\t%s\t%s\t%s\t%s\t\n", s.worker, s.speed, s.group, s.Executed,
			s.Stolen, s.StolenFrom, s.Attempts, s.Failed, s.QueueEnd, fmtSec(s.Busy), fmtSec(s.Overhead), fmtSec(s.Idle),
			pct(ratio(s.Busy, s.Busy+s.Overhead+s.Idle)), lost)
	}
	t := &r.Totals
	fmt.Fprintf(tw, "all\t\t\t%d\t%d\t%d\t%d\t%d\t\t%s\t%s\t%s\t%s\t\n", t.executed, t.stolen, t.stolen, t.attempts, t.failed,
		fmtSec(t.busy), fmtSec(t.overhead), fmtSec(t.idle), pct(t.Utilization))
	tw.Flush()
	b.WriteByte('\n')
	tw = tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "tasks\t%d of %d completed (%s)\n", t.Completed, t.Tasks, pct(t.completion))
	fmt.Fprintf(tw, "makespan\t%s\n", fmtSec(t.Makespan))
	fmt.Fprintf(tw, "total work\t%s\n", fmtSec(t.work))
	fmt.Fprintf(tw, "speedup\t%.3f\tefficiency %s\n", t.Speedup, pct(t.Efficiency))
	fmt.Fprintf(tw, "steal rate\t%.3f\t%d steals, %d of %d attempts failed\n", t.StealRate, t.Steals, t.failed, t.attempts)
	if t.Promoted > 0 {
		fmt.Fprintf(tw, "promoted\t%d\tlatent frames made public at poll points\n", t.Promoted)
	}
	fmt.Fprintf(tw, "steal latency\tmean %s\tp99 %s\n", fmtSec(t.StealLatencyMean), fmtSec(t.StealLatencyP99))
	fmt.Fprintf(tw, "load imbalance\t%.3f\t(max/mean busy)\n", t.Imbalance)
	fmt.Fprintf(tw, "straggler ratio\t%.3f\t(max/median busy)\n", t.Straggler)
	fmt.Fprintf(tw, "utilization\t%s\n", pct(t.Utilization))
	fmt.Fprintf(tw, "queue depth\tmean %.3g\tvariance %.3g over time, %.3g across workers\n", t.QueueMean, t.QueueVar, t.QueueSpread)
	tw.Flush()
	d := &r.DAG
	fmt.Fprintf(&b, "\nwork-span: T1 %s, T∞ %s, parallelism %.3g\n", fmtSec(d.T1), fmtSec(d.TInf), d.parallelism)
	fmt.Fprintf(&b, "  lower bound max(T1/P, T∞) %s  <=  makespan %s  vs greedy bound T1/P + T∞ %s\n",
		fmtSec(d.LowerBound), fmtSec(d.makespan), fmtSec(d.GreedyBound))
	if j := r.Joins; j != nil {
		fmt.Fprintf(&b, "\njoins: %d parents; wait mean %s, p50 %s, p99 %s, max %s; stretch mean %.3gx, max %.3gx\n",
			j.Parents, fmtSec(j.WaitMean), fmtSec(j.WaitP50), fmtSec(j.WaitP99), fmtSec(j.WaitMax), j.StretchMean, j.StretchMax)
		for _, m := range j.most[:min(5, len(j.most))] {
			fmt.Fprintf(&b, "  T%d: work %s, waited %s, stretched %.3gx\n", m.Task, fmtSec(m.Work), fmtSec(m.Wait), m.Stretch)
		}
	}
	if f := r.Faults; f != nil {
		fmt.Fprintf(&b, "\nfaults: %d workers lost, %d tasks re-queued, %d pieces re-executed (%s of work done twice)\n",
			f.Lost, f.Requeued, f.ReExecuted, fmtSec(f.LostWork))
	}
	fmt.Fprintf(&b, "events: %d\n", t.events)
	_, err := io.WriteString(w, trimLines(b.String()))
	return err
}

// trimLines removes the trailing blanks that tabwriter leaves.
func trimLines(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n")
}

// WriteJSON writes the report as indented JSON.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}
