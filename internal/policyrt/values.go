package policyrt

import (
	"fmt"
	"strings"
	"time"

	"github.com/worksteal/worksteal/internal/xrand"
	"github.com/worksteal/worksteal/policy"
)

// The runtime's reading of policy's values: defaults, checks, parsing by
// name and the arithmetic of a steal and of a backoff. A user sets the
// values in worksteal.Config or a sim scenario; the runtime and the
// simulator read them through these functions, so both read them alike.

// DefaultIdle is the schedule used when a Config leaves Idle zero: 8 rounds
// with about 0.13 ms of backing off between them ([Budget]), then park.
var DefaultIdle = policy.Idle{Rounds: 8, Base: time.Microsecond, Cap: 100 * time.Microsecond, Jitter: 0.5}

// SpinLimit is the longest backoff a worker spends awake ([IdleSpin]); a
// longer one is a timed sleep ([IdleSleep]). Waking a sleeping goroutine
// costs a few microseconds, so shorter waits are cheaper spent yielding.
const SpinLimit = 20 * time.Microsecond

// NormalizeIdle fills zero fields of p with the defaults and checks the
// others (policy.Idle's doc says which).
func NormalizeIdle(p policy.Idle) (policy.Idle, error) {
	if p == (policy.Idle{}) || p == (policy.Idle{Adaptive: true}) {
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

// Delay returns the backoff of schedule p after failed round k (0-based):
// min(Base·2^k, Cap), of which a fraction Jitter is drawn uniformly at random
// (so concurrent thieves spread out instead of retrying in lockstep). Each
// call with a non-nil r draws anew: a caller must draw a round's delay once
// and act on that one value ([IdleState.Next] does).
func Delay(p policy.Idle, k int, r *xrand.Rand) time.Duration {
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

// Budget returns the longest a worker under schedule p backs off before
// parking: the sum of the delays without jitter between its Rounds rounds
// (Rounds−1 of them).
func Budget(p policy.Idle) time.Duration {
	var sum time.Duration
	for k := 0; k < p.Rounds-1; k++ {
		sum += Delay(p, k, nil)
	}
	return sum
}

// ParseVictim maps a policy name (as printed by policy.Victim's String;
// "adaptive" is an alias of "largest") to its Victim.
func ParseVictim(s string) (policy.Victim, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	if s == "adaptive" {
		return policy.Largest, nil
	}
	var names []string
	for v := policy.Random; v <= policy.Locality; v++ {
		if s == v.String() {
			return v, nil
		}
		names = append(names, v.String())
	}
	return 0, fmt.Errorf("policy: unknown victim policy %q (want one of %s)", s, strings.Join(names, ", "))
}

// ParseAmount maps "one" or "half" to its Amount.
func ParseAmount(s string) (policy.Amount, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "one", "1":
		return policy.StealOne, nil
	case "half":
		return policy.StealHalf, nil
	}
	return 0, fmt.Errorf("policy: unknown steal amount %q (want one or half)", s)
}

// Take returns how many of n queued items one steal takes under a: one, or
// half rounded up but at most max items. A max below 1 means no cap (the
// steal-half of the analyses, which take a full half); the runtime's cap is
// policy.MaxBatch.
func Take(a policy.Amount, n, max int) int {
	if n <= 0 {
		return 0
	}
	if a == policy.StealHalf {
		h := (n + 1) / 2
		if max > 0 && h > max {
			h = max
		}
		return h
	}
	return 1
}
