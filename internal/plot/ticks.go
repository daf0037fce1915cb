// Package plot holds what the SVG pictures of the command line share: the
// simulator's Gantt charts and sweep plots (sim) and the runtime's trace
// timelines (internal/traceview).
package plot

import "math"

// NiceTicks returns about n round tick values covering [lo, hi]: multiples
// of 1, 2 or 5 times a power of ten, from the first at or above lo to the
// last at or below hi. Each tick is computed as k·step, not by repeated
// addition, so labels print without accumulated rounding (0.3, not
// 0.30000000000000004). An empty or reversed range, or n < 1, gives [lo].
func NiceTicks(lo, hi float64, n int) []float64 {
	if !(hi > lo) || n < 1 || math.IsInf(hi-lo, 0) {
		return []float64{lo}
	}
	raw := (hi - lo) / float64(n)
	e := math.Floor(math.Log10(raw))
	mag := math.Pow(10, e)
	m := 10.0
	for _, c := range []float64{1, 2, 5} {
		if c*mag >= raw {
			m = c
			break
		}
	}
	step := m * mag
	// tick k is k·m·10^e; below 1 it is computed as k·m / 10^−e, which
	// rounds to the decimal (3·1/10 is 0.3, while 3·0.1 is not)
	at := func(k float64) float64 { return k * m * mag }
	if e < 0 {
		div := math.Pow(10, -e)
		at = func(k float64) float64 { return k * m / div }
	}
	var ticks []float64
	for k := math.Ceil(lo / step); ; k++ {
		v := at(k)
		if v > hi+step*1e-9 {
			break
		}
		ticks = append(ticks, v)
	}
	return ticks
}
