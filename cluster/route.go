package cluster

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/worksteal/worksteal/internal/clusterwire"
)

// A route is where the tasks of one job that need one handler and one set
// of labels wait: the subject <stream>.task.<job>.<handler>.<req>, and one
// durable pull consumer filtered on it. Routes never overlap (a work-queue
// stream allows several consumers only on disjoint subjects), and a worker
// pulls only from the routes it can serve (it has the handler and its
// labels satisfy the requirements), so no delivery reaches a worker that
// cannot run the task. One route per job also lets a worker share its
// slots between jobs (see puller.pick).
type route struct {
	job, handler string
	require      Labels
}

// Metadata keys of a route's consumer: what a worker reads to decide
// whether it can serve the route.
const (
	metaJob     = clusterwire.MetaJob
	metaHandler = clusterwire.MetaHandler
	metaRequire = clusterwire.MetaRequire // Labels.String of the requirements
)

// reqToken is the last token of a route's subject: "any" without
// requirements, else a digest of them.
func (r route) reqToken() string {
	if len(r.require) == 0 {
		return "any"
	}
	h := sha256.Sum256([]byte(r.require.String()))
	return "r" + hex.EncodeToString(h[:6])
}

func (n *Node) routeSubject(r route) string {
	return n.opts.stream + ".task." + r.job + "." + r.handler + "." + r.reqToken()
}

// routeConsumer names the route's consumer: "<stream>_r_" and a digest of
// the route (job ids and handler names may hold '_' and be long).
func (n *Node) routeConsumer(r route) string {
	h := sha256.Sum256([]byte(r.job + "\x00" + r.handler + "\x00" + r.reqToken()))
	return n.opts.stream + "_r_" + hex.EncodeToString(h[:10])
}

func (n *Node) routesSubject() string { return n.opts.stream + ".routes" }

// routesOf lists the distinct routes of job's tasks, in task order.
func routesOf(job Job) []route {
	var rs []route
	seen := map[string]bool{}
	for _, t := range job.Tasks {
		r := taskRoute(job, t)
		k := r.handler + "\x00" + r.reqToken()
		if !seen[k] {
			seen[k] = true
			rs = append(rs, r)
		}
	}
	return rs
}

func taskRoute(job Job, t Task) route {
	return route{job: job.ID, handler: t.Handler, require: job.Require.merge(t.Require)}
}

// ensureRoutes creates the consumers of job's routes (or finds them, for a
// resumed job). Once tasks are in them, the submitter tells the workers
// (announceRoutes). A node acting for an owner asks the owner service
// (serve) for each: a person may create no consumer of the task stream.
func (n *Node) ensureRoutes(ctx context.Context, job Job) error {
	for _, r := range routesOf(job) {
		if n.opts.owner == "" {
			if err := n.createRoute(ctx, r); err != nil {
				return err
			}
			continue
		}
		body, _ := json.Marshal(routeRequest{Job: r.job, Handler: r.handler, Require: r.require})
		if _, err := n.ownRequest(ctx, ownRoute, r.job, body); err != nil {
			return fmt.Errorf("route of job %s (handler %s): %w", r.job, r.handler, err)
		}
	}
	return nil
}

// createRoute creates (or finds) the consumer of route r.
func (n *Node) createRoute(ctx context.Context, r route) error {
	cfg := jetstream.ConsumerConfig{
		Durable:       n.routeConsumer(r),
		Description:   "worksteal tasks of job " + r.job + " for handler " + r.handler,
		FilterSubject: n.routeSubject(r),
		AckPolicy:     jetstream.AckExplicitPolicy,
		AckWait:       n.ackWait,
		MaxDeliver:    -1,
		MaxAckPending: -1,
		MaxWaiting:    4096,
		Metadata:      map[string]string{metaJob: r.job, metaHandler: r.handler, metaRequire: r.require.String()},
	}
	err := retryTransient(ctx, n.opts.defaultTimeout, func(ctx context.Context) error {
		_, err := n.js.CreateOrUpdateConsumer(ctx, n.streamName(), cfg)
		return err
	})
	if err != nil {
		return jsError("consumer "+cfg.Durable+" of job "+r.job+" (handler "+r.handler+")", err)
	}
	return nil
}

// announceRoutes tells the workers (<stream>.routes) that tasks wait in
// new routes, so that they pull from them at once rather than at their
// next look at the consumers.
func (n *Node) announceRoutes() { n.nc.Publish(n.routesSubject(), nil) }

