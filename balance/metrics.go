package balance

import (
	"math"
	"slices"

	"github.com/worksteal/worksteal/internal/loadstat"
)

// The balance statistics. Imbalance and Utilization are defined once, in
// internal/loadstat, which the runtime's Stats uses too (the runtime cannot
// import balance, which imports it): a pool's Stats and these functions give
// the same number by construction. The simulator, which may import only
// policy and the standard library, computes its own, and agree_test.go holds
// it to these.

// Targets: the usual thresholds for a well-balanced run. A Report says which
// of them a measured run misses.
const (
	// TargetImbalance: Imbalance (max/mean load) should stay below 1.2, i.e.
	// the busiest worker does at most 20% more than the average.
	TargetImbalance = 1.2
	// TargetStragglerRatio: StragglerRatio (max/median duration) should stay
	// below 2.0: no task or worker takes twice the typical time.
	TargetStragglerRatio = 2.0
	// TargetUtilization: Utilization (busy/total) should stay above 0.9.
	TargetUtilization = 0.9
)

// Number is any integer or floating-point type, including time.Duration, so
// that the metrics take per-worker loads as []float64, []int64 or
// []time.Duration alike.
type Number interface {
	~int | ~int8 | ~int16 | ~int32 | ~int64 |
		~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uintptr |
		~float32 | ~float64
}

// Imbalance returns the load imbalance max/mean of the per-worker loads
// (busy time, work done or items run). 1 means perfectly even; the makespan
// is Imbalance × the ideal makespan, so 1.5 means the run took 50% longer
// than a perfect split. Loads are never negative; it returns 1 for no
// loads or a total that is not positive, so an empty run misses no target.
func Imbalance[T Number](loads []T) float64 { return loadstat.Imbalance(loads) }

// StragglerRatio returns max/median of the durations (of tasks, or of
// workers' finishing times): how much longer the slowest one took than a
// typical one. The median of an even count is the mean of the two middle
// values. It returns 1 for no durations or all zero, and +Inf when the median
// is zero but the maximum is not.
func StragglerRatio[T Number](durations []T) float64 {
	if len(durations) == 0 {
		return 1
	}
	med := Quantile(durations, 0.5)
	hi := float64(slices.Max(durations))
	switch {
	case hi == 0:
		return 1
	case med == 0:
		return math.Inf(1)
	}
	return hi / med
}

// Utilization returns the fraction of worker time spent on tasks,
// Σbusy / (Σbusy + Σidle), over per-worker busy and idle times. For a run
// that took wall time W on P workers, idle is W − busy per worker and the
// result is Σbusy / (P·W). It returns 0 when no time was measured, as the
// runtime's Stats.Utilization does.
func Utilization[T Number](busy, idle []T) float64 {
	return loadstat.Utilization(busy, idle)
}

// QueueDepthStdDev returns the population standard deviation (dividing by
// n, not n − 1: the samples are the whole pool at one instant, not a sample
// of it) of queue-depth samples, e.g. every worker's deque length at one
// moment, or one worker's over time. 0 means all queues are equally full. It
// returns 0 for no samples.
func QueueDepthStdDev[T Number](depths []T) float64 {
	_, sd := meanStdDev(depths)
	return sd
}

// Quantile returns the q-quantile of xs, 0 ≤ q ≤ 1, by linear interpolation
// between the closest ranks (the default of numpy and R, "type 7"): with the
// values sorted, it is the value at fractional index q·(n−1). Quantile(xs, 0)
// is the minimum, Quantile(xs, 0.5) the median (the mean of the two middle
// values for an even count) and Quantile(xs, 1) the maximum. xs is not
// modified. It returns 0 for no values.
//
// Panics: if q is outside [0, 1] or NaN.
func Quantile[T Number](xs []T, q float64) float64 {
	if !(q >= 0 && q <= 1) {
		panic("balance: Quantile with q outside [0, 1]")
	}
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return quantileSorted(s, q)
}

// quantileSorted is Quantile over values already sorted ascending.
func quantileSorted[T Number](s []T, q float64) float64 {
	pos := q * float64(len(s)-1)
	i := int(pos)
	if i >= len(s)-1 {
		return float64(s[len(s)-1])
	}
	frac := pos - float64(i)
	lo, hi := float64(s[i]), float64(s[i+1])
	return lo + frac*(hi-lo)
}

// meanStdDev returns the mean and population standard deviation of xs, by
// Welford's update (stable for large, close values such as nanoseconds).
func meanStdDev[T Number](xs []T) (mean, sd float64) {
	var m2 float64
	for i, x := range xs {
		v := float64(x)
		d := v - mean
		mean += d / float64(i+1)
		m2 += d * (v - mean)
	}
	if len(xs) == 0 {
		return 0, 0
	}
	return mean, math.Sqrt(m2 / float64(len(xs)))
}
