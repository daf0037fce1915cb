package policyrt

import (
	"time"

	"github.com/worksteal/worksteal/policy"
)

// IdleTuner adapts one worker's idle schedule (Idle.Adaptive) to what the
// worker observes, instead of a fixed number of rounds before parking. It
// is the pure, clock-free decision; the runtime feeds it, per idle stretch,
// how many rounds failed before work was found, whether and for how long
// the worker parked, and how long its wake-up took (from the waker's token
// to the worker running). Owner-only: not safe for concurrent use.
//
// The trade-off is the ski-rental one. Searching a round longer costs the
// round's delay (a core, where the cores are oversubscribed); parking too
// early costs a wake-up: its latency, which the tuner measures, and the
// waker's work, which that latency includes. The deterministic ski-rental
// strategy — search for as long as a wake-up costs, then park — never pays
// more than twice what knowing the future would. So the tuner keeps the
// backoff budget ([Budget]) near the measured wake latency L, and
// within that bound follows what the stretches show:
//
//   - work found in the last round before the park (the budget was just
//     enough): one round more;
//   - a park that work ended within two wake-up latencies (waking cost more
//     than waiting would have): two rounds more;
//   - but a round more only while the budget stays within 2·L: beyond it,
//     searching longer costs more than the wake-up it saves;
//   - a park that lasted longer than 16 × the whole backoff budget (the
//     pool was idle: the rounds before it were spent for nothing): one
//     round fewer;
//   - 32 stretches in a row that found work in the first half of the
//     budget: one round fewer (the rest is not used);
//   - a wake-up measured while the budget exceeds 4·L (the estimate fell):
//     one round fewer.
//
// Each wake-up sample is clipped to 4·L before it enters the estimate (an
// exponentially weighted average, weight 1/8), so that one preempted
// wake-up does not move it far while a lasting change still does within a
// few samples. Rounds stay between 2 and 4 × the configured Rounds (at
// least 8).
type IdleTuner struct {
	base     policy.Idle
	rounds   int
	min, max int
	early    int             // consecutive stretches that ended in the first half
	wake     time.Duration   // estimate of the wake-up latency L
	budgets  []time.Duration // budgets[r]: Budget with r rounds, r ≤ min(max, 64)
}

// NewIdleTuner starts a tuner at p.Rounds; p must be normalized.
func NewIdleTuner(p policy.Idle) IdleTuner {
	t := IdleTuner{base: p, rounds: p.Rounds, min: 2, max: max(8, 4*p.Rounds), wake: 20 * time.Microsecond}
	// Past 64 rounds every delay is Cap (Base·2^63 exceeds any duration),
	// so a large configured Rounds costs no larger table.
	t.budgets = make([]time.Duration, min(t.max, 64)+1)
	for r := 2; r < len(t.budgets); r++ {
		t.budgets[r] = t.budgets[r-1] + Delay(p, r-2, nil)
	}
	return t
}

// budgetAt returns Budget with r rounds.
func (t *IdleTuner) budgetAt(r int) time.Duration {
	if r < len(t.budgets) {
		return t.budgets[r]
	}
	n := len(t.budgets) - 1
	return t.budgets[n] + time.Duration(r-n)*t.base.Cap
}

// Idle returns the schedule to follow now: the configured one with the
// tuned number of rounds.
func (t *IdleTuner) Idle() policy.Idle {
	p := t.base
	p.Rounds = t.rounds
	return p
}

// Rounds returns the tuned number of rounds.
func (t *IdleTuner) Rounds() int { return t.rounds }

// WakeLatency returns the current estimate of a wake-up's latency.
func (t *IdleTuner) WakeLatency() time.Duration { return t.wake }

func (t *IdleTuner) budget() time.Duration { return t.budgetAt(t.rounds) }

// grow adds up to d rounds, each only while the budget stays within twice
// the wake-up latency (the ski-rental bound).
func (t *IdleTuner) grow(d int) {
	for ; d > 0 && t.rounds < t.max && t.budgetAt(t.rounds+1) <= 2*t.wake; d-- {
		t.rounds++
	}
}

func (t *IdleTuner) shrink() { t.rounds = max(t.min, t.rounds-1) }

// Woken records the latency of one wake-up: from the waker's token to the
// woken worker running.
func (t *IdleTuner) Woken(latency time.Duration) {
	if latency < 0 {
		return
	}
	latency = min(latency, 4*t.wake)
	t.wake += (latency - t.wake) / 8
	if t.budget() > 4*t.wake {
		t.shrink()
	}
}

// Found records an idle stretch that ended with work after failed rounds
// without parking.
func (t *IdleTuner) Found(failed int) {
	switch {
	case failed >= t.rounds-1:
		t.early = 0
		t.grow(1)
	case 2*failed < t.rounds:
		t.early++
		if t.early >= 32 {
			t.early = 0
			t.shrink()
		}
	default:
		t.early = 0
	}
}

// Parked records a park (not a timed sleep) that lasted d; found says the
// worker then found work (it was woken for it), rather than the pool
// closing or the wait ending.
func (t *IdleTuner) Parked(d time.Duration, found bool) {
	t.early = 0
	switch {
	case found && d < 2*t.wake:
		t.grow(2)
	case d > 16*t.budget():
		t.shrink()
	}
}
