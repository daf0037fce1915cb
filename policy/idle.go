package policy

import (
	"fmt"
	"time"

	"github.com/worksteal/worksteal/internal/xrand"
)

// Idle is the schedule of a worker that found no work: it makes Rounds rounds
// of steal attempts (each round tries every other worker once, in the victim
// policy's order); after round k fails it backs off for Delay(k) —
// exponential from Base, capped at Cap, with a random jitter — and after the
// last round it parks until work is posted.
//
// The zero value means DefaultIdle. Otherwise zero Rounds, Base or Cap take
// the default, while Jitter is taken as given (0: no jitter). A negative
// Rounds means park after the first failed round.
type Idle struct {
	Rounds int           // rounds of steal attempts before parking (default 8)
	Base   time.Duration // backoff after the first failed round (default 1µs)
	Cap    time.Duration // largest single backoff (default 100µs)
	Jitter float64       // fraction of each delay drawn at random, in [0,1] (default 0.5)
}

// DefaultIdle is the schedule used when a Config leaves Idle zero: about
// 0.25 ms of searching and backing off, then park.
var DefaultIdle = Idle{Rounds: 8, Base: time.Microsecond, Cap: 100 * time.Microsecond, Jitter: 0.5}

// Normalize fills zero fields with the defaults and checks the others.
func (p Idle) Normalize() (Idle, error) {
	if p == (Idle{}) {
		return DefaultIdle, nil
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
// (so concurrent thieves spread out instead of retrying in lockstep).
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

// Budget returns the longest a worker searches and backs off before parking
// (the sum of the delays without jitter).
func (p Idle) Budget() time.Duration {
	var sum time.Duration
	for k := 0; k < p.Rounds; k++ {
		sum += p.Delay(k, nil)
	}
	return sum
}
