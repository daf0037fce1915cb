package policyrt

import (
	"time"

	"github.com/worksteal/worksteal/internal/xrand"
	"github.com/worksteal/worksteal/policy"
)

// IdleKind is what a worker does after a failed round ([IdleState.Next]).
type IdleKind uint8

const (
	// IdleSpin: stay awake for Delay (yielding the processor), still
	// counted as searching, then search again. A worker that waits for a
	// specific event (a join's latch) may stop early when it happens.
	IdleSpin IdleKind = iota + 1
	// IdleSleep: block for at most Delay, then search again. A sleep is a
	// park with a timeout: the worker must announce it exactly like a park
	// (below), so that posted work, or the event it waits for, wakes it at
	// once instead of when the timeout expires.
	IdleSleep
	// IdlePark: block until woken. Before blocking, the worker announces
	// itself — to pushers as a sleeper, and to the event it waits for, if
	// any (the runtime's latchSleeping) — and then re-checks for work and
	// for that event; see PROTOCOL.md "Parking". After a park the worker
	// searches again from round 0.
	IdlePark
)

// String returns "spin", "sleep" or "park".
func (k IdleKind) String() string {
	switch k {
	case IdleSpin:
		return "spin"
	case IdleSleep:
		return "sleep"
	case IdlePark:
		return "park"
	}
	return "IdleKind(?)"
}

// Blocks reports whether the worker blocks (sleeps or parks) and must
// therefore announce itself to whoever may wake it before it blocks.
func (k IdleKind) Blocks() bool { return k == IdleSleep || k == IdlePark }

// IdleStep is one decision of the idle schedule.
type IdleStep struct {
	Kind  IdleKind
	Delay time.Duration // for IdleSpin and IdleSleep; 0 for IdlePark
}

// IdleState is one worker's position in the idle schedule: the number of
// failed rounds since it last found work or parked. It is the pure,
// clock-free part of the idle protocol, shared by every place that waits
// for work — the runtime's main loop and a joiner waiting at a latch, and
// the simulator's idle workers — so all of them follow one schedule and
// draw each delay exactly once.
//
// Use: after every round of steal attempts that found nothing, call Next
// and do what it says; when work is found, call Reset. The zero value is at
// round 0.
type IdleState struct {
	round int
}

// Round returns the number of failed rounds so far in this idle stretch.
func (s *IdleState) Round() int { return s.round }

// Reset starts a new idle stretch (the worker found work).
func (s *IdleState) Reset() { s.round = 0 }

// Next is called after a failed round and says what to do: after failed
// round k < p.Rounds−1, back off for Delay(p, k) — IdleSpin when the delay
// (drawn once, from r) is under SpinLimit, IdleSleep otherwise; after the
// last round, IdlePark, and the state returns to round 0. p must be
// normalized ([NormalizeIdle]); r may be nil for no jitter.
func (s *IdleState) Next(p policy.Idle, r *xrand.Rand) IdleStep {
	if s.round >= p.Rounds-1 {
		s.round = 0
		return IdleStep{Kind: IdlePark}
	}
	d := Delay(p, s.round, r)
	s.round++
	if d < SpinLimit {
		return IdleStep{Kind: IdleSpin, Delay: d}
	}
	return IdleStep{Kind: IdleSleep, Delay: d}
}
