package sim

import (
	"context"
	"testing"

	"github.com/worksteal/worksteal/policy"
)

// coarseTree is issue 30's tree of coarse leaves, the scenario of
// testdata/coarse-tree.yaml (the one scripts/coarse-sim.sh runs through
// the CLI): a binary fork-join tree over 2^depth leaves of 0.2–8 ms
// (Pareto, shape 1.1), no poll points in the leaves, at runtime-like
// costs; here at the given workers, depth, seed and policy.
func coarseTree(t *testing.T, workers, depth int, seed uint64, pol Policy) Scenario {
	t.Helper()
	s := scenarioFile(t, "testdata/coarse-tree.yaml")
	if s.Workload.Kind != kindTree || s.Workload.Duration.Dist != distPareto {
		t.Fatalf("testdata/coarse-tree.yaml: workload %q of %q leaves; want a tree of Pareto leaves", s.Workload.Kind, s.Workload.Duration.Dist)
	}
	// The file's steal amount is the runtime's default (policy.StealHalf,
	// the zero Amount); the simulator's own default is steal one. A
	// scenario that claims the runtime's policy must not drift from it.
	if want := policy.Amount(0).String(); s.Policy.Amount != want {
		t.Fatalf("testdata/coarse-tree.yaml: policy.amount %q; want the runtime's default %q", s.Policy.Amount, want)
	}
	if pol.Amount == "" {
		pol.Amount = s.Policy.Amount
	}
	s.Workers, s.Workload.Tree.Depth, s.Seed, s.Policy = Workers{Count: workers}, depth, seed, pol // the file sets neither speeds nor groups
	return *s
}

// meanMakespan is the mean makespan of s over seeds 1..n.
func meanMakespan(t *testing.T, mk func(seed uint64) Scenario, n int) float64 {
	t.Helper()
	var sum float64
	for seed := uint64(1); seed <= uint64(n); seed++ {
		r, err := Run(context.Background(), mk(seed), Options{})
		if err != nil {
			t.Fatal(err)
		}
		sum += r.Report.Totals.Makespan
	}
	return sum / float64(n)
}

// TestCoarseTreeLatentNearEager: on trees of coarse leaves that never
// poll, the runtime's protocol (latent frames, eager within
// policyrt.EagerDepth levels of the root of a worker's stack) is within 5 %
// of the eager (deque) protocol's makespan at 2, 16 and 64 workers, for
// 64 leaves and for 256 (deeper than the eager levels). The assertion can
// fail: with every Join latent (eager_depth −1) the makespan is 18–50 %
// longer at 16 and 64 workers (2–7 % at 2), and the test checks that too,
// so that it measures something. Every column steals half, the runtime's
// amount (the file's policy).
func TestCoarseTreeLatentNearEager(t *testing.T) {
	for _, depth := range []int{6, 8} {
		for _, p := range []int{2, 16, 64} {
			mk := func(pol Policy) func(uint64) Scenario {
				return func(seed uint64) Scenario { return coarseTree(t, p, depth, seed, pol) }
			}
			eager := meanMakespan(t, mk(Policy{Join: joinEager}), 5)
			runtime := meanMakespan(t, mk(Policy{}), 5)
			latent := meanMakespan(t, mk(Policy{EagerDepth: -1}), 5)
			t.Logf("%d leaves, %2d workers: makespan eager %.2f ms, runtime %.2f ms (%+.1f %%), all latent %.2f ms (%+.1f %%)",
				1<<depth, p, 1e3*eager, 1e3*runtime, 100*(runtime/eager-1), 1e3*latent, 100*(latent/eager-1))
			if runtime > 1.05*eager {
				t.Errorf("%d leaves, %d workers: the runtime's protocol takes %.1f %% longer than eager; want within 5 %%", 1<<depth, p, 100*(runtime/eager-1))
			}
			if p >= 16 && latent < 1.05*eager {
				t.Errorf("%d leaves, %d workers: all-latent within 5 %% of eager (%.1f %%): the case does not measure the eager depths", 1<<depth, p, 100*(latent/eager-1))
			}
		}
	}
}

