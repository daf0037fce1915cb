package balance

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func nanf() float64 { return math.NaN() }

func TestLPT(t *testing.T) {
	cases := []struct {
		name      string
		costs     []float64
		workers   int
		wantOwner []int
		wantLoads []float64
	}{
		{"no items", nil, 2, []int{}, []float64{0, 0}},
		{"one worker", []float64{1, 2, 3}, 1, []int{0, 0, 0}, []float64{6}},
		{"largest first", []float64{3, 3, 2, 2, 2}, 2, []int{0, 1, 0, 1, 0}, []float64{7, 5}},
		{"order of input does not matter", []float64{2, 2, 3, 2, 3}, 2, []int{0, 1, 0, 0, 1}, []float64{7, 5}},
		{"one huge item", []float64{1, 1, 10, 1}, 3, []int{1, 2, 0, 1}, []float64{10, 2, 1}},
		{"zero costs stay on the lowest worker", []float64{0, 0, 0}, 2, []int{0, 0, 0}, []float64{0, 0}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := LPT(tc.costs, tc.workers)
			if !slices.Equal(got.Owner, tc.wantOwner) || !slices.Equal(got.Loads, tc.wantLoads) {
				t.Errorf("LPT(%v, %d) = %v %v; want %v %v", tc.costs, tc.workers, got.Owner, got.Loads, tc.wantOwner, tc.wantLoads)
			}
			checkAssignment(t, "LPT", tc.costs, got)
		})
	}
}

func TestListSchedule(t *testing.T) {
	cases := []struct {
		name      string
		costs     []float64
		workers   int
		wantOwner []int
		wantLoads []float64
	}{
		{"in order", []float64{2, 2, 2, 3, 3}, 2, []int{0, 1, 0, 1, 0}, []float64{7, 5}},
		{"worst case for 2 workers", []float64{1, 1, 2}, 2, []int{0, 1, 0}, []float64{3, 1}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := ListSchedule(tc.costs, tc.workers)
			if !slices.Equal(got.Owner, tc.wantOwner) || !slices.Equal(got.Loads, tc.wantLoads) {
				t.Errorf("ListSchedule(%v, %d) = %v %v; want %v %v", tc.costs, tc.workers, got.Owner, got.Loads, tc.wantOwner, tc.wantLoads)
			}
			checkAssignment(t, "ListSchedule", tc.costs, got)
		})
	}
}

func TestLPTSpeeds(t *testing.T) {
	cases := []struct {
		name      string
		costs     []float64
		speeds    []float64
		wantLoads []float64
	}{
		{"twice as fast gets twice the work", []float64{4, 4, 4, 4, 4, 4}, []float64{2, 1}, []float64{8, 8}},
		{"equal speeds is LPT", []float64{3, 3, 2, 2, 2}, []float64{1, 1}, []float64{7, 5}},
		{"slow worker left idle", []float64{10}, []float64{1, 5}, []float64{0, 2}},
		{"speeds are relative", []float64{6, 6, 6}, []float64{0.5, 0.5, 0.5}, []float64{12, 12, 12}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := LPTSpeeds(tc.costs, tc.speeds)
			if !slices.Equal(got.Loads, tc.wantLoads) {
				t.Errorf("LPTSpeeds(%v, %v).Loads = %v; want %v", tc.costs, tc.speeds, got.Loads, tc.wantLoads)
			}
			checkAssignment(t, "LPTSpeeds", tc.costs, got)
		})
	}
}

func TestImprove(t *testing.T) {
	cases := []struct {
		name         string
		costs        []float64
		speeds       []float64
		wantMakespan float64
		optimal      bool // whether pairwise search reaches the optimum here
	}{
		{"swap fixes LPT's classic miss", []float64{3, 3, 2, 2, 2}, []float64{1, 1}, 6, true},
		{"already optimal stays", []float64{5, 5}, []float64{1, 1}, 5, true},
		{"move between three", []float64{4, 4, 3, 3, 3, 3, 2, 2}, []float64{1, 1, 1}, 8, true},
		// LPT gives {5,3,3,3}/{4} = 7; swapping 5 and 4 gives 6.5. The optimum
		// {5,4,3}/{3,3} = 6 needs a two-for-one exchange, which pairwise
		// search does not try: Improve is a local search, not a solver.
		{"different speeds: local optimum", []float64{5, 4, 3, 3, 3}, []float64{2, 1}, 6.5, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := LPTSpeeds(tc.costs, tc.speeds)
			got := Improve(tc.costs, before)
			if got.Makespan() != tc.wantMakespan {
				t.Errorf("Improve(%v, LPTSpeeds(…, %v)).Makespan() = %g; want %g (LPT gave %g)", tc.costs, tc.speeds, got.Makespan(), tc.wantMakespan, before.Makespan())
			}
			if opt := bruteForce(tc.costs, tc.speeds); tc.optimal && got.Makespan() != opt {
				t.Errorf("Improve makespan %g; brute force optimum %g", got.Makespan(), opt)
			}
			checkAssignment(t, "Improve", tc.costs, got)
		})
	}
}

