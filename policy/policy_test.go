package policy

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/worksteal/worksteal/internal/xrand"
)

func TestParseVictimAndAmountByName(t *testing.T) {
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

func TestIdleNormalizesAndDelaysDoubleUpToCap(t *testing.T) {
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

func TestGroupsOfMembersAndEvenGroups(t *testing.T) {
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