// The sweep scripts/coarse-sim.sh runs (eager_depth=0,-1 on the coarse
// tree) gives the makespans of the runtime's protocol and of every Join
// latent, as the scenarios with that policy run alone do.
func TestSweepEagerDepth(t *testing.T) {
	s := coarseTree(t, 16, 6, 1, Policy{})
	s.sweep = &sweepSpec{Param: "eager_depth", Values: []string{"0", "-1"}}
	res, err := runSweep(context.Background(), s, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i, pol := range []Policy{{}, {EagerDepth: -1}} {
		r, err := Run(context.Background(), coarseTree(t, 16, 6, 1, pol), Options{})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := res.Reports[i].Totals.Makespan, r.Report.Totals.Makespan; got != want {
			t.Errorf("sweep eager_depth=%s: makespan %v; want %v (the scenario with that policy)", res.Values[i], got, want)
		}
	}
}

// TestEagerDepthFineGrained: the eager levels cost fine-grained trees
// little: fib 30 (cutoff 12) at 2, 16 and 64 workers within 3 % of the
// all-latent protocol's makespan.
func TestEagerDepthFineGrained(t *testing.T) {
	for _, p := range []int{2, 16, 64} {
		mk := func(pol Policy) func(uint64) Scenario {
			return func(seed uint64) Scenario {
				return Scenario{Seed: seed, Workers: Workers{Count: p}, Policy: pol,
					Costs:    Costs{Steal: 2e-7, Failed: 1e-7, Move: 3e-7, Fork: 6e-9, Promote: 2e-8, Wake: 5e-6},
					Workload: Workload{Kind: kindFib, Fib: Fib{N: 30, Cutoff: 12, Leaf: 2e-9}}}
			}
		}
		runtime := meanMakespan(t, mk(Policy{}), 2)
		latent := meanMakespan(t, mk(Policy{EagerDepth: -1}), 2)
		t.Logf("fib 30, %2d workers: runtime %.3f ms, all latent %.3f ms (%+.1f %%)", p, 1e3*runtime, 1e3*latent, 100*(runtime/latent-1))
		if runtime > 1.03*latent {
			t.Errorf("fib 30, %d workers: the eager levels cost %.1f %%; want under 3 %%", p, 100*(runtime/latent-1))
		}
	}
}

// TestLatentFramesCost: plain calls (policy.latent_frames 1, the runtime's
// policyrt.LatentFrames) cost the parallel schedule little against offering
// every fork's half (−1): fib 30 (cutoff 12) and 256 coarse leaves at 2
// and 16 workers within 3 % of the makespan. Thousands of fib's forks
// are plain calls at 2 workers; the thieves want the oldest halves, which
// stay offerable. At 64 workers the test only reports: with the runtime's
// join wait (policy.join_wait stack) the plain calls' halves wait behind
// their owners' joins, and on fib 30 they cost 8.9 % there (under 3 %
// with the greedy join_wait any, where this test asserted it at 64 too),
// and under 3 % with eager_widens 1 (an eager fork that finds a worker
// idle widens the window: policyrt.EagerWidens, off in the runtime, which
// measured fib 35 10.7 % slower with it at 2 workers), asserted.
func TestLatentFramesCost(t *testing.T) {
	for _, p := range []int{2, 16, 64} {
		fib := func(pol Policy) func(uint64) Scenario {
			return func(seed uint64) Scenario {
				return Scenario{Seed: seed, Workers: Workers{Count: p}, Policy: pol,
					Costs:    Costs{Steal: 2e-7, Failed: 1e-7, Move: 3e-7, Fork: 6e-9, Promote: 2e-8, Wake: 5e-6},
					Workload: Workload{Kind: kindFib, Fib: Fib{N: 30, Cutoff: 12, Leaf: 2e-9}}}
			}
		}
		coarse := func(pol Policy) func(uint64) Scenario {
			return func(seed uint64) Scenario { return coarseTree(t, p, 8, seed, pol) }
		}
		for _, c := range []struct {
			name string
			mk   func(Policy) func(uint64) Scenario
		}{{"fib 30", fib}, {"256 coarse leaves", coarse}} {
			runtime := meanMakespan(t, c.mk(Policy{}), 3)
			every := meanMakespan(t, c.mk(Policy{LatentFrames: -1}), 3)
			t.Logf("%s, %2d workers: plain calls %.4f ms, every half offerable %.4f ms (%+.1f %%)", c.name, p, 1e3*runtime, 1e3*every, 100*(runtime/every-1))
			if p <= 16 && runtime > 1.03*every {
				t.Errorf("%s, %d workers: plain calls cost %.1f %%; want under 3 %%", c.name, p, 100*(runtime/every-1))
			}
			if p == 64 {
				// With eager Joins widening the window for idle thieves
				// (policy.eager_widens, off in the runtime until measured)
				// the plain calls cost nothing here either.
				widened := meanMakespan(t, c.mk(Policy{EagerWidens: 1}), 3)
				t.Logf("%s, 64 workers, eager_widens 1: %.4f ms (%+.1f %%)", c.name, 1e3*widened, 100*(widened/every-1))
				if widened > 1.03*every {
					t.Errorf("%s, 64 workers, eager_widens 1: plain calls cost %.1f %%; want under 3 %%", c.name, 100*(widened/every-1))
				}
			}
		}
	}
}
