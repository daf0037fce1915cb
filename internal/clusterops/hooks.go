package clusterops

import "context"

// The node's part, set by package cluster in its init: cluster imports
// this package, so its Node and Option cannot be named here (as
// internal/jobio's Of and With are runner's). A node is a *cluster.Node;
// an option returned is a cluster.Option (the caller asserts it:
// clusterops.WithReady(f).(cluster.Option)).
var (
	// Record runs the recorder on node's connection until ctx is done:
	// it alone writes the results and failures buckets and publishes
	// the children that workers hand over, for the workers that connect
	// with the worker role, whose own permissions allow none of that
	// (see cluster's package doc, "Authority"). Its connection needs the
	// rights to write those buckets, read the task stream by sequence,
	// read job records and publish tasks (worksteal serve runs it on an
	// in-process connection of its own). Several recorders may run (one
	// per server of a cluster): they share the requests. It also runs
	// the owner service that a person's node asks on
	// <stream>.own.<owner>.<op>.
	//
	// onRefuse, if not nil, is called for each refused request (op, the
	// reason, one of the Refused* values, and a detail naming the job
	// and task), so the server can log it; RecorderStatsOf counts them.
	Record func(ctx context.Context, node any, onRefuse func(op, reason, detail string)) error
	// RecorderStatsOf returns the counts of the recorder node runs
	// (Record); zero if it runs none.
	RecorderStatsOf func(node any) RecorderStats
	// CountRefusal adds one refusal made outside the recorder, by role
	// and reason, to the counts it publishes on <stream>.refusals
	// (worksteal serve counts so its embedded server's permission
	// violations: "worker/server/publish-denied", ...). Counts given
	// before Record starts are added when it does; without Record they
	// are never published.
	CountRefusal func(node any, role, reason string)

	// WithLimits sets the storage limits the node sets up the tier with,
	// and applies them to a tier set up already (worksteal serve's
	// recorder does; a node without it leaves the limits as they are).
	WithLimits func(StorageLimits) any
	// WithReady calls f once Serve has put this worker in the registry
	// and is about to pull tasks: from then on a submitter sees its
	// handlers and labels. worksteal worker prints "serving" from it.
	WithReady func(f func()) any
	// WithSpeed advertises the worker's relative speed (1 = a reference
	// machine; default 1) in the worker registry (WorkerInfo.Speed), for
	// operators and dashboards; scheduling does not use it.
	WithSpeed func(s float64) any

	// Jobs lists the recorded jobs, oldest first: a node acting for an
	// owner (cluster.WithOwner) lists its owner's only.
	Jobs func(ctx context.Context, node any) ([]JobInfo, error)
	// Job returns the record of one job; cluster.ErrJobNotFound if there
	// is none.
	Job func(ctx context.Context, node any, id string) (JobInfo, error)
	// Workers lists the live workers (those that refreshed their
	// registration in the last 15 seconds and have not stopped).
	Workers func(ctx context.Context, node any) ([]WorkerInfo, error)
	// Handlers returns the names of the handlers registered on node,
	// sorted.
	Handlers func(node any) []string
	// StatsOf returns the node's worker counters since cluster.New.
	StatsOf func(node any) Stats
	// Stalls lists the routes of job whose queued tasks no live worker
	// can run, as the worker registry says: a worker is live while its
	// entry is (it refreshes it every 5 s; the entry of a worker killed
	// stays 15 s, so a stall shows up to 15 s after the last capable
	// worker died). Empty when every queued task has a worker that can
	// run it. worksteal run --nats says on stderr what a job waits for,
	// and bounds the wait with --wait-timeout; worksteal job status and
	// the dashboard show it too. A node acting for an owner asks the
	// owner service of worksteal serve.
	Stalls func(ctx context.Context, node any, job string) ([]Stall, error)
)
