package cluster

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/worksteal/worksteal/internal/clusterops"
)

// The recorder's refusal counts, for the dashboard: every second that they
// changed, the recorder publishes them on <stream>.refusals (only serve's
// recorder may; observers may hear it), keyed "<role>/<reason>": the role
// whose request or message was refused or discarded (worker: a recorder
// request; person: an owner-service request; task: a task message of no
// job, purged) and the reason (Refused*, DiscardedNoJob), and the
// refusals counted outside it (CountRefusal: serve's server's permission
// violations, "<role>/server/publish-denied", ...).

// refusalsEvery is how often the recorder publishes changed counts.
var refusalsEvery = time.Second

// refusalKey is the key of a refusal of op for reason.
func refusalKey(op, reason string) string {
	switch {
	case reason == clusterops.DiscardedNoJob:
		return "task/" + reason
	case strings.HasPrefix(op, "own."):
		return "person/" + reason
	}
	return "worker/" + reason
}

// countRefusal (clusterops.CountRefusal) adds one refusal made outside the recorder, by role and
// reason, to the counts it publishes on <stream>.refusals (worksteal
// serve counts so its embedded server's permission violations:
// "worker/server/publish-denied", ...). Counts given before Record starts
// are added when it does; without Record they are never published.
//
// n.mu and the recorder's mu are never held together (as RecorderStats):
// a count goes to n.outside while n.rec is nil, under n.mu, and Record
// moves n.outside into its counts in the same n.mu section that sets
// n.rec, so each count is added once.
func (n *Node) countRefusal(role, reason string) {
	k := role + "/" + reason
	n.mu.Lock()
	r := n.rec
	if r == nil {
		if n.outside == nil {
			n.outside = map[string]int64{}
		}
		n.outside[k]++
	}
	n.mu.Unlock()
	if r != nil {
		r.mu.Lock()
		r.stats.RefusedBy[k]++
		r.mu.Unlock()
	}
}

func (n *Node) refusalsSubject() string { return n.opts.stream + ".refusals" }

// publishRefusals publishes the counts by role and reason when they change,
// until ctx is done.
func (r *recorder) publishRefusals(ctx context.Context) {
	t := time.NewTicker(refusalsEvery)
	defer t.Stop()
	var last map[string]int64
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		r.mu.Lock()
		now := cloneCounts(r.stats.RefusedBy)
		r.mu.Unlock()
		if equalCounts(now, last) {
			continue
		}
		data, _ := json.Marshal(now)
		if r.n.nc.Publish(r.n.refusalsSubject(), data) == nil {
			last = now
		}
	}
}

func cloneCounts(m map[string]int64) map[string]int64 {
	if m == nil {
		return nil
	}
	c := make(map[string]int64, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}

func equalCounts(a, b map[string]int64) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}
