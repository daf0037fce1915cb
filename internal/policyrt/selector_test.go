package policyrt

import (
	"github.com/worksteal/worksteal/policy"
	"runtime"
	"slices"
	"testing"
)

// A round of Random or Locality visits every other worker exactly once;
// Locality visits its own group first.
func TestSelectorRounds(t *testing.T) {
	groups := policy.EvenGroups(8, 4)
	for _, kind := range []policy.Victim{policy.Random, policy.Locality} {
		for self := 0; self < 8; self++ {
			s := NewSelector(kind, self, 8, groups, 42)
			for round := 0; round < 5; round++ {
				s.Begin()
				var seen []int
				for a := 0; a < s.Attempts(); a++ {
					seen = append(seen, s.Next(nil))
				}
				sorted := slices.Clone(seen)
				slices.Sort(sorted)
				want := []int{}
				for i := 0; i < 8; i++ {
					if i != self {
						want = append(want, i)
					}
				}
				if !slices.Equal(sorted, want) {
					t.Fatalf("%v self=%d round %d visited %v; want each of %v once", kind, self, round, seen, want)
				}
				if kind == policy.Locality {
					for i := 0; i < 3; i++ { // the 3 other members of its group of 4 come first
						if groups.Of(seen[i]) != groups.Of(self) {
							t.Fatalf("locality self=%d round %v: attempt %d is worker %d of group %d", self, seen, i, seen[i], groups.Of(seen[i]))
						}
					}
				}
			}
		}
	}
}

// Selector state is O(1) per worker: a pool of P workers holds O(P)
// selector state in all, not O(P²). Measured as bytes allocated per
// selector of a million-worker pool, every policy, including a round.
func TestSelectorConstantSize(t *testing.T) {
	const n, k = 1 << 20, 64
	groups := policy.EvenGroups(n, 8)
	for _, kind := range []policy.Victim{policy.Random, policy.RoundRobin, policy.Largest, policy.TwoChoices, policy.Locality} {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		sels := make([]*Selector, k)
		for i := range sels {
			sels[i] = NewSelector(kind, i*(n/k), n, groups, 1)
			sels[i].Begin()
			if kind != policy.Largest && kind != policy.TwoChoices {
				sels[i].Next(nil)
			}
		}
		runtime.ReadMemStats(&after)
		per := (after.TotalAlloc - before.TotalAlloc) / k
		if per > 1024 {
			t.Errorf("%v: %d bytes allocated per selector of %d workers; want O(1) (under 1 KiB)", kind, per, n)
		}
	}
}

// A Locality round of a thief in a group that holds every worker, or with
// no groups at all, still visits every other worker once.
func TestSelectorLocalityEdgeGroups(t *testing.T) {
	for _, groups := range []*policy.Groups{nil, policy.EvenGroups(7, 7), policy.EvenGroups(7, 1)} {
		for self := 0; self < 7; self++ {
			s := NewSelector(policy.Locality, self, 7, groups, 3)
			for round := 0; round < 3; round++ {
				s.Begin()
				var seen []int
				for a := 0; a < s.Attempts(); a++ {
					seen = append(seen, s.Next(nil))
				}
				slices.Sort(seen)
				if len(slices.Compact(seen)) != 6 || slices.Contains(seen, self) {
					t.Fatalf("groups %v self %d: round visited %v", groups, self, seen)
				}
			}
		}
	}
}

func TestSelectorRoundRobin(t *testing.T) {
	s := NewSelector(policy.RoundRobin, 2, 4, nil, 1)
	var got []int
	for i := 0; i < 7; i++ {
		got = append(got, s.Next(nil))
	}
	if want := []int{3, 0, 1, 3, 0, 1, 3}; !slices.Equal(got, want) {
		t.Fatalf("round-robin from 2 of 4 = %v; want %v", got, want)
	}
}

func TestSelectorQueueAware(t *testing.T) {
	lens := []int{3, 0, 9, 4}
	qlen := func(i int) int { return lens[i] }
	if v := NewSelector(policy.Largest, 0, 4, nil, 1).Next(qlen); v != 2 {
		t.Fatalf("largest from 0 = %d; want 2 (queue of 9)", v)
	}
	if v := NewSelector(policy.Largest, 2, 4, nil, 1).Next(qlen); v != 3 {
		t.Fatalf("largest from 2 = %d; want 3 (itself excluded)", v)
	}
	empty := func(int) int { return 0 }
	for i := 0; i < 20; i++ { // all empty: a random probe, never itself
		if v := NewSelector(policy.Largest, 1, 4, nil, uint64(i)).Next(empty); v == 1 || v < 0 || v > 3 {
			t.Fatalf("largest with empty queues = %d", v)
		}
	}
	s := NewSelector(policy.TwoChoices, 0, 4, nil, 7)
	hits := map[int]int{}
	for i := 0; i < 3000; i++ {
		v := s.Next(qlen)
		if v == 0 {
			t.Fatal("two-choices picked itself")
		}
		hits[v]++
	}
	// Worker 2 (longest) wins whenever sampled: P = 1 − (2/3)² = 5/9.
	if f := float64(hits[2]) / 3000; f < 0.5 || f > 0.62 {
		t.Errorf("two-choices picked the longest queue %.2f of the time; want about 0.56", f)
	}
	if NewSelector(policy.Random, 0, 1, nil, 1).Next(nil) != -1 {
		t.Error("a lone worker has no victim: want -1")
	}
}

func TestSelectorDeterministic(t *testing.T) {
	run := func() []int {
		s := NewSelector(policy.Random, 3, 16, nil, 99)
		var out []int
		for r := 0; r < 4; r++ {
			s.Begin()
			for a := 0; a < s.Attempts(); a++ {
				out = append(out, s.Next(nil))
			}
		}
		return out
	}
	if a, b := run(), run(); !slices.Equal(a, b) {
		t.Fatal("the same seed gave different victim orders")
	}
}
