package policy

import (
	"fmt"
	"strings"

	"github.com/worksteal/worksteal/internal/xrand"
)

// Victim names a victim-selection policy: which worker a thief tries next.
type Victim uint8

const (
	// Random picks a uniformly random other worker on every attempt.
	Random Victim = iota
	// RoundRobin visits the other workers in order, continuing where the
	// previous round stopped.
	RoundRobin
	// Largest picks the worker whose queue is currently longest ("adaptive").
	// Reading every queue length costs O(workers) per attempt.
	Largest
	// TwoChoices samples two random workers and picks the longer queue
	// (the power of two choices).
	TwoChoices
	// Locality tries the thief's own locality group first (random order),
	// then widens to the other workers (random order).
	Locality
)

var victimNames = [...]string{"random", "round-robin", "largest", "two-choices", "locality"}

// String returns the policy's name, as ParseVictim accepts it.
func (v Victim) String() string {
	if int(v) < len(victimNames) {
		return victimNames[v]
	}
	return fmt.Sprintf("Victim(%d)", v)
}

// ParseVictim maps a policy name (as printed by String; "adaptive" is an
// alias of "largest") to its Victim.
func ParseVictim(s string) (Victim, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	if s == "adaptive" {
		return Largest, nil
	}
	for i, n := range victimNames {
		if s == n {
			return Victim(i), nil
		}
	}
	return 0, fmt.Errorf("policy: unknown victim policy %q (want one of %s)", s, strings.Join(victimNames[:], ", "))
}

// Amount says how much one successful steal takes.
type Amount uint8

const (
	// StealOne takes one item, the oldest.
	StealOne Amount = iota
	// StealHalf takes about half of the victim's queue (bounded), so a thief
	// that found a deep queue need not come back for each item.
	StealHalf
)

// String returns "one" or "half", as ParseAmount accepts it.
func (a Amount) String() string {
	switch a {
	case StealOne:
		return "one"
	case StealHalf:
		return "half"
	}
	return fmt.Sprintf("Amount(%d)", a)
}

// ParseAmount maps "one" or "half" to its Amount.
func ParseAmount(s string) (Amount, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "one", "1":
		return StealOne, nil
	case "half":
		return StealHalf, nil
	}
	return 0, fmt.Errorf("policy: unknown steal amount %q (want one or half)", s)
}

// Take returns how many of n queued items one steal takes under a.
func (a Amount) Take(n int) int {
	if n <= 0 {
		return 0
	}
	if a == StealHalf {
		h := (n + 1) / 2
		if h > MaxBatch {
			h = MaxBatch
		}
		return h
	}
	return 1
}

// MaxBatch bounds one steal-half.
const MaxBatch = 32

// Selector chooses victims for one thief. It is not safe for concurrent use:
// each thief owns one. A steal round is Begin followed by Attempts() calls of
// Next.
type Selector struct {
	kind    Victim
	self, n int
	groups  *Groups
	rng     xrand.Rand
	next    int   // round-robin cursor
	attempt int   // attempts made in this round
	perm    []int // Locality: this round's visiting order

	// Random: a round visits the other workers in the order
	// start, start+stride, start+2·stride … (mod n−1), with stride coprime
	// to n−1, so every other worker exactly once, in a random order chosen
	// in O(1) per round (the Go scheduler's randomOrder).
	coprimes      []int
	start, stride int
}

// NewSelector returns the selector of worker self among n workers. groups is
// only used by Locality and may be nil (then everyone is one group).
func NewSelector(kind Victim, self, n int, groups *Groups, seed uint64) *Selector {
	if n <= 0 || self < 0 || self >= n {
		panic(fmt.Sprintf("policy: NewSelector(self=%d, n=%d) out of range", self, n))
	}
	s := &Selector{kind: kind, self: self, n: n, groups: groups, next: self + 1}
	s.rng.Seed(xrand.SplitMix64(seed ^ uint64(self)*0x9e3779b97f4a7c15))
	if kind == Random && n > 1 {
		for i := 1; i <= n-1; i++ {
			if gcd(i, n-1) == 1 {
				s.coprimes = append(s.coprimes, i)
			}
		}
	}
	return s
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// Attempts is the number of attempts in one round: one per other worker.
func (s *Selector) Attempts() int { return s.n - 1 }

// Begin starts a new round of attempts.
func (s *Selector) Begin() {
	s.attempt = 0
	switch s.kind {
	case Locality:
		s.shuffle()
	case Random:
		if s.n > 1 {
			s.start = s.rng.Intn(s.n - 1)
			s.stride = s.coprimes[s.rng.Intn(len(s.coprimes))]
		}
	}
}

// shuffle builds a Locality round's visiting order: the own group first,
// then the other workers, each part in random order.
func (s *Selector) shuffle() {
	s.perm = s.perm[:0]
	if s.kind == Locality && s.groups != nil {
		g := s.groups.Of(s.self)
		local := s.groups.Members(g)
		start := len(s.perm)
		for _, m := range local {
			if m != s.self && m < s.n {
				s.perm = append(s.perm, m)
			}
		}
		s.shuffleRange(start, len(s.perm))
		start = len(s.perm)
		for i := 0; i < s.n; i++ {
			if i != s.self && s.groups.Of(i) != g {
				s.perm = append(s.perm, i)
			}
		}
		s.shuffleRange(start, len(s.perm))
		return
	}
	for i := 0; i < s.n; i++ {
		if i != s.self {
			s.perm = append(s.perm, i)
		}
	}
	s.shuffleRange(0, len(s.perm))
}

func (s *Selector) shuffleRange(lo, hi int) {
	for i := hi - 1; i > lo; i-- {
		j := lo + s.rng.Intn(i-lo+1)
		s.perm[i], s.perm[j] = s.perm[j], s.perm[i]
	}
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
	case RoundRobin:
		v := s.next % s.n
		if v == s.self {
			v = (v + 1) % s.n
		}
		s.next = v + 1
		return v
	case Largest:
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
	case TwoChoices:
		x, y := s.other(), s.other()
		if queueLen(y) > queueLen(x) {
			return y
		}
		return x
	case Random:
		if s.coprimes == nil {
			return s.other()
		}
		v := (s.start + a*s.stride) % (s.n - 1)
		if v >= s.self {
			v++
		}
		return v
	default: // Locality
		if len(s.perm) != s.n-1 {
			s.shuffle()
		}
		return s.perm[a%len(s.perm)]
	}
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
