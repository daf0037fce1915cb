package cluster

import (
	"context"

	"github.com/worksteal/worksteal/internal/clusterops"
)

// What the worksteal command and the dashboard use of a node beyond this
// package's API reaches it through internal/clusterops, whose hooks are
// set here.
func init() {
	clusterops.Record = func(ctx context.Context, node any, onRefuse func(op, reason, detail string)) error {
		return node.(*Node).runRecorder(ctx, onRefuse)
	}
	clusterops.RecorderStatsOf = func(node any) clusterops.RecorderStats { return node.(*Node).recorderStats() }
	clusterops.CountRefusal = func(node any, role, reason string) { node.(*Node).countRefusal(role, reason) }
}