func TestImproveDoesNotModifyInput(t *testing.T) {
	costs := []float64{3, 3, 2, 2, 2}
	a := LPT(costs, 2)
	owner := slices.Clone(a.Owner)
	Improve(costs, a)
	if !slices.Equal(a.Owner, owner) {
		t.Errorf("Improve changed its input's Owner to %v; want %v", a.Owner, owner)
	}
}

func TestAssignmentImbalance(t *testing.T) {
	cases := []struct {
		name string
		a    Assignment
		want float64
	}{
		{"no workers", Assignment{}, 1},
		{"no work", Assignment{Loads: []float64{0, 0}}, 1},
		{"even", Assignment{Loads: []float64{3, 3}}, 1},
		{"max over mean", Assignment{Loads: []float64{7, 5}}, 7.0 / 6},
		{"speeds: ideal is work over speed", Assignment{Loads: []float64{8, 4}, Speeds: []float64{2, 1}}, 8.0 / (20.0 / 3)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.a.Imbalance(); math.Abs(got-tc.want) > 1e-12 {
				t.Errorf("Imbalance(%v) = %g; want %g", tc.a.Loads, got, tc.want)
			}
		})
	}
	// The equal-speed case is the Imbalance metric.
	a := LPT([]float64{5, 1, 1, 1}, 3)
	if got, want := a.Imbalance(), Imbalance(a.Loads); got != want {
		t.Errorf("LPT(…).Imbalance() = %g; Imbalance(Loads) = %g; want equal", got, want)
	}
}

// TestApproximationBounds solves small random instances exactly and checks
// the classic worst-case guarantees: LPT within (4/3 − 1/(3m)) of the optimum
// (Graham 1969), list scheduling within (2 − 1/m) (Graham 1966), LPT on
// workers of different speeds within 2m/(m+1) (Gonzalez, Ibarra and Sahni
// 1977), and Improve never worse than what it started from nor than the
// optimum allows.
func TestApproximationBounds(t *testing.T) {
	seed := uint64(20240611)
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, seed))
	trials := 2000
	if testing.Short() {
		trials = 300
	}
	const eps = 1e-9
	var worstLPT, worstList, worstSpeeds, worstImproved float64
	for trial := range trials {
		m := 2 + rng.IntN(3) // 2..4 workers
		n := 1 + rng.IntN(9) // 1..9 items
		costs := make([]float64, n)
		for i := range costs {
			if trial%2 == 0 {
				costs[i] = float64(1 + rng.IntN(12)) // small integers: many ties
			} else {
				costs[i] = rng.Float64() * 10
			}
		}
		ones := make([]float64, m)
		for w := range ones {
			ones[w] = 1
		}
		opt := bruteForce(costs, ones)

		lpt := LPT(costs, m)
		if r := lpt.Makespan() / opt; r > 4.0/3-1/(3*float64(m))+eps {
			t.Errorf("LPT(%v, %d) makespan %g = %.4f × OPT %g; want ≤ 4/3 − 1/(3m) = %.4f", costs, m, lpt.Makespan(), r, opt, 4.0/3-1/(3*float64(m)))
		} else {
			worstLPT = max(worstLPT, r)
		}
		list := ListSchedule(costs, m)
		if r := list.Makespan() / opt; r > 2-1/float64(m)+eps {
			t.Errorf("ListSchedule(%v, %d) makespan %g = %.4f × OPT %g; want ≤ 2 − 1/m", costs, m, list.Makespan(), r, opt)
		} else {
			worstList = max(worstList, r)
		}
		imp := Improve(costs, lpt)
		if imp.Makespan() > lpt.Makespan()+eps || imp.Makespan() < opt-eps {
			t.Errorf("Improve(%v, LPT) makespan %g; want within [OPT %g, LPT %g]", costs, imp.Makespan(), opt, lpt.Makespan())
		}
		worstImproved = max(worstImproved, imp.Makespan()/opt)
		checkAssignment(t, "Improve", costs, imp)

		speeds := make([]float64, m)
		for w := range speeds {
			speeds[w] = float64(1 + rng.IntN(4))
		}
		optS := bruteForce(costs, speeds)
		lptS := LPTSpeeds(costs, speeds)
		if r := lptS.Makespan() / optS; r > 2*float64(m)/float64(m+1)+eps {
			t.Errorf("LPTSpeeds(%v, %v) makespan %g = %.4f × OPT %g; want ≤ 2m/(m+1)", costs, speeds, lptS.Makespan(), r, optS)
		} else {
			worstSpeeds = max(worstSpeeds, r)
		}
		impS := Improve(costs, lptS)
		if impS.Makespan() > lptS.Makespan()+eps || impS.Makespan() < optS-eps {
			t.Errorf("Improve(%v, LPTSpeeds(%v)) makespan %g; want within [OPT %g, LPT %g]", costs, speeds, impS.Makespan(), optS, lptS.Makespan())
		}
		checkAssignment(t, "LPTSpeeds", costs, lptS)
	}
	t.Logf("worst ratios to OPT: LPT %.4f, list %.4f, LPT+Improve %.4f, LPTSpeeds %.4f", worstLPT, worstList, worstImproved, worstSpeeds)
}

