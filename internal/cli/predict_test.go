package cli

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/worksteal/worksteal/internal/bench"
	"github.com/worksteal/worksteal/internal/cli/simcmd"
	"github.com/worksteal/worksteal/internal/policyrt"
	"github.com/worksteal/worksteal/internal/simfit"
)

// The calibration is plain arithmetic on the measured times: go-seq at
// the size predicted, plus the runtime's overhead per fork on the smaller
// size. No clock is read here.
func TestPredictCalibrationFromTimes(t *testing.T) {
	joins, err := bench.Joins("fib", "27") // calibrationSize("fib", 30)
	if err != nil {
		t.Fatal(err)
	}
	m := simcmd.CalibrationTimes{SeqSmall: time.Millisecond, WsSmall: 3 * time.Millisecond, Seq: 4 * time.Millisecond, Promote: 13 * time.Nanosecond}
	c, err := simcmd.Calibration("fib", 30, m)
	if err != nil {
		t.Fatal(err)
	}
	if c.Seq != 4e-3 || c.Promote != 13e-9 {
		t.Errorf("seq %v, promote %v; want go-seq at 30 (4ms) and the measured promotion (13ns)", c.Seq, c.Promote)
	}
	if want := 2e-3 / float64(joins); math.Abs(float64(c.ForkCost)/want-1) > 1e-12 {
		t.Errorf("fork cost %v; want (ws − seq) / forks of fib 27 = %v", c.ForkCost, want)
	}
	m.WsSmall = m.SeqSmall / 2 // the runtime faster than go-seq: no negative overhead
	if c, err := simcmd.Calibration("fib", 30, m); err != nil || c.ForkCost != 0 {
		t.Errorf("ws faster than go-seq: fork cost %v, %v; want 0", c.ForkCost, err)
	}
}

// The prediction simulates the runtime's protocol on the calibrated
// profile: one worker takes the calibrated work and promotes only at its
// heartbeats; two workers promote latent frames, steal, and take about half.
// The error column is the prediction over the given measurement.
func TestPredictRowsSimulateTheLatentProtocol(t *testing.T) {
	q := simfit.Profile{Workload: "fib 30", Work: 0.012, Span: 2.4e-4, BurdenedSpan: 2.6e-4, Forks: 1_346_268, StealCost: 5e-7}
	cal := simfit.Calibration{Promote: 13e-9}
	s, err := simcmd.PredictScenario(q, cal, 2, 1)
	if err != nil {
		t.Fatal(err)
	}
	if s, err = s.Normalize(); err != nil {
		t.Fatal(err)
	}
	if s.Policy.Join != "latent" || s.Policy.Amount != "half" || s.Costs.Promote != cal.Promote {
		t.Errorf("scenario policy %+v, costs %+v; want join latent, steal half, the calibrated promotion", s.Policy, s.Costs)
	}
	if want := float64(q.Work) / float64(q.Forks); math.Abs(float64(s.Workload.Poll)/want-1) > 1e-9 {
		t.Errorf("poll every %v; want T1/forks = %v (every Join polls)", s.Workload.Poll, want)
	}
	measured := []time.Duration{12 * time.Millisecond, 6400 * time.Microsecond}
	rows, err := simcmd.PredictRows(context.Background(), q, cal, []int{1, 2, 2}, []float64{1, 1, 0.5}, append(measured, measured[1]), 0)
	if err != nil {
		t.Fatal(err)
	}
	r1, r2 := rows[0], rows[1]
	// one worker: nobody asks, so only heartbeats promote (one frame per
	// 4,096 poll points at most, each Join a poll point)
	if math.Abs(r1.Predicted/float64(q.Work)-1) > 0.01 || r1.Promoted > q.Forks/policyrt.HeartbeatJoins || r1.Steals != 0 {
		t.Errorf("1 worker: %+v; want the work %v, at most %d promotions (heartbeats), no steal", r1, q.Work, q.Forks/policyrt.HeartbeatJoins)
	}
	if r2.Promoted == 0 || r2.Steals == 0 {
		t.Errorf("2 workers: %+v; want promotions and steals", r2)
	}
	if half := float64(q.Work) / 2; r2.Predicted < half || r2.Predicted > half*1.05 {
		t.Errorf("2 workers: predicted %v; want within 5%% above half the work %v", r2.Predicted, half)
	}
	if want := r2.Predicted/0.0064 - 1; r2.Measured != 0.0064 || math.Abs(r2.Error-want) > 1e-12 {
		t.Errorf("2 workers: measured %v, error %v; want 0.0064 and %v", r2.Measured, r2.Error, want)
	}
	// Two threads at half speed each (a neighbour holds one of two CPUs):
	// two workers take about the time of one.
	if r := rows[2]; r.Speed != 0.5 || r.Predicted < float64(q.Work) || r.Predicted > float64(q.Work)*1.05 {
		t.Errorf("2 workers at speed 0.5: %+v; want about the work %v", r, q.Work)
	}
	if got := simcmd.MachineSpeed(10*time.Millisecond, 20*time.Millisecond); got != 0.5 {
		t.Errorf("machineSpeed(10ms alone, 20ms together) = %v, want 0.5", got)
	}
}
