package sim

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"
)

// Validation against published bounds. The table these tests log is the one
// in sim/README.md; "go test ./sim -run Theory -v" prints it (the full sizes
// run without -race and -short; under either, only the small ones).

// stealHalfC is the constant of the bound tested: Tchiboukdjian, Gast,
// Trystram, Roch and Bernard, "A Tighter Analysis of Work Stealing"
// (ISAAC 2010; journal version "Decentralized list scheduling", Annals of
// Operations Research 207, 2013): W unit independent tasks on P processors
// under random steal-half take W/P plus a term in 3.65·log₂W in
// expectation. The test allows one more unit for the step that ends the
// run.
const stealHalfC = 3.65

// theoryScenario is the model of those analyses: W tasks of one time unit
// (1 µs) all on worker 0 of P workers; a thief makes one steal attempt per
// time unit (the attempt's latency is one unit) on a uniformly random
// victim, with no other pause; zero cost otherwise.
func theoryScenario(W, P int, amount string, maxBatch int) Scenario {
	return Scenario{
		Name:     fmt.Sprintf("W=%d P=%d %s", W, P, amount),
		Seed:     1,
		Workers:  Workers{Count: P},
		Workload: Workload{Tasks: W, Duration: Dist{Value: 1e-6}},
		Policy:   Policy{Amount: amount, MaxBatch: maxBatch, Idle: Idle{Mode: idleSpin, Attempts: 1}},
		Costs:    Costs{Steal: 1e-6},
	}
}

// units runs s and returns its makespan in time units.
func units(t *testing.T, s Scenario) float64 {
	t.Helper()
	r, err := Run(context.Background(), s, Options{maxEvents: 200_000_000})
	if err != nil {
		t.Fatal(err)
	}
	if r.Report.Totals.completion != 1 {
		t.Fatalf("%s: completion %v", s.Name, r.Report.Totals.completion)
	}
	return math.Round(r.Report.Totals.Makespan / 1e-6)
}

// bigTheory: the sizes left to the pass without -race and -short.
func bigTheory(W, P int) bool { return W*P > 200_000 }

// Steal-half on W unit tasks finishes within W/P + 3.65·log₂W + 1, for W up
// to 10⁶ and P up to 1,024 — with the runtime's cap of 32 tasks per steal
// lifted, as the analysis assumes.
func TestTheoryStealHalf(t *testing.T) {
	var rows []string
	for _, W := range []int{1_000, 10_000, 100_000, 1_000_000} {
		for _, P := range []int{2, 16, 128, 1024} {
			if bigTheory(W, P) && (raceEnabled || testing.Short()) {
				continue
			}
			ms := units(t, theoryScenario(W, P, "half", -1))
			ideal := math.Ceil(float64(W) / float64(P))
			lg := math.Log2(float64(W))
			bound := float64(W)/float64(P) + stealHalfC*lg + 1
			rows = append(rows, fmt.Sprintf("| %d | %d | %.0f | %.0f | %.0f | %.2f | %.0f |", W, P, ms, ideal, ms-ideal, (ms-ideal)/lg, bound))
			if ms > bound || ms < ideal {
				t.Errorf("W=%d P=%d: makespan %.0f units outside [W/P %.0f, W/P + %.2f·log₂W + 1 = %.1f]", W, P, ms, ideal, stealHalfC, bound)
			}
		}
	}
	t.Logf("steal-half, no cap:\n| W | P | makespan | ⌈W/P⌉ | overhead | overhead / log₂W | bound W/P + 3.65·log₂W + 1 |\n|---|---|---|---|---|---|---|\n%s", strings.Join(rows, "\n"))
}

// The contrasts: steal-one drains the single initial deque at about one
// task per time unit to thieves (plus the owner's own), so its makespan is
// about W/2 whatever P is — linear in W, not W/P + O(log W); and the
// runtime's cap of 32 tasks per steal-half makes the overhead above W/P
// grow linearly in W too. Both exceed the steal-half bound.
func TestTheoryContrasts(t *testing.T) {
	var rows []string
	for _, W := range []int{1_000, 10_000, 100_000} {
		for _, P := range []int{16, 128, 1024} {
			if bigTheory(W, P) && (raceEnabled || testing.Short()) {
				continue
			}
			lg := math.Log2(float64(W))
			bound := float64(W)/float64(P) + stealHalfC*lg + 1
			half := units(t, theoryScenario(W, P, "half", -1))
			capped := units(t, theoryScenario(W, P, "half", 32))
			one := math.NaN()
			if W*P <= 10_000_000 { // steal-one spins ~P·W/2 attempts
				one = units(t, theoryScenario(W, P, "one", 0))
				if one < 0.45*float64(W) {
					t.Errorf("W=%d P=%d: steal-one took %.0f units; want about W/2 = %d (one task a unit leaves worker 0)", W, P, one, W/2)
				}
			}
			rows = append(rows, fmt.Sprintf("| %d | %d | %.0f | %.0f | %.0f | %.0f |", W, P, half, capped, one, bound))
			if W >= 10_000 && capped <= bound {
				t.Errorf("W=%d P=%d: steal-half capped at 32 took %.0f units, within the uncapped bound %.1f; want the cap to show", W, P, capped, bound)
			}
		}
	}
	t.Logf("contrasts (makespan in units; NaN: not run):\n| W | P | steal-half | steal-half, cap 32 (runtime) | steal-one | steal-half bound |\n|---|---|---|---|---|---|\n%s", strings.Join(rows, "\n"))
}

// The steal-half cap can be swept like any policy parameter, and the sweep
// shows what the theory tests show: lifting it is what keeps W/P + O(log W).
func TestSweepMaxBatch(t *testing.T) {
	s := theoryScenario(10_000, 128, "half", 0)
	s.sweep = &sweepSpec{Param: "max_batch", Values: []string{"-1", "32"}}
	res, err := runSweep(context.Background(), s, Options{})
	if err != nil {
		t.Fatal(err)
	}
	free, capped := res.Reports[0], res.Reports[1]
	if !strings.Contains(free.policyDesc, "no cap") || !strings.Contains(capped.policyDesc, "at most 32") {
		t.Fatalf("policies %q, %q; want the cap shown", free.policyDesc, capped.policyDesc)
	}
	if capped.Totals.Makespan < 2*free.Totals.Makespan {
		t.Fatalf("capped %v vs uncapped %v: want the cap to cost at least 2x here", capped.Totals.Makespan, free.Totals.Makespan)
	}
}
