package balance

import (
	"fmt"
	"strings"
	"time"
)

// Profile is what was measured on one run, the input of Analyze. Every field
// is optional; a metric whose input is missing is not reported, and the
// suggestion uses whatever is there.
type Profile struct {
	// Loads holds each worker's load (work done or busy time). It gives the
	// imbalance. When nil, Busy is used instead.
	Loads []float64
	// Durations holds each task's duration. It gives the straggler ratio and
	// the shape of the cost distribution, which drives the suggestion.
	Durations []time.Duration
	// Busy and Idle hold each worker's busy and idle time. They give the
	// utilization.
	Busy, Idle []time.Duration
	// QueueDepths holds queue-depth samples (see QueueDepthStdDev).
	QueueDepths []float64
	// CostsKnown says the caller can estimate each task's cost before
	// running it, which makes weighted assignment (LPT) possible.
	CostsKnown bool
}

// Check is one metric compared with its target.
type Check struct {
	// Name is the metric: "imbalance", "straggler ratio" or "utilization".
	Name string
	// Value is the measured value; Target the threshold.
	Value, Target float64
	// Above says the value should be above the target (utilization) rather
	// than below it (imbalance, straggler ratio).
	Above bool
	// Met says the value is on the right side of the target.
	Met bool
}

// String formats c as e.g. "imbalance 1.50 (target < 1.20): missed".
func (c Check) String() string {
	op, verdict := "<", "met"
	if c.Above {
		op = ">"
	}
	if !c.Met {
		verdict = "missed"
	}
	return fmt.Sprintf("%s %.2f (target %s %.2f): %s", c.Name, c.Value, op, c.Target, verdict)
}

func newCheck(name string, value, target float64, above bool) Check {
	met := value < target
	if above {
		met = value > target
	}
	return Check{Name: name, Value: value, Target: target, Above: above, Met: met}
}

// Strategy is a way to balance a batch, as suggested by Analyze.
type Strategy int

// The strategies Analyze can suggest, and the workloads they fit.
const (
	// StrategyUnknown: nothing was measured that tells the workload apart.
	StrategyUnknown Strategy = iota
	// StrategyStatic: uniform tasks. Equal chunks (Split, the Static
	// schedule) balance them with no run-time cost.
	StrategyStatic
	// StrategyDynamic: variable but not long-tailed durations. Hand out work
	// at run time: the Dynamic or Guided schedule, or work stealing.
	StrategyDynamic
	// StrategyStealingHedging: a long tail. Work stealing balances the bulk;
	// hedged copies (Hedged) or timeouts cut the stragglers.
	StrategyStealingHedging
	// StrategyWeighted: variable durations whose costs are known in
	// advance. Assign by LPT (and Improve) before running.
	StrategyWeighted
)

// String returns the strategy's name, e.g. "stealing + hedging".
func (s Strategy) String() string {
	switch s {
	case StrategyStatic:
		return "static"
	case StrategyDynamic:
		return "dynamic/stealing"
	case StrategyStealingHedging:
		return "stealing + hedging"
	case StrategyWeighted:
		return "weighted (LPT)"
	}
	return "unknown"
}

// Thresholds of the workload classification in Analyze.
const (
	// uniformCV: task durations whose coefficient of variation (stddev/mean)
	// is at most this are uniform; 0.2 keeps the per-worker sums of a
	// static split well inside TargetImbalance once each worker has a few
	// tasks.
	uniformCV = 0.2
	// longTail: durations whose 99th percentile is at least this many
	// medians have a long tail. p99 rather than max, so the test does not
	// drift with the sample size (max/median of any unbounded distribution
	// grows with n). Uniform noise stays below 2; lognormal σ ≥ 0.5 and
	// exponential (p99/p50 ≈ 6.6) are above.
	longTail = 3.0
)

// Report is the result of Analyze: the balance metrics of one run, which
// targets they miss, and the strategy the measured profile suggests.
type Report struct {
	// Imbalance is Imbalance(Loads), or of Busy when Loads is nil; 0 when
	// neither was measured.
	Imbalance float64
	// StragglerRatio is StragglerRatio(Durations), or of the loads when no
	// durations were measured (then it compares workers, not tasks); 0 when
	// neither was measured.
	StragglerRatio float64
	// Utilization is Utilization(Busy, Idle); 0 when not measured.
	Utilization float64
	// QueueDepthStdDev is QueueDepthStdDev(QueueDepths); 0 when not
	// measured.
	QueueDepthStdDev float64
	// Checks holds one Check per measured metric that has a target, in the
	// order imbalance, straggler ratio, utilization.
	Checks []Check
	// Suggest is the strategy that fits the measured profile.
	Suggest Strategy
	// Why says which measurement led to Suggest, e.g. "long tail (p99 =
	// 7.8× median)".
	Why string
}

