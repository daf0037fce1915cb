package balance

import (
	"math"
	"testing"
	"time"
)

func near(a, b float64) bool {
	if math.IsInf(a, 0) || math.IsInf(b, 0) {
		return a == b
	}
	return math.Abs(a-b) <= 1e-9*(1+math.Abs(b))
}

func TestImbalance(t *testing.T) {
	cases := []struct {
		name  string
		loads []float64
		want  float64
	}{
		{"empty", nil, 1},
		{"all zero", []float64{0, 0}, 1},
		{"even", []float64{5, 5, 5}, 1},
		{"one busy worker of four", []float64{4, 0, 0, 0}, 4},
		{"max over mean", []float64{3, 1, 2}, 1.5},
		{"single worker", []float64{7}, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := Imbalance(tc.loads); !near(got, tc.want) {
				t.Errorf("Imbalance(%v) = %g; want %g", tc.loads, got, tc.want)
			}
		})
	}
	// Durations and integers take the same definition.
	if got := Imbalance([]time.Duration{3 * time.Second, time.Second, 2 * time.Second}); !near(got, 1.5) {
		t.Errorf("Imbalance([3s 1s 2s]) = %g; want 1.5", got)
	}
	if got := Imbalance([]int{3, 1, 2}); !near(got, 1.5) {
		t.Errorf("Imbalance([3 1 2]) = %g; want 1.5", got)
	}
}

func TestStragglerRatio(t *testing.T) {
	ms := time.Millisecond
	cases := []struct {
		name string
		durs []time.Duration
		want float64
	}{
		{"empty", nil, 1},
		{"all zero", []time.Duration{0, 0}, 1},
		{"zero median", []time.Duration{0, 0, 5 * ms}, math.Inf(1)},
		{"uniform", []time.Duration{ms, ms, ms}, 1},
		{"odd count", []time.Duration{10 * ms, 20 * ms, 80 * ms}, 4},
		{"even count uses mean of middle two", []time.Duration{10 * ms, 20 * ms, 40 * ms, 90 * ms}, 3},
		{"order does not matter", []time.Duration{80 * ms, 10 * ms, 20 * ms}, 4},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := StragglerRatio(tc.durs); !near(got, tc.want) {
				t.Errorf("StragglerRatio(%v) = %g; want %g", tc.durs, got, tc.want)
			}
		})
	}
}

func TestUtilization(t *testing.T) {
	s := time.Second
	cases := []struct {
		name       string
		busy, idle []time.Duration
		want       float64
	}{
		{"nothing measured", nil, nil, 0},
		{"always busy", []time.Duration{s, s}, []time.Duration{0, 0}, 1},
		{"never busy", []time.Duration{0}, []time.Duration{s}, 0},
		{"sums over workers", []time.Duration{9 * s, 7 * s}, []time.Duration{1 * s, 3 * s}, 0.8},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := Utilization(tc.busy, tc.idle); !near(got, tc.want) {
				t.Errorf("Utilization(%v, %v) = %g; want %g", tc.busy, tc.idle, got, tc.want)
			}
		})
	}
}

func TestQueueDepthStdDev(t *testing.T) {
	cases := []struct {
		name   string
		depths []float64
		want   float64
	}{
		{"empty", nil, 0},
		{"one sample", []float64{7}, 0},
		{"equal", []float64{3, 3, 3}, 0},
		{"population, not sample", []float64{2, 4, 4, 4, 5, 5, 7, 9}, 2},
		{"large close values", []float64{1e9 + 1, 1e9 + 3}, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := QueueDepthStdDev(tc.depths); !near(got, tc.want) {
				t.Errorf("QueueDepthStdDev(%v) = %g; want %g", tc.depths, got, tc.want)
			}
		})
	}
}

func TestQuantile(t *testing.T) {
	// Expected values are numpy.quantile's default (linear) method.
	xs := []float64{4, 1, 3, 2}
	cases := []struct {
		q, want float64
	}{
		{0, 1}, {0.25, 1.75}, {0.5, 2.5}, {0.75, 3.25}, {0.9, 3.7}, {1, 4},
	}
	for _, tc := range cases {
		if got := Quantile(xs, tc.q); !near(got, tc.want) {
			t.Errorf("Quantile(%v, %g) = %g; want %g", xs, tc.q, got, tc.want)
		}
	}
	if xs[0] != 4 {
		t.Errorf("Quantile sorted its input: %v", xs)
	}
	if got := Quantile([]int{}, 0.5); got != 0 {
		t.Errorf("Quantile([], 0.5) = %g; want 0", got)
	}
	if got := Quantile([]int{5}, 0.99); got != 5 {
		t.Errorf("Quantile([5], 0.99) = %g; want 5", got)
	}
	if got := Quantile([]time.Duration{3, 1, 2}, 0.5); got != 2 {
		t.Errorf("Quantile([3 1 2], 0.5) = %g; want 2", got)
	}
	for _, q := range []float64{-0.1, 1.1, math.NaN()} {
		if msg := catchPanic(func() { Quantile(xs, q) }); msg != "balance: Quantile with q outside [0, 1]" {
			t.Errorf("Quantile(xs, %g) panic = %q; want the q range panic", q, msg)
		}
	}
}
