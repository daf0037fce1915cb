package policy

import "time"

// Idle is the schedule of a worker that found no work: it makes Rounds rounds
// of steal attempts (each round tries every other worker once, in the victim
// policy's order); after failed round k it backs off for min(Base·2^k, Cap),
// of which a fraction Jitter is drawn at random, except after the last round,
// when it parks until woken. A backoff shorter than 20µs is spent awake
// (yielding), a longer one asleep. The default schedule makes 8 rounds with
// about 0.13 ms of backing off between them, then parks.
//
// The zero value is the default schedule: Rounds 8, Base 1µs, Cap 100µs,
// Jitter 0.5. Otherwise zero Rounds, Base or Cap take the default, while
// Jitter is taken as given (0: no jitter). A negative Rounds means park after
// the first failed round. A negative Base or Cap, a Cap below Base or a
// Jitter outside [0,1] is refused by worksteal.New (and by a sim scenario).
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
