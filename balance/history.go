package balance

import (
	"slices"
	"sync"
	"time"
)

// defaultWindow is the number of recent durations a History keeps when made
// with a window ≤ 0 or used as a zero value.
const defaultWindow = 1024

// History keeps the durations of the most recently finished tasks (a sliding
// window) and answers quantile queries over them; Timeout and Hedge read
// their relative thresholds from it. It is safe for concurrent use. The zero
// value is an empty History that keeps the last 1,024 durations.
//
// Cost: Observe is O(window) in the worst case (one memmove in a sorted
// array, about 100 ns at the default window); Quantile is O(1). Both hold a
// mutex briefly.
//
// Censoring: a task cut short by a timeout or beaten by its hedge is recorded
// at the time it was cut, which is a lower bound on its true duration. Since
// that time is above the threshold (itself a multiple ≥ 1 of the quantile in
// use), the rank of every recorded value relative to that quantile is right,
// and the quantile estimate is unbiased by the cutting. Dropping such tasks
// instead would shrink the quantile, lower the threshold, cut more tasks:
// a spiral.
type History struct {
	mu     sync.Mutex
	window int
	ring   []time.Duration // in arrival order; ring[next] is the oldest once full
	next   int
	sorted []time.Duration // the same values, ascending
}

// NewHistory returns an empty History that keeps the last window durations;
// window ≤ 0 means 1,024.
func NewHistory(window int) *History {
	if window <= 0 {
		window = defaultWindow
	}
	return &History{window: window}
}

// Observe records the duration of one finished task, evicting the oldest
// when the window is full.
func (h *History) Observe(d time.Duration) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.window <= 0 {
		h.window = defaultWindow
	}
	if len(h.ring) < h.window {
		h.ring = append(h.ring, d)
	} else {
		old := h.ring[h.next]
		h.ring[h.next] = d
		h.next = (h.next + 1) % h.window
		i, _ := slices.BinarySearch(h.sorted, old) // present: it was inserted
		h.sorted = slices.Delete(h.sorted, i, i+1)
	}
	i, _ := slices.BinarySearch(h.sorted, d)
	h.sorted = slices.Insert(h.sorted, i, d)
}

// Len returns the number of durations held, at most the window.
func (h *History) Len() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.sorted)
}

// Quantile returns the q-quantile of the durations held, by the same
// definition as the package-level Quantile (linear interpolation, type 7),
// rounded down to a whole nanosecond; 0 when empty.
//
// Panics: if q is outside [0, 1] or NaN.
func (h *History) Quantile(q float64) time.Duration {
	if !(q >= 0 && q <= 1) {
		panic("balance: History.Quantile with q outside [0, 1]")
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.sorted) == 0 {
		return 0
	}
	return time.Duration(quantileSorted(h.sorted, q))
}

// Durations returns a copy of the durations held, oldest first; pass it to
// Profile.Durations to analyze the run.
func (h *History) Durations() []time.Duration {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make([]time.Duration, 0, len(h.ring))
	if len(h.ring) == h.window {
		out = append(out, h.ring[h.next:]...)
		return append(out, h.ring[:h.next]...)
	}
	return append(out, h.ring...)
}
