package cluster

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/worksteal/worksteal/internal/clusterwire"
)

// stalled says no worker of live (handlers, labels) can run r's tasks.
func stalled(r clusterwire.RouteWait, live []workerInfo) bool {
	ws := make([]clusterwire.Worker, len(live))
	for i, w := range live {
		ws[i] = clusterwire.Worker{Handlers: w.Handlers, Labels: w.Labels}
	}
	return r.Stalled(ws)
}

// stallOf is the Stall of a route whose tasks wait.
func stallOf(r clusterwire.RouteWait) stall {
	return stall{Job: r.Job, Handler: r.Handler, Require: r.Require, Queued: r.Queued, Since: r.Since}
}

// stalls (clusterops.Stalls) lists the routes of job whose queued tasks no live worker can
// run, as the worker registry says: a worker is live while its entry is
// (it refreshes it every 5 s; the entry of a worker killed stays 15 s, so
// a stall shows up to 15 s after the last capable worker died). Empty
// when every queued task has a worker that can run it. worksteal run
// --nats says on stderr what a job waits for, and bounds the wait with
// --wait-timeout; worksteal job status and the dashboard show it too.
//
// A node acting for an owner asks the owner service of worksteal serve:
// a person may not list the routes (their metadata and counts name every
// job).
func (n *Node) stalls(ctx context.Context, job string) ([]stall, error) {
	if err := n.ensure(ctx); err != nil {
		return nil, err
	}
	if n.opts.owner != "" {
		id, err := n.jobID(job)
		if err != nil {
			return nil, err
		}
		data, err := n.ownRequest(ctx, ownStalls, id, []byte(id))
		if err != nil {
			return nil, err
		}
		var stalls []stall
		if err := json.Unmarshal(data, &stalls); err != nil {
			return nil, fmt.Errorf("%w: the owner service's stalls of %s: %v", ErrJetStream, id, err)
		}
		return stalls, nil
	}
	ctx, cancel := n.timeout(ctx)
	defer cancel()
	var waits []clusterwire.RouteWait
	lister := n.stream.ListConsumers(ctx)
	for info := range lister.Info() {
		if r, ok := clusterwire.RouteWaitOf(info); ok && r.Job == job {
			waits = append(waits, r)
		}
	}
	if err := lister.Err(); err != nil {
		return nil, err
	}
	if len(waits) == 0 {
		return nil, nil
	}
	live, err := n.liveWorkers(ctx)
	if err != nil {
		return nil, err
	}
	var stalls []stall
	for _, r := range waits {
		if stalled(r, live) {
			stalls = append(stalls, stallOf(r))
		}
	}
	slices.SortFunc(stalls, func(a, b stall) int { return strings.Compare(a.String(), b.String()) })
	return stalls, nil
}
