package clusterops

// What the recorder (Record) counts and logs: the reasons it refuses a
// worker's or a person's request, and its counts, which worksteal serve
// prints at stop and the dashboard shows (<stream>.refusals, keyed
// "<role>/<reason>").

// Refusal reasons, as the recorder counts and logs them.
const (
	RefusedNotHeld     = "not-held"     // the delivery named is not held: settled, never made, or delivered again since (its lease lost)
	RefusedNotHolder   = "not-holder"   // the delivery named went to another worker
	RefusedNotLost     = "not-lost"     // a peer named lost answers, or spoke lately
	RefusedMismatch    = "mismatch"     // the result's job, task, index, parent or handler is not the delivery's
	RefusedStaleJob    = "stale-job"    // the delivery is of no current job (deleted, re-created, pre-seeded, cancelled)
	RefusedBadChild    = "bad-child"    // a child id that is not a descendant of the task held, or a listed child that is not
	RefusedMalformed   = "malformed"    // an unreadable request
	RefusedConflict    = "conflict"     // two workers' held lists claim a delivery the holder table lacks (after serve restarted): handed back
	RefusedNoSpawn     = "spawn-denied" // the job's submitter did not allow spawning
	RefusedUnknownStep = "unknown-op"   // an operation the recorder does not know
	// DiscardedNoJob counts task messages on the subjects of no recorded
	// job, which the recorder purges (see Record).
	DiscardedNoJob = "no-job"
)

// RefusedNotOwner: a request of the owner service for a job of another
// owner (the server's permissions refuse the subject first).
const RefusedNotOwner = "not-owner"

// RecorderStats are a recorder's counts since Record started.
type RecorderStats struct {
	Recorded, Duplicates, Failures, Discarded, Spawned int64
	// Refused counts the refused requests by reason (Refused*).
	Refused map[string]int64
	// RefusedBy counts them by "<role>/<reason>" (see refusalKey), as
	// the dashboard shows them.
	RefusedBy map[string]int64
}