// bruteForce returns the optimal makespan of costs on workers of the given
// speeds, by depth-first search over all assignments with two prunings
// that keep it exact: stop a branch whose makespan already reaches the best
// found, and of workers with equal speed and equal work try only the first.
func bruteForce(costs, speeds []float64) float64 {
	order := byCostDesc(costs)
	work := make([]float64, len(speeds))
	best := math.Inf(1)
	var dfs func(k int, span float64)
	dfs = func(k int, span float64) {
		if span >= best {
			return
		}
		if k == len(order) {
			best = span
			return
		}
		c := costs[order[k]]
	next:
		for w := range work {
			for v := range w {
				if speeds[v] == speeds[w] && work[v] == work[w] {
					continue next // symmetric to a branch already tried
				}
			}
			work[w] += c
			dfs(k+1, math.Max(span, work[w]/speeds[w]))
			work[w] -= c
		}
	}
	dfs(0, 0)
	return best
}

// checkAssignment checks that a's loads are what its owners add up to.
func checkAssignment(t *testing.T, fn string, costs []float64, a Assignment) {
	t.Helper()
	if len(a.Owner) != len(costs) {
		t.Fatalf("%s: %d owners for %d items", fn, len(a.Owner), len(costs))
	}
	work := make([]float64, len(a.Loads))
	for i, w := range a.Owner {
		if w < 0 || w >= len(a.Loads) {
			t.Fatalf("%s: Owner[%d] = %d out of range", fn, i, w)
		}
		work[w] += costs[i]
	}
	for w := range work {
		s := 1.0
		if a.Speeds != nil {
			s = a.Speeds[w]
		}
		if math.Abs(work[w]/s-a.Loads[w]) > 1e-9*(1+work[w]) {
			t.Fatalf("%s: Loads[%d] = %g; owners add up to %g", fn, w, a.Loads[w], work[w]/s)
		}
	}
	items := a.Items()
	total := 0
	for _, it := range items {
		total += len(it)
	}
	if total != len(costs) {
		t.Fatalf("%s: Items() holds %d items; want %d", fn, total, len(costs))
	}
}

// TestImproveLarge runs Improve on larger random instances, where brute
// force is out of reach: it must never be worse than LPT, and it must keep
// the loads consistent.
func TestImproveLarge(t *testing.T) {
	seed := uint64(7)
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, seed))
	for trial := range 20 {
		n, m := 50+rng.IntN(150), 2+rng.IntN(7)
		costs := make([]float64, n)
		for i := range costs {
			costs[i] = math.Exp(rng.NormFloat64()) // lognormal: a long tail
		}
		lpt := LPT(costs, m)
		imp := Improve(costs, lpt)
		if imp.Makespan() > lpt.Makespan() {
			t.Errorf("trial %d: Improve makespan %g > LPT %g", trial, imp.Makespan(), lpt.Makespan())
		}
		checkAssignment(t, "Improve", costs, imp)
	}
}

// Improve rejects an assignment it cannot refine with a message that names
// the cause, not an index error.
func TestImproveBadAssignment(t *testing.T) {
	cases := []struct {
		name string
		a    Assignment
		want string
	}{
		{"items but no workers", Assignment{Owner: []int{0, 0}}, "no workers (Loads is empty)"},
		{"speeds shorter than loads", Assignment{Owner: []int{0, 1}, Loads: []float64{1, 1}, Speeds: []float64{1}}, "1 speeds for 2 workers"},
	}
	for _, tc := range cases {
		got := func() (msg string) {
			defer func() { msg = fmt.Sprint(recover()) }()
			Improve(make([]float64, len(tc.a.Owner)), tc.a)
			return ""
		}()
		if !strings.Contains(got, tc.want) {
			t.Errorf("%s: panic %q; want one containing %q", tc.name, got, tc.want)
		}
	}
	if got := Improve(nil, Assignment{}); len(got.Owner) != 0 {
		t.Errorf("Improve of the empty assignment = %+v", got)
	}
}
