package clusterwire

import (
	"slices"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// Metadata keys of a route's consumer: what a worker reads to decide
// whether it can serve the route, and what an observer reads to say what
// the route's tasks wait for.
const (
	MetaJob     = "ws_job"
	MetaHandler = "ws_handler"
	MetaRequire = "ws_require" // cluster.Labels.String of the requirements
)

// RouteWait is a route with queued tasks, from its consumer's info.
type RouteWait struct {
	Job, Handler string
	Require      map[string]string // the labels a worker needs
	Queued       int
	Since        time.Time // when the route last delivered a task, or was made
}

// RouteWaitOf reads a route consumer's info: false for a consumer that is
// not a route or has no queued task.
func RouteWaitOf(info *jetstream.ConsumerInfo) (RouteWait, bool) {
	md := info.Config.Metadata
	job, ok := md[MetaJob]
	if !ok || info.NumPending == 0 {
		return RouteWait{}, false
	}
	r := RouteWait{Job: job, Handler: md[MetaHandler], Require: routeRequire(md), Queued: int(info.NumPending), Since: info.Created}
	if last := info.Delivered.Last; last != nil && last.After(r.Since) {
		r.Since = *last
	}
	return r, true
}

// routeRequire reads a route's requirements from its consumer's metadata.
func routeRequire(md map[string]string) map[string]string {
	req := map[string]string{}
	if s := md[MetaRequire]; s != "" {
		for _, kv := range strings.Split(s, ",") {
			k, v, _ := strings.Cut(kv, "=")
			req[k] = v
		}
	}
	return req
}

// Stalled says no worker of live can run r's tasks: none has its handler
// with labels that meet its requirements (cluster.Labels.Satisfy).
func (r RouteWait) Stalled(live []Worker) bool {
	for _, w := range live {
		if slices.Contains(w.Handlers, r.Handler) && satisfy(w.Labels, r.Require) {
			return false
		}
	}
	return true
}

// Worker is what Stalled needs of a live worker.
type Worker struct {
	Handlers []string
	Labels   map[string]string
}

func satisfy(labels, req map[string]string) bool {
	for k, v := range req {
		if labels[k] != v {
			return false
		}
	}
	return true
}
