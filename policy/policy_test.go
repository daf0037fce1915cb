package policy

import (
	"fmt"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/worksteal/worksteal/internal/xrand"
)

func TestParse(t *testing.T) {
	for _, v := range []Victim{Random, RoundRobin, Largest, TwoChoices, Locality} {
		got, err := ParseVictim(v.String())
		if err != nil || got != v {
			t.Errorf("ParseVictim(%q) = %v, %v; want %v", v.String(), got, err, v)
		}
	}
	if got, err := ParseVictim(" Adaptive "); err != nil || got != Largest {
		t.Errorf("ParseVictim(adaptive) = %v, %v; want largest", got, err)
	}
	if _, err := ParseVictim("nearest"); err == nil {
		t.Error("ParseVictim(nearest) accepted an unknown policy")
	}
	for in, want := range map[string]Amount{"one": StealOne, "1": StealOne, "HALF": StealHalf} {
		if got, err := ParseAmount(in); err != nil || got != want {
			t.Errorf("ParseAmount(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	if _, err := ParseAmount("all"); err == nil {
		t.Error("ParseAmount(all) accepted an unknown amount")
	}
}

func TestAmountTake(t *testing.T) {
	cases := []struct {
		a       Amount
		n, want int
	}{
		{StealOne, 0, 0}, {StealOne, 1, 1}, {StealOne, 100, 1},
		{StealHalf, 0, 0}, {StealHalf, 1, 1}, {StealHalf, 2, 1}, {StealHalf, 3, 2},
		{StealHalf, 10, 5}, {StealHalf, 1000, MaxBatch},
	}
	for _, c := range cases {
		if got := c.a.Take(c.n, MaxBatch); got != c.want {
			t.Errorf("%v.Take(%d, MaxBatch) = %d; want %d", c.a, c.n, got, c.want)
		}
	}
	// no cap: a full half, as in the analyses of steal-half
	for _, c := range []struct{ n, max, want int }{{1000, 0, 500}, {1001, -1, 501}, {1000, 600, 500}, {1000, 7, 7}} {
		if got := StealHalf.Take(c.n, c.max); got != c.want {
			t.Errorf("StealHalf.Take(%d, %d) = %d; want %d", c.n, c.max, got, c.want)
		}
	}
}

// A round of Random or Locality visits every other worker exactly once;
// Locality visits its own group first.
func TestSelectorRounds(t *testing.T) {
	groups := EvenGroups(8, 4)
	for _, kind := range []Victim{Random, Locality} {
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
				if kind == Locality {
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
	groups := EvenGroups(n, 8)
	for _, kind := range []Victim{Random, RoundRobin, Largest, TwoChoices, Locality} {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		sels := make([]*Selector, k)
		for i := range sels {
			sels[i] = NewSelector(kind, i*(n/k), n, groups, 1)
			sels[i].Begin()
			if kind != Largest && kind != TwoChoices {
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
	for _, groups := range []*Groups{nil, EvenGroups(7, 7), EvenGroups(7, 1)} {
		for self := 0; self < 7; self++ {
			s := NewSelector(Locality, self, 7, groups, 3)
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
	s := NewSelector(RoundRobin, 2, 4, nil, 1)
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
	if v := NewSelector(Largest, 0, 4, nil, 1).Next(qlen); v != 2 {
		t.Fatalf("largest from 0 = %d; want 2 (queue of 9)", v)
	}
	if v := NewSelector(Largest, 2, 4, nil, 1).Next(qlen); v != 3 {
		t.Fatalf("largest from 2 = %d; want 3 (itself excluded)", v)
	}
	empty := func(int) int { return 0 }
	for i := 0; i < 20; i++ { // all empty: a random probe, never itself
		if v := NewSelector(Largest, 1, 4, nil, uint64(i)).Next(empty); v == 1 || v < 0 || v > 3 {
			t.Fatalf("largest with empty queues = %d", v)
		}
	}
	s := NewSelector(TwoChoices, 0, 4, nil, 7)
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
	if NewSelector(Random, 0, 1, nil, 1).Next(nil) != -1 {
		t.Error("a lone worker has no victim: want -1")
	}
}

func TestSelectorDeterministic(t *testing.T) {
	run := func() []int {
		s := NewSelector(Random, 3, 16, nil, 99)
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

func TestIdle(t *testing.T) {
	def, err := Idle{}.Normalize()
	if err != nil || def != DefaultIdle {
		t.Fatalf("zero Idle normalizes to %+v, %v; want DefaultIdle", def, err)
	}
	bad := []Idle{
		{Base: -1},
		{Base: time.Millisecond, Cap: time.Microsecond},
		{Jitter: 1.5},
		{Jitter: -0.1},
	}
	for _, b := range bad {
		if _, err := b.Normalize(); err == nil {
			t.Errorf("Idle%+v.Normalize() accepted it", b)
		}
	}
	p := Idle{Rounds: 6, Base: time.Microsecond, Cap: 10 * time.Microsecond, Jitter: 0}
	var got []time.Duration
	for k := 0; k < 6; k++ {
		got = append(got, p.Delay(k, nil))
	}
	want := []time.Duration{1, 2, 4, 8, 10, 10}
	for i := range want {
		want[i] *= time.Microsecond
	}
	if !slices.Equal(got, want) {
		t.Fatalf("Delay(0..5) = %v; want %v", got, want)
	}
	if b := p.Budget(); b != 25*time.Microsecond { // 1+2+4+8+10: no backoff after the last round
		t.Fatalf("Budget = %v; want 25µs", b)
	}
	j := Idle{Rounds: 3, Base: 100 * time.Microsecond, Cap: time.Millisecond, Jitter: 0.5}
	r := xrand.New(5)
	for i := 0; i < 1000; i++ {
		d := j.Delay(2, r) // nominal 400µs; jitter draws half of it
		if d < 200*time.Microsecond || d > 400*time.Microsecond {
			t.Fatalf("jittered Delay(2) = %v outside [200µs, 400µs]", d)
		}
	}
}

func TestGroups(t *testing.T) {
	g, err := NewGroups([]int{0, 1, 0, 2})
	if err != nil || g.Len() != 3 || !slices.Equal(g.Members(0), []int{0, 2}) || g.Of(3) != 2 || g.Of(99) != 0 {
		t.Fatalf("NewGroups: %v %v", g, err)
	}
	if _, err := NewGroups([]int{0, -1}); err == nil {
		t.Fatal("NewGroups accepted a negative group")
	}
	var none *Groups
	if none.Len() != 1 || none.Of(5) != 0 || none.Members(0) != nil {
		t.Fatal("nil Groups is not one group")
	}
	e := EvenGroups(5, 2)
	if got := fmt.Sprint(e.Members(0), e.Members(1), e.Members(2)); got != "[0 1] [2 3] [4]" {
		t.Fatalf("EvenGroups(5, 2) = %s", got)
	}
}

// TestIdleState walks the schedule: one step per failed round, backoffs
// between the rounds, a park after the last, and round 0 again after it.
func TestIdleState(t *testing.T) {
	p := Idle{Rounds: 4, Base: 10 * time.Microsecond, Cap: 40 * time.Microsecond}
	var s IdleState
	var got []string
	for i := 0; i < 8; i++ {
		st := s.Next(p, nil)
		got = append(got, fmt.Sprintf("%v %v", st.Kind, st.Delay))
	}
	want := []string{"spin 10µs", "sleep 20µs", "sleep 40µs", "park 0s", "spin 10µs", "sleep 20µs", "sleep 40µs", "park 0s"}
	if !slices.Equal(got, want) {
		t.Fatalf("steps %q; want %q", got, want)
	}
	s.Next(p, nil)
	if s.Round() != 1 {
		t.Fatalf("Round after one step = %d", s.Round())
	}
	s.Reset()
	if st := s.Next(p, nil); st.Kind != IdleSpin || st.Delay != 10*time.Microsecond {
		t.Fatalf("after Reset: %+v", st)
	}
	one, _ := Idle{Rounds: -1}.Normalize()
	s.Reset()
	if st := s.Next(one, nil); st.Kind != IdlePark {
		t.Fatalf("Rounds -1: first step %v; want park", st.Kind)
	}
	if !IdleSleep.Blocks() || !IdlePark.Blocks() || IdleSpin.Blocks() {
		t.Fatal("Blocks")
	}
	// The delay a step reports is the one drawn, within the jitter range,
	// and the kind follows that same value.
	j := Idle{Rounds: 3, Base: 16 * time.Microsecond, Cap: 100 * time.Microsecond, Jitter: 1}
	r := xrand.New(3)
	sawSpin, sawSleep := false, false
	for i := 0; i < 1000; i++ {
		s.Reset()
		st := s.Next(j, r)
		if st.Delay < 0 || st.Delay > 16*time.Microsecond || (st.Kind == IdleSpin) != (st.Delay < SpinLimit) {
			t.Fatalf("step %+v", st)
		}
		st = s.Next(j, r) // nominal 32µs, drawn in [0, 32µs]
		sawSpin = sawSpin || st.Kind == IdleSpin
		sawSleep = sawSleep || st.Kind == IdleSleep
		if (st.Kind == IdleSpin) != (st.Delay < SpinLimit) {
			t.Fatalf("step %+v: kind disagrees with its delay", st)
		}
	}
	if !sawSpin || !sawSleep {
		t.Fatalf("jittered 32µs never drew both sides of SpinLimit (spin %v, sleep %v)", sawSpin, sawSleep)
	}
}
