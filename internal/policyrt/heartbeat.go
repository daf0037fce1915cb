package policyrt

// The heartbeat of the runtime's latent-frame join protocol (PROTOCOL.md
// "Join"), named once here so that the simulator (sim's Policy.Heartbeat)
// and the runtime cannot drift apart.
const (
	// HeartbeatJoins is how many Joins of one worker make a heartbeat:
	// at every HeartbeatJoins-th Join (counting Joins only, not scope
	// spawns, which are public at once) the worker promotes its oldest
	// latent frame, whether or not a worker is idle, and publishes its
	// statistics. A power of two: the runtime tests it with a mask.
	HeartbeatJoins = 1 << 12

	// HeartbeatPolls is how many calls of Worker.Poll make a heartbeat
	// (a first half that polls instead of joining: a par loop's chunks, a
	// leaf that calls Poll). A power of two.
	HeartbeatPolls = 8

	// EagerDepth is how many levels of Joins at the root of a worker's
	// stack push their second halves at once (eagerly, as a deque-based
	// join does) instead of keeping them latent: the Joins made at nesting
	// depth < EagerDepth, counted from the job the worker took from its
	// main loop (a steal, a submission). These few frames are the largest
	// pieces and cost a push and a pop each; they are what keeps a tree of
	// coarse leaves that never poll from waiting for an owner inside a
	// leaf. 2^EagerDepth − 1 eager Joins per job at most.
	EagerDepth = 6

	// LatentFrames is how many latent Join frames a worker keeps open
	// beyond its promoted ones (PROTOCOL.md "Join"): a Join made while
	// fewer are open writes a frame, which a poll point may offer to
	// thieves; a deeper one is a plain call of both halves, which no
	// other worker can ever see. The oldest open Joins are the latent
	// ones, so the largest pieces stay offerable.
	LatentFrames = 1

	// HungryLatentFrames is the latent window of a worker whose thieves
	// are hungry: an offer (a poll point that found a worker idle) found
	// its deque drained and promoted its frames. Until the next beat
	// without such an offer, its Joins open up to this many latent frames
	// beyond the promoted ones, so that the next offer hands over the
	// oldest halves of that stretch of Joins, as a deque-based join
	// would, instead of one old frame and the Join that polls. On an
	// unbalanced deep tree (UTS b0=6000 at 16 workers) the one-frame
	// window fed the thieves halves from deep in the owner's stack, most
	// of them a few nodes, and the runtime ran 4-6x rayon's time
	// (PROTOCOL.md "Hungry thieves").
	HungryLatentFrames = 256

	// QuietBeats is how many heartbeats in a row without an offer that
	// promoted (a poll point that found a worker idle and the deque
	// drained) narrow a widened window back to LatentFrames; a worker
	// that parks narrows at once (idleWait.failed). On UTS b0=6000 at 2
	// workers one quiet beat narrows and widens the window 22-33 times a
	// run, and the thieves take 8-10 thousand pieces; 64 took that to
	// 0.7-1.6 thousand but not the run's time, and cost fib 35 at 2
	// workers frame Joins (6-10 times as many; 3 % in alternated runs,
	// inside the noise) which at 16 workers, with thieves hungry far more
	// often, could cost much more. So it stays 1 until a many-core
	// machine measures both (scripts/runtime-16.sh step 7; PROTOCOL.md
	// "Hungry thieves").
	QuietBeats = 1

	// EagerWidens: an eager Join (EagerDepth) that finds a worker idle
	// widens the window to HungryLatentFrames, as an offer that promotes
	// does. Its promotion fills the deque, so the poll points after it
	// find work there and do not offer (nor widen), and by the time the
	// thieves have taken those halves the owner is deep in plain calls.
	// The simulator, which since stop 54 steals as the runtime does on
	// UTS at 2 workers, puts UTS b0=6000 with the hungry window at 84.5 ms
	// at 16 workers and 35.2 at 64 without it, 81.9 and 24.0 with it (the
	// eager protocol: 70.6 and 23.2), fib 30 at 64 workers 8.9 % over
	// every half offerable without it and level with it, and nothing moves
	// at 2 workers. But the simulator does not charge a frame Join more
	// than a plain call, and the runtime at 2 workers measured fib 35
	// 10.7 % slower with it (6 alternated rounds, slower in each; UTS 6000
	// 1.9 % faster, nqueens 13 1.3 % slower, the coarse tree level). So it
	// stays off until a many-core machine weighs both
	// (scripts/runtime-16.sh step 7 runs it on).
	EagerWidens = false
)
