package policy

import "time"

// IdleTuner adapts one worker's idle schedule (Idle.Adaptive) to what the
// worker observes, instead of a fixed number of rounds before parking. It
// is the pure, clock-free decision; the runtime feeds it, per idle stretch,
// how many rounds failed before work was found, whether and for how long
// the worker parked, and how long its wake-up took (from the waker's token
// to the worker running). Owner-only: not safe for concurrent use.
//
// The trade-off is the ski-rental one. Backing off a round more costs the
// round's delay; parking too early costs a wake-up (measured) plus the
// search that follows. So:
//
//   - work found in the last round before the park (the budget was just
//     enough): one round more;
//   - a park that work ended within two wake-up latencies (waking cost more
//     than waiting would have): two rounds more;
//   - a park that lasted longer than 16 × the whole backoff budget (the
//     pool was idle: the rounds before it were spent for nothing): one
//     round fewer;
//   - 32 stretches in a row that found work in the first half of the
//     budget: one round fewer (the rest is not used).
//
// Rounds stay between 2 and 4 × the configured Rounds (at least 8).
type IdleTuner struct {
	base       Idle
	rounds     int
	min, max   int
	early      int           // consecutive stretches that ended in the first half
	wake       time.Duration // EWMA of the wake-up latency (1/8 weight)
	budgetMemo time.Duration
	memoFor    int
}

// NewIdleTuner starts a tuner at p.Rounds; p must be normalized.
func NewIdleTuner(p Idle) IdleTuner {
	return IdleTuner{base: p, rounds: p.Rounds, min: 2, max: max(8, 4*p.Rounds), wake: 20 * time.Microsecond}
}

// Idle returns the schedule to follow now: the configured one with the
// tuned number of rounds.
func (t *IdleTuner) Idle() Idle {
	p := t.base
	p.Rounds = t.rounds
	return p
}

// Rounds returns the tuned number of rounds.
func (t *IdleTuner) Rounds() int { return t.rounds }

// WakeLatency returns the current estimate of a wake-up's latency.
func (t *IdleTuner) WakeLatency() time.Duration { return t.wake }

func (t *IdleTuner) budget() time.Duration {
	if t.memoFor != t.rounds {
		t.budgetMemo, t.memoFor = t.Idle().Budget(), t.rounds
	}
	return t.budgetMemo
}

func (t *IdleTuner) add(d int) {
	t.rounds = min(t.max, max(t.min, t.rounds+d))
}

// Woken records the latency of one wake-up: from the waker's token to the
// woken worker running.
func (t *IdleTuner) Woken(latency time.Duration) {
	if latency < 0 {
		return
	}
	t.wake += (latency - t.wake) / 8
}

// Found records an idle stretch that ended with work after failed rounds
// without parking.
func (t *IdleTuner) Found(failed int) {
	switch {
	case failed >= t.rounds-1:
		t.early = 0
		t.add(1)
	case 2*failed < t.rounds:
		t.early++
		if t.early >= 32 {
			t.early = 0
			t.add(-1)
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
		t.add(2)
	case d > 16*t.budget():
		t.add(-1)
	}
}
