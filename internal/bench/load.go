package bench

import "time"

// minLoadWindow: below this, the tick-based estimate of other processes'
// load is mostly noise, so it is not made.
const minLoadWindow = 500 * time.Millisecond

// otherLoad returns the average number of cores that other processes kept
// busy between two samples, and false when it cannot tell (not Linux, or a
// window shorter than minLoadWindow).
func otherLoad(a, b cpuSample) (float64, bool) {
	el := b.at.Sub(a.at)
	if !a.ok || !b.ok || el < minLoadWindow {
		return 0, false
	}
	other := (b.machine - a.machine) - (b.self - a.self)
	return max(0, other.Seconds()/el.Seconds()), true
}
