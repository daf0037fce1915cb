package policy

import (
	"fmt"
	"time"

	"github.com/worksteal/worksteal/internal/xrand"
)

// Idle is the schedule of a worker that found no work: it makes Rounds rounds
// of steal attempts (each round tries every other worker once, in the victim
// policy's order); after failed round k it backs off for Delay(k) —
// exponential from Base, capped at Cap, with a random jitter — except after
// the last round, when it parks until woken. internal/policyrt.IdleState walks a worker
// through this schedule.
//
// The zero value means DefaultIdle. Otherwise zero Rounds, Base or Cap take
// the default, while Jitter is taken as given (0: no jitter). A negative
// Rounds means park after the first failed round.
type Idle struct {
	Rounds int           // rounds of steal attempts before parking (default 8)
	Base   time.Duration // backoff after the first failed round (default 1µs)
	Cap    time.Duration // largest single backoff (default 100µs)
	Jitter float64       // fraction of each delay drawn at random, in [0,1] (default 0.5)
	// Adaptive tunes Rounds per worker from what the worker observes
	// (internal/policyrt.IdleTuner): the round in which it finds work, how long its parks
	// last, and how long its wake-ups take. Rounds is the starting point.
	Adaptive bool
}

// DefaultIdle is the schedule used when a Config leaves Idle zero: 8 rounds
// with about 0.13 ms of backing off between them ([Idle.Budget]), then park.
var DefaultIdle = Idle{Rounds: 8, Base: time.Microsecond, Cap: 100 * time.Microsecond, Jitter: 0.5}

// SpinLimit is the longest backoff a worker spends awake ([IdleSpin]); a
// longer one is a timed sleep ([IdleSleep]). Waking a sleeping goroutine
// costs a few microseconds, so shorter waits are cheaper spent yielding.
const SpinLimit = 20 * time.Microsecond

// Normalize fills zero fields with the defaults and checks the others.
func (p Idle) Normalize() (Idle, error) {
	if p == (Idle{}) || p == (Idle{Adaptive: true}) {
		d := DefaultIdle
		d.Adaptive = p.Adaptive
		return d, nil
	}
	if p.Rounds == 0 {
		p.Rounds = DefaultIdle.Rounds
	}
	if p.Rounds < 0 {
		p.Rounds = 1
	}
	if p.Base == 0 {
		p.Base = DefaultIdle.Base
	}
	if p.Cap == 0 {
		p.Cap = DefaultIdle.Cap
	}
	if p.Base < 0 || p.Cap < 0 {
		return p, fmt.Errorf("policy: negative idle backoff (base %v, cap %v)", p.Base, p.Cap)
	}
	if p.Cap < p.Base {
		return p, fmt.Errorf("policy: idle backoff cap %v below base %v", p.Cap, p.Base)
	}
	if p.Jitter < 0 || p.Jitter > 1 {
		return p, fmt.Errorf("policy: idle jitter %v outside [0,1]", p.Jitter)
	}
	return p, nil
}

// Delay returns the backoff after failed round k (0-based):
// min(Base·2^k, Cap), of which a fraction Jitter is drawn uniformly at random
// (so concurrent thieves spread out instead of retrying in lockstep). Each
// call with a non-nil r draws anew: a caller must draw a round's delay once
// and act on that one value (internal/policyrt.IdleState.Next does).
func (p Idle) Delay(k int, r *xrand.Rand) time.Duration {
	d := p.Base
	for i := 0; i < k && d < p.Cap; i++ {
		d *= 2
	}
	if d > p.Cap {
		d = p.Cap
	}
	if p.Jitter > 0 && r != nil && d > 0 {
		j := time.Duration(p.Jitter * float64(d))
		if j > 0 {
			d = d - j + time.Duration(r.Uint64()%uint64(j+1))
		}
	}
	return d
}

// Budget returns the longest a worker backs off before parking: the sum of
// the delays without jitter between its Rounds rounds (Rounds−1 of them).
func (p Idle) Budget() time.Duration {
	var sum time.Duration
	for k := 0; k < p.Rounds-1; k++ {
		sum += p.Delay(k, nil)
	}
	return sum
}
