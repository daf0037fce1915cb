package policyrt

import (
	"testing"
	"time"

	"github.com/worksteal/worksteal/policy"
)

func newTestTuner(t *testing.T) IdleTuner {
	t.Helper()
	p, _ := NormalizeIdle(policy.Idle{Adaptive: true})
	if p.Rounds != 8 || !p.Adaptive || p.Jitter != DefaultIdle.Jitter {
		t.Fatalf("NormalizeIdle(Idle{Adaptive: true}) = %+v; want the default schedule, adaptive", p)
	}
	tu := NewIdleTuner(p)
	if tu.Rounds() != 8 || tu.Idle().Rounds != 8 || tu.WakeLatency() != 20*time.Microsecond {
		t.Fatalf("starts at %d rounds, wake latency %v; want 8 and 20µs", tu.Rounds(), tu.WakeLatency())
	}
	return tu
}

// wakeAt feeds wake-ups of latency d until the estimate is within 1 % of d.
func wakeAt(t *testing.T, tu *IdleTuner, d time.Duration) {
	t.Helper()
	for range 200 {
		tu.Woken(d)
		if diff := tu.WakeLatency() - d; diff < d/100 && -diff < d/100 {
			return
		}
	}
	t.Fatalf("wake latency estimate %v after 200 wake-ups of %v", tu.WakeLatency(), d)
}

