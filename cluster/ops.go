package cluster

import (
	"context"

	"github.com/worksteal/worksteal/internal/clusterops"
)

// What the worksteal command and the dashboard use of a node beyond this
// package's API reaches it through internal/clusterops, whose hooks are
// set here.
func init() {
	clusterops.ErrInvalidOption = ErrInvalidOption
	clusterops.Record = func(ctx context.Context, node any, onRefuse func(op, reason, detail string)) error {
		return node.(*Node).runRecorder(ctx, onRefuse)
	}
	clusterops.RecorderStatsOf = func(node any) clusterops.RecorderStats { return node.(*Node).recorderStats() }
	clusterops.WithLimits = func(l clusterops.StorageLimits) any { return withLimits(l) }
	clusterops.WithReady = func(f func()) any { return withReady(f) }
	clusterops.WithSpeed = func(s float64) any { return withSpeed(s) }
	clusterops.CountRefusal = func(node any, role, reason string) { node.(*Node).countRefusal(role, reason) }
	clusterops.Jobs = func(ctx context.Context, node any) ([]clusterops.JobInfo, error) { return node.(*Node).listJobs(ctx) }
	clusterops.Job = func(ctx context.Context, node any, id string) (clusterops.JobInfo, error) {
		return node.(*Node).jobInfo(ctx, id)
	}
	clusterops.Workers = func(ctx context.Context, node any) ([]clusterops.WorkerInfo, error) {
		return node.(*Node).liveWorkers(ctx)
	}
	clusterops.Handlers = func(node any) []string { return node.(*Node).handlerNames() }
	clusterops.StatsOf = func(node any) clusterops.Stats { return node.(*Node).counters() }
	clusterops.Stalls = func(ctx context.Context, node any, job string) ([]clusterops.Stall, error) {
		return node.(*Node).stalls(ctx, job)
	}
}
