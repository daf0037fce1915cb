package policy

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
)