// The budgets of the default schedule (1 µs doubling, capped at 100 µs)
// with r rounds: 2: 1 µs, 3: 3, 4: 7, 5: 15, 6: 31, 7: 63, 8: 127, then
// 100 µs more per round.
func TestIdleTunerBudgets(t *testing.T) {
	tu := newTestTuner(t)
	for r, want := range map[int]time.Duration{2: time.Microsecond, 4: 7 * time.Microsecond, 8: 127 * time.Microsecond, 32: 2527 * time.Microsecond} {
		if got := tu.budgetAt(r); got != want {
			t.Errorf("budget with %d rounds = %v; want %v", r, got, want)
		}
		p := tu.base
		p.Rounds = r
		if Budget(p) != tu.budgetAt(r) {
			t.Errorf("budget with %d rounds = %v; Budget says %v", r, tu.budgetAt(r), Budget(p))
		}
	}
	// A large configured Rounds: a table of at most 65 budgets, the rest
	// computed, equal to Budget.
	p, err := NormalizeIdle(policy.Idle{Rounds: 1 << 20, Base: time.Nanosecond, Cap: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	big := NewIdleTuner(p)
	if len(big.budgets) > 65 {
		t.Errorf("Rounds %d: a table of %d budgets; want at most 65", p.Rounds, len(big.budgets))
	}
	for _, r := range []int{2, 40, 64, 65, 66, 100, 1000} {
		q := p
		q.Rounds = r
		if got, want := big.budgetAt(r), Budget(q); got != want {
			t.Errorf("Rounds %d, base 1ns, cap 1h: budget with %d rounds = %v; Budget says %v", p.Rounds, r, got, want)
		}
	}
}

// Ski rental: the budget grows only while it stays within twice the wake
// latency, however often the signals to grow come.
func TestIdleTunerGrowsUpToTwiceTheWakeLatency(t *testing.T) {
	tu := newTestTuner(t)
	tu.Found(7) // work in the last round, but 9 rounds (227 µs) > 2 × 20 µs
	if tu.Rounds() != 8 {
		t.Errorf("work found in the last round, wake-ups of 20 µs: %d rounds; want 8 unchanged", tu.Rounds())
	}
	tu.Parked(10*time.Microsecond, true)
	if tu.Rounds() != 8 {
		t.Errorf("a short park, wake-ups of 20 µs: %d rounds; want 8 unchanged", tu.Rounds())
	}

	wakeAt(t, &tu, time.Millisecond) // now searching up to 2 ms is worth it
	// The first of those wake-ups (clipped to 80 µs: estimate 27.5 µs)
	// found the budget, 127 µs, above 4 × the estimate: one round fewer.
	if tu.Rounds() != 7 {
		t.Errorf("wake-ups of 1 ms from 20 µs: %d rounds; want 7", tu.Rounds())
	}
	tu.Parked(time.Millisecond, true) // within two wake-ups: two more
	if tu.Rounds() != 9 {
		t.Errorf("a park within two 1 ms wake-ups: %d rounds; want 9", tu.Rounds())
	}
	for range 100 {
		tu.Found(tu.Rounds() - 1)
	}
	// 26 rounds: 127 µs + 18 × 100 µs = 1.927 ms ≤ 2 ms < 2.027 ms (27).
	if tu.Rounds() != 26 {
		t.Errorf("work always in the last round, wake-ups of 1 ms: %d rounds; want 26 (budget %v)", tu.Rounds(), tu.budget())
	}
}

// A falling wake latency pulls the budget down to at most 4 × the latency.
func TestIdleTunerShrinksWithTheWakeLatency(t *testing.T) {
	tu := newTestTuner(t)
	wakeAt(t, &tu, 2*time.Microsecond)
	// 4 rounds: 7 µs ≤ 8 µs < 15 µs (5 rounds).
	if tu.Rounds() != 4 {
		t.Errorf("wake-ups of 2 µs: %d rounds (budget %v); want 4", tu.Rounds(), tu.budget())
	}
	tu.Found(3) // last round: 5 rounds would be 15 µs > 2 × 2 µs
	if tu.Rounds() != 4 {
		t.Errorf("work in the last round, wake-ups of 2 µs: %d rounds; want 4", tu.Rounds())
	}
}

// One slow wake-up (a preempted thread) moves the estimate by at most
// (4L − L)/8; a lasting change still gets through within a few wake-ups.
func TestIdleTunerWakeLatencyClipsOutliers(t *testing.T) {
	tu := newTestTuner(t)
	wakeAt(t, &tu, 10*time.Microsecond)
	before := tu.WakeLatency()
	tu.Woken(5 * time.Millisecond)
	if got, limit := tu.WakeLatency(), before+3*before/8+time.Microsecond/10; got > limit {
		t.Errorf("one 5 ms wake-up after wake-ups of %v: estimate %v; want at most %v", before, got, limit)
	}
	tu.Woken(-time.Microsecond) // a clock step: ignored
	for range 30 {
		tu.Woken(5 * time.Millisecond)
	}
	if got := tu.WakeLatency(); got < 2*time.Millisecond {
		t.Errorf("31 wake-ups of 5 ms after wake-ups of 10 µs: estimate %v; want above 2 ms", got)
	}
}

func TestIdleTunerShrinks(t *testing.T) {
	tu := newTestTuner(t)
	wakeAt(t, &tu, time.Millisecond)
	for range 100 {
		tu.Found(tu.Rounds() - 1)
	}
	if tu.Rounds() != 26 {
		t.Fatalf("setup: %d rounds; want 26", tu.Rounds())
	}
	for range 31 {
		tu.Found(0)
	}
	if tu.Rounds() != 26 {
		t.Errorf("31 early finds changed the rounds to %d", tu.Rounds())
	}
	tu.Found(0)
	if tu.Rounds() != 25 {
		t.Errorf("after 32 early finds: %d rounds; want 25", tu.Rounds())
	}
	tu.Parked(time.Second/2, false) // 0.5 s > 16 × 1.8 ms: an idle pool
	if tu.Rounds() != 24 {
		t.Errorf("after a 0.5 s park: %d rounds; want 24", tu.Rounds())
	}
	tu.Parked(10*time.Millisecond, true) // neither short nor 16 × the budget
	if tu.Rounds() != 24 {
		t.Errorf("after a 10 ms park: %d rounds; want 24 unchanged", tu.Rounds())
	}
	for range 50 {
		tu.Parked(time.Second, true)
	}
	if tu.Rounds() != 2 {
		t.Errorf("after long parks: %d rounds; want the minimum, 2", tu.Rounds())
	}
}
