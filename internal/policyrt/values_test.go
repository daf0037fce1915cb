package policyrt

import (
	"slices"
	"testing"
	"time"

	"github.com/worksteal/worksteal/internal/xrand"
	"github.com/worksteal/worksteal/policy"
)

func TestParseVictimAndAmountByName(t *testing.T) {
	for _, v := range []policy.Victim{policy.Random, policy.RoundRobin, policy.Largest, policy.TwoChoices, policy.Locality} {
		got, err := ParseVictim(v.String())
		if err != nil || got != v {
			t.Errorf("ParseVictim(%q) = %v, %v; want %v", v.String(), got, err, v)
		}
	}
	if got, err := ParseVictim(" Adaptive "); err != nil || got != policy.Largest {
		t.Errorf("ParseVictim(adaptive) = %v, %v; want largest", got, err)
	}
	if _, err := ParseVictim("nearest"); err == nil {
		t.Error("ParseVictim(nearest) accepted an unknown policy")
	}
	for in, want := range map[string]policy.Amount{"one": policy.StealOne, "1": policy.StealOne, "HALF": policy.StealHalf} {
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
		a       policy.Amount
		n, want int
	}{
		{policy.StealOne, 0, 0}, {policy.StealOne, 1, 1}, {policy.StealOne, 100, 1},
		{policy.StealHalf, 0, 0}, {policy.StealHalf, 1, 1}, {policy.StealHalf, 2, 1}, {policy.StealHalf, 3, 2},
		{policy.StealHalf, 10, 5}, {policy.StealHalf, 1000, policy.MaxBatch},
	}
	for _, c := range cases {
		if got := Take(c.a, c.n, policy.MaxBatch); got != c.want {
			t.Errorf("Take(%v, %d, MaxBatch) = %d; want %d", c.a, c.n, got, c.want)
		}
	}
	// no cap: a full half, as in the analyses of steal-half
	for _, c := range []struct{ n, max, want int }{{1000, 0, 500}, {1001, -1, 501}, {1000, 600, 500}, {1000, 7, 7}} {
		if got := Take(policy.StealHalf, c.n, c.max); got != c.want {
			t.Errorf("Take(half, %d, %d) = %d; want %d", c.n, c.max, got, c.want)
		}
	}
}

func TestIdleNormalizesAndDelaysDoubleUpToCap(t *testing.T) {
	def, err := NormalizeIdle(policy.Idle{})
	if err != nil || def != DefaultIdle {
		t.Fatalf("zero Idle normalizes to %+v, %v; want DefaultIdle", def, err)
	}
	bad := []policy.Idle{
		{Base: -1},
		{Base: time.Millisecond, Cap: time.Microsecond},
		{Jitter: 1.5},
		{Jitter: -0.1},
	}
	for _, b := range bad {
		if _, err := NormalizeIdle(b); err == nil {
			t.Errorf("NormalizeIdle(%+v) accepted it", b)
		}
	}
	p := policy.Idle{Rounds: 6, Base: time.Microsecond, Cap: 10 * time.Microsecond, Jitter: 0}
	var got []time.Duration
	for k := 0; k < 6; k++ {
		got = append(got, Delay(p, k, nil))
	}
	want := []time.Duration{1, 2, 4, 8, 10, 10}
	for i := range want {
		want[i] *= time.Microsecond
	}
	if !slices.Equal(got, want) {
		t.Fatalf("Delay(0..5) = %v; want %v", got, want)
	}
	if b := Budget(p); b != 25*time.Microsecond { // 1+2+4+8+10: no backoff after the last round
		t.Fatalf("Budget = %v; want 25µs", b)
	}
	j := policy.Idle{Rounds: 3, Base: 100 * time.Microsecond, Cap: time.Millisecond, Jitter: 0.5}
	r := xrand.New(5)
	for i := 0; i < 1000; i++ {
		d := Delay(j, 2, r) // nominal 400µs; jitter draws half of it
		if d < 200*time.Microsecond || d > 400*time.Microsecond {
			t.Fatalf("jittered Delay(2) = %v outside [200µs, 400µs]", d)
		}
	}
}
