package loadstat

import (
	"math"
	"testing"
	"time"
)

func TestImbalance(t *testing.T) {
	cases := []struct {
		name  string
		loads []float64
		want  float64
	}{
		{"empty", nil, 1},
		{"all zero", []float64{0, 0}, 1},
		{"total not positive", []float64{-2, 1}, 1},
		{"even", []float64{5, 5, 5}, 1},
		{"one busy worker of four", []float64{4, 0, 0, 0}, 4},
		{"max over mean", []float64{3, 1, 2}, 1.5},
		{"single worker", []float64{7}, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := Imbalance(tc.loads); math.Abs(got-tc.want) > 1e-12 {
				t.Errorf("Imbalance(%v) = %g; want %g", tc.loads, got, tc.want)
			}
		})
	}
}

func TestUtilization(t *testing.T) {
	ms := time.Millisecond
	cases := []struct {
		name       string
		busy, idle []time.Duration
		want       float64
	}{
		{"nothing measured", nil, nil, 0},
		{"all zero", []time.Duration{0, 0}, []time.Duration{0, 0}, 0},
		{"all busy", []time.Duration{ms, ms}, []time.Duration{0, 0}, 1},
		{"a quarter idle", []time.Duration{3 * ms, 3 * ms}, []time.Duration{2 * ms, 0}, 0.75},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := Utilization(tc.busy, tc.idle); math.Abs(got-tc.want) > 1e-12 {
				t.Errorf("Utilization(%v, %v) = %g; want %g", tc.busy, tc.idle, got, tc.want)
			}
		})
	}
}
