package balance_test

import (
	"math"
	"testing"
	"time"

	"github.com/worksteal/worksteal"
	"github.com/worksteal/worksteal/balance"
	"github.com/worksteal/worksteal/internal/simlab"
	"github.com/worksteal/worksteal/sim"
)

// A pool's Stats and balance's metrics share one definition
// (internal/loadstat); the first test checks that Stats feeds it the
// workers' busy and idle times. The simulator (which may import only policy
// and the standard library) keeps its own copy; the second test holds it to
// balance's definition.

func agree(a, b float64) bool {
	return math.Abs(a-b) <= 1e-9*(1+math.Abs(b))
}

func TestRuntimeStatsAgree(t *testing.T) {
	ms := time.Millisecond
	cases := []struct {
		name       string
		busy, idle []time.Duration
	}{
		{"even", []time.Duration{90 * ms, 90 * ms}, []time.Duration{10 * ms, 10 * ms}},
		{"uneven", []time.Duration{90 * ms, 30 * ms, 60 * ms}, []time.Duration{10 * ms, 70 * ms, 40 * ms}},
		{"one idle worker", []time.Duration{50 * ms, 0}, []time.Duration{0, 50 * ms}},
		{"no work", []time.Duration{0, 0}, []time.Duration{5 * ms, 5 * ms}},
		{"nothing measured", []time.Duration{0}, []time.Duration{0}},
		{"no workers", nil, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var st worksteal.Stats
			for i := range tc.busy {
				st.Workers = append(st.Workers, worksteal.WorkerStats{Busy: tc.busy[i], Idle: tc.idle[i]})
			}
			if got, want := st.Imbalance(), balance.Imbalance(tc.busy); !agree(got, want) {
				t.Errorf("worksteal Stats.Imbalance() = %g; balance.Imbalance(busy) = %g", got, want)
			}
			if got, want := st.Utilization(), balance.Utilization(tc.busy, tc.idle); !agree(got, want) {
				t.Errorf("worksteal Stats.Utilization() = %g; balance.Utilization(busy, idle) = %g", got, want)
			}
		})
	}
}

func TestSimStatsAgree(t *testing.T) {
	for _, p := range simlab.Presets() {
		if p.Scenario.Workers.Count > 64 {
			continue // the large-scale preset takes seconds under -race
		}
		t.Run(p.Name, func(t *testing.T) {
			res, err := sim.Run(t.Context(), p.Scenario, sim.Options{})
			if err != nil {
				t.Fatalf("sim.Run(%s) = %v", p.Name, err)
			}
			r := res.Report
			var busy, other []float64
			for _, w := range r.PerWork {
				busy = append(busy, w.Busy)
				other = append(other, w.Overhead+w.Idle) // not running tasks
			}
			if got, want := r.Totals.Imbalance, balance.Imbalance(busy); !agree(got, want) {
				t.Errorf("sim imbalance %g; balance.Imbalance(busy) = %g", got, want)
			}
			if got, want := r.Totals.Straggler, balance.StragglerRatio(busy); !agree(got, want) {
				t.Errorf("sim straggler %g; balance.StragglerRatio(busy) = %g", got, want)
			}
			if got, want := r.Totals.Utilization, balance.Utilization(busy, other); !agree(got, want) {
				t.Errorf("sim utilization %g; balance.Utilization(busy, overhead+idle) = %g", got, want)
			}
		})
	}
}
