package policy

import "fmt"

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

// String returns the policy's name, as a sim scenario and the worksteal
// command's --victim flag write it.
func (v Victim) String() string {
	if int(v) < len(victimNames) {
		return victimNames[v]
	}
	return fmt.Sprintf("Victim(%d)", v)
}

// Amount says how much one successful steal takes.
type Amount uint8

const (
	// StealHalf takes half of the victim's queue, rounded up, and at most a
	// cap: a thief that found a deep queue need not come
	// back for each item. The runtime caps one steal-half at [MaxBatch],
	// and takes the oldest item alone when it is a Join's second half,
	// which holds about as much work as all the younger halves of the
	// same Join stack (PROTOCOL.md "A fork is taken alone"); spawned tasks
	// go by half.
	// It is the zero value: the runtime's default. On 16 cores it cut the
	// time of the unbalanced UTS tree by a quarter against StealOne (fewer
	// thieves fail: they come back less often) and fib and nqueens by
	// 4-5 %; at 2 workers the two are level (docs/measured.md, "Many cores").
	StealHalf Amount = iota
	// StealOne takes one item, the oldest.
	StealOne
)

// String returns "one" or "half", as a sim scenario writes it.
func (a Amount) String() string {
	switch a {
	case StealOne:
		return "one"
	case StealHalf:
		return "half"
	}
	return fmt.Sprintf("Amount(%d)", a)
}

// MaxBatch is the runtime's cap on one steal-half: deque.StealHalf moves at
// most this many items, so that a thief does not hold up the owner with a
// long claim. The simulator uses it by default and can lift it.
const MaxBatch = 32