// Analyze computes the balance metrics of a measured run, checks them
// against the targets (TargetImbalance, TargetStragglerRatio,
// TargetUtilization) and suggests a strategy.
//
// The suggestion follows the decision guide:
//
//   - task durations with a coefficient of variation ≤ 0.2 are uniform →
//     StrategyStatic;
//   - otherwise, if costs are known in advance → StrategyWeighted;
//   - otherwise, if the 99th percentile is ≥ 3× the median (a long tail) →
//     StrategyStealingHedging;
//   - otherwise (variable) → StrategyDynamic.
//
// Without task durations, per-worker loads decide: imbalance below the
// target → StrategyStatic (the split in use works), else StrategyDynamic.
// With neither, the suggestion is StrategyUnknown.
func Analyze(p Profile) Report {
	var r Report
	loads := p.Loads
	if loads == nil && p.Busy != nil {
		loads = make([]float64, len(p.Busy))
		for i, b := range p.Busy {
			loads[i] = float64(b)
		}
	}
	if len(loads) > 0 {
		r.Imbalance = Imbalance(loads)
		r.Checks = append(r.Checks, newCheck("imbalance", r.Imbalance, TargetImbalance, false))
	}
	switch {
	case len(p.Durations) > 0:
		r.StragglerRatio = StragglerRatio(p.Durations)
	case len(loads) > 0:
		r.StragglerRatio = StragglerRatio(loads)
	}
	if len(p.Durations) > 0 || len(loads) > 0 {
		r.Checks = append(r.Checks, newCheck("straggler ratio", r.StragglerRatio, TargetStragglerRatio, false))
	}
	if len(p.Busy) > 0 || len(p.Idle) > 0 {
		r.Utilization = Utilization(p.Busy, p.Idle)
		r.Checks = append(r.Checks, newCheck("utilization", r.Utilization, TargetUtilization, true))
	}
	r.QueueDepthStdDev = QueueDepthStdDev(p.QueueDepths)
	r.Suggest, r.Why = suggest(p, loads)
	return r
}

// suggest applies the decision guide documented on Analyze.
func suggest(p Profile, loads []float64) (Strategy, string) {
	if len(p.Durations) >= 2 {
		mean, sd := meanStdDev(p.Durations)
		cv := 0.0
		if mean > 0 {
			cv = sd / mean
		}
		if cv <= uniformCV {
			return StrategyStatic, fmt.Sprintf("uniform durations (CV %.2f ≤ %.2f)", cv, uniformCV)
		}
		if p.CostsKnown {
			return StrategyWeighted, fmt.Sprintf("variable durations (CV %.2f) with known costs", cv)
		}
		med := Quantile(p.Durations, 0.5)
		if p99 := Quantile(p.Durations, 0.99); med > 0 && p99/med >= longTail {
			return StrategyStealingHedging, fmt.Sprintf("long tail (p99 = %.1f× median)", p99/med)
		}
		return StrategyDynamic, fmt.Sprintf("variable durations (CV %.2f), no long tail", cv)
	}
	if len(loads) > 0 {
		imb := Imbalance(loads)
		if imb < TargetImbalance {
			return StrategyStatic, fmt.Sprintf("loads already even (imbalance %.2f)", imb)
		}
		return StrategyDynamic, fmt.Sprintf("uneven loads (imbalance %.2f), task durations unknown", imb)
	}
	return StrategyUnknown, "nothing measured"
}

// Missed returns the checks whose target was missed, in Checks order.
func (r Report) Missed() []Check {
	var out []Check
	for _, c := range r.Checks {
		if !c.Met {
			out = append(out, c)
		}
	}
	return out
}

// OK reports whether every measured metric met its target.
func (r Report) OK() bool { return len(r.Missed()) == 0 }

// String formats the report as one line per check and a closing suggestion:
//
//	imbalance 1.50 (target < 1.20): missed
//	suggest: dynamic/stealing (variable durations (CV 0.60), no long tail)
func (r Report) String() string {
	var b strings.Builder
	for _, c := range r.Checks {
		b.WriteString(c.String())
		b.WriteByte('\n')
	}
	fmt.Fprintf(&b, "suggest: %s (%s)", r.Suggest, r.Why)
	return b.String()
}