// deleteRoutes removes the consumers of job's routes: they are empty once
// every task has a result. Consumers of a job whose submitter never saw it
// finish stay until Delete.
func (n *Node) deleteRoutes(ctx context.Context, jobID string) error {
	ctx, cancel := n.timeout(ctx)
	defer cancel()
	var names []string
	for info := range n.stream.ListConsumers(ctx).Info() {
		if info.Config.Metadata[metaJob] == jobID {
			names = append(names, info.Name)
		}
	}
	var errs []error
	for _, name := range names {
		if err := n.js.DeleteConsumer(ctx, n.streamName(), name); err != nil && !errors.Is(err, jetstream.ErrConsumerNotFound) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// routeInfo is a route's consumer as a worker sees it.
type routeInfo struct {
	name    string
	job     string
	pending bool // tasks wait in it
}

// capableRoutes lists the routes that a worker with these handlers and
// labels can serve.
//
// It returns when ctx is done even if the listing has not: a client
// reconnecting to an unreachable server holds its lock for each attempt,
// and a request waits for it whatever its ctx says; a stopping worker
// must not wait with it. The listing ends by itself later.
func (n *Node) capableRoutes(ctx context.Context, handlers map[string]Handler, labels Labels) ([]routeInfo, error) {
	ctx, cancel := n.timeout(ctx)
	defer cancel()
	type listing struct {
		rs  []routeInfo
		err error
	}
	done := make(chan listing, 1)
	go func() {
		lister := n.stream.ListConsumers(ctx)
		var rs []routeInfo
		for info := range lister.Info() {
			if r, ok := capable(info, handlers, labels); ok {
				rs = append(rs, r)
			}
		}
		done <- listing{rs, lister.Err()}
	}()
	select {
	case l := <-done:
		return l.rs, l.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// capable says whether a worker with handlers and labels can serve the
// route of consumer info.
func capable(info *jetstream.ConsumerInfo, handlers map[string]Handler, labels Labels) (routeInfo, bool) {
	md := info.Config.Metadata
	h, ok := md[metaHandler]
	if !ok || handlers[h] == nil {
		return routeInfo{}, false
	}
	req := Labels{}
	if s := md[metaRequire]; s != "" {
		for _, kv := range strings.Split(s, ",") {
			k, v, _ := strings.Cut(kv, "=")
			req[k] = v
		}
	}
	if !labels.Satisfy(req) {
		return routeInfo{}, false
	}
	return routeInfo{name: info.Name, job: md[metaJob], pending: info.NumPending > 0}, true
}

// ErrNoCapableWorker: a task requires labels (Job.Require, Task.Require)
// that no live worker with its handler has; Submit refuses the job rather
// than let the task wait for ever.
var ErrNoCapableWorker = errors.New("cluster: no live worker can run the task")

// checkRoutes fails for a task that no live worker can run: with
// ErrUnknownHandler if no registered worker has its handler (a worker that
// stopped stays registered for 15 s, as a lost one does), and
// ErrNoCapableWorker if the live workers that have it lack a required
// label. With no worker registered at all it cannot tell, and accepts
// (workers may start later); with none live, the tasks wait too (Stalls
// says for what).
func (n *Node) checkRoutes(ctx context.Context, job Job) error {
	all, err := n.registry(ctx)
	if err != nil || len(all) == 0 {
		return nil
	}
	have := map[string]bool{}
	for _, w := range all {
		for _, h := range w.Handlers {
			have[h] = true
		}
	}
	ws := slices.DeleteFunc(slices.Clone(all), func(w workerInfo) bool { return w.Stopped })
	for _, r := range routesOf(job) {
		if !have[r.handler] {
			known := slices.Sorted(func(yield func(string) bool) {
				for h := range have {
					if !yield(h) {
						return
					}
				}
			})
			who := fmt.Sprintf("the %d live worker(s)", len(all))
			if len(ws) < len(all) {
				who = fmt.Sprintf("the %d worker(s) registered in the last 15 s (%d live)", len(all), len(ws))
			}
			return fmt.Errorf("%w %q: %s have %s", ErrUnknownHandler, r.handler, who, strings.Join(known, ", "))
		}
		if len(ws) == 0 {
			continue // none live: the tasks wait for one
		}
		ok := false
		var seen []string
		for _, w := range ws {
			if slices.Contains(w.Handlers, r.handler) {
				if Labels(w.Labels).Satisfy(r.require) {
					ok = true
					break
				}
				seen = append(seen, w.Name+" {"+Labels(w.Labels).String()+"}")
			}
		}
		if !ok {
			return fmt.Errorf("%w: handler %q requires %s; the live workers with that handler have %s", ErrNoCapableWorker, r.handler, r.require, strings.Join(seen, ", "))
		}
	}
	return nil
}
