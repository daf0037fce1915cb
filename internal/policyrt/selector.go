package policyrt

import (
	"fmt"

	"github.com/worksteal/worksteal/internal/xrand"
	"github.com/worksteal/worksteal/policy"
)

// Selector chooses victims for one thief. It is not safe for concurrent use:
// each thief owns one. A steal round is Begin followed by Attempts() calls of
// Next.
//
// A Selector's state is O(1) whatever the number of workers: a random round
// is an arithmetic progression modulo the number of candidates with a stride
// coprime to it, drawn at Begin (the Go scheduler's randomOrder), so a pool
// or a simulation of P workers holds O(P) selector state in all.
type Selector struct {
	kind    policy.Victim
	self, n int
	groups  *policy.Groups
	rng     xrand.Rand
	next    int // round-robin cursor
	attempt int // attempts made in this round
	// The random order of this round: candidate k of m is
	// (start + k·stride) mod m, with gcd(stride, m) = 1, so every candidate
	// comes exactly once per m steps. Random uses it over the n−1 others;
	// Locality over its own group (phase 0), then over all n workers
	// skipping its own group (phase 1).
	start, stride int
	// Locality only: the second progression, and where the round is.
	start2, stride2 int
	phase, k        int
}

// NewSelector returns the selector of worker self among n workers. groups is
// only used by Locality and may be nil (then everyone is one group).
func NewSelector(kind policy.Victim, self, n int, groups *policy.Groups, seed uint64) *Selector {
	if n <= 0 || self < 0 || self >= n {
		panic(fmt.Sprintf("policy: NewSelector(self=%d, n=%d) out of range", self, n))
	}
	s := &Selector{kind: kind, self: self, n: n, groups: groups, next: self + 1, stride: 1, stride2: 1}
	s.rng.Seed(xrand.SplitMix64(seed ^ uint64(self)*0x9e3779b97f4a7c15))
	return s
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// progression draws a random start and a random stride coprime to m (m ≥ 1).
// Coprimes are dense (their share of [1, m] is φ(m)/m, above 1/4 for every
// m below 2^30), so rejection sampling takes a few draws on average.
func (s *Selector) progression(m int) (start, stride int) {
	if m <= 1 {
		return 0, 1
	}
	start = s.rng.Intn(m)
	for {
		stride = 1 + s.rng.Intn(m-1)
		if gcd(stride, m) == 1 {
			return start, stride
		}
	}
}

// Attempts is the number of attempts in one round: one per other worker.
func (s *Selector) Attempts() int { return s.n - 1 }

// Begin starts a new round of attempts.
func (s *Selector) Begin() {
	s.attempt = 0
	switch s.kind {
	case policy.Random:
		s.start, s.stride = s.progression(s.n - 1)
	case policy.Locality:
		s.phase, s.k = 0, 0
		s.start, s.stride = s.progression(len(s.ownGroup()))
		s.start2, s.stride2 = s.progression(s.n)
	}
}

// ownGroup returns the members of the thief's locality group (every worker
// when there are no groups: the group is then implicit, see localityNext).
func (s *Selector) ownGroup() []int {
	if s.groups == nil {
		return nil
	}
	return s.groups.Members(s.groups.Of(s.self))
}

// Next returns the victim of the next attempt in this round, or -1 when there
// is no other worker. queueLen reports a worker's current queue length; only
// Largest and TwoChoices call it.
func (s *Selector) Next(queueLen func(worker int) int) int {
	if s.n < 2 {
		return -1
	}
	a := s.attempt
	s.attempt++
	switch s.kind {
	case policy.RoundRobin:
		v := s.next % s.n
		if v == s.self {
			v = (v + 1) % s.n
		}
		s.next = v + 1
		return v
	case policy.Largest:
		best, bestLen := -1, -1
		for i := 0; i < s.n; i++ {
			if i == s.self {
				continue
			}
			if l := queueLen(i); l > bestLen {
				best, bestLen = i, l
			}
		}
		if bestLen <= 0 { // everyone looks empty: fall back to a random probe
			return s.other()
		}
		return best
	case policy.TwoChoices:
		x, y := s.other(), s.other()
		if queueLen(y) > queueLen(x) {
			return y
		}
		return x
	case policy.Random:
		v := (s.start + (a%(s.n-1))*s.stride) % (s.n - 1)
		if v >= s.self {
			v++
		}
		return v
	default: // Locality
		return s.localityNext()
	}
}

// localityNext walks the own group's progression, then the progression over
// all workers skipping the own group, and starts over when both are spent
// (a caller that makes more than Attempts() calls). Each call is amortized
// O(1) over a round: a round visits each worker once in each phase.
func (s *Selector) localityNext() int {
	own := s.ownGroup()
	g := 0
	if s.groups != nil {
		g = s.groups.Of(s.self)
	}
	for tries := 0; tries < 2*(s.n+len(own))+2; tries++ {
		if s.phase == 0 {
			if s.groups == nil || s.k >= len(own) {
				s.phase, s.k = 1, 0
				continue
			}
			v := own[(s.start+s.k*s.stride)%len(own)]
			s.k++
			if v != s.self && v < s.n {
				return v
			}
			continue
		}
		if s.k >= s.n {
			s.phase, s.k = 0, 0 // round spent: start over in the same order
			continue
		}
		v := (s.start2 + s.k*s.stride2) % s.n
		s.k++
		if v != s.self && (s.groups == nil || s.groups.Of(v) != g) {
			return v
		}
	}
	return s.other()
}

// other returns a uniformly random worker other than self.
func (s *Selector) other() int {
	v := s.rng.Intn(s.n - 1)
	if v >= s.self {
		v++
	}
	return v
}

// Rand exposes the selector's generator, for jitter drawn by the same thief.
func (s *Selector) Rand() *xrand.Rand { return &s.rng }
