// Package clusterdash serves the dashboard of a cluster (package cluster):
// the dash page drawn from a read-only observer of the cluster, JSON
// endpoints for each part of the state, and Prometheus metrics on the same
// listener. It only reads: the observer never writes to the cluster, and
// the server answers only GET and HEAD.
//
// Routes, besides dash's / (page), /api/state and /events:
//
//	/api/workers     the workers: slots, running tasks, status (up, lost, stopped), counters (children spawned and handed over included), timeline
//	/api/jobs        the jobs: done, failed, running, queued, handed over, rate, ETA
//	/api/stragglers  tasks running longer than the straggler factor × their job's median
//	/metrics         Prometheus metrics (see Dashboard.Collector)
//
// The state is read as JSON (/api/state): its Go types are internal, so
// that the dashboard's data can change with the page.
package clusterdash

import (
	"context"
	"net/http"

	"github.com/nats-io/nats.go"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/worksteal/worksteal/dash"
	"github.com/worksteal/worksteal/internal/clusterobs"
)

// Config sets up a cluster's dashboard; its zero value is useful.
type Config struct {
	// Stream is the name the cluster's nodes use (cluster.WithStream); ""
	// means "ws".
	Stream string
	// StragglerFactor flags a running task as a straggler once it has run
	// longer than StragglerFactor × the median run time of its job's
	// finished tasks (after three have finished): the rule of
	// "worksteal run --timeout 200%". 0 means 2; it must be 1 or more.
	StragglerFactor float64
	// Page sets up the page and its event stream (dash.Config); a Title ""
	// means "worksteal cluster".
	Page dash.Config
}

// Dashboard is a cluster's dashboard: an http.Handler serving the page,
// the JSON routes and /metrics, and the observer that follows the cluster
// for them (Run).
type Dashboard struct {
	obs *clusterobs.Observer
	srv *dash.Server
	col *collector
}

// New returns the dashboard of the cluster reached through nc; Run makes
// it follow the cluster. nc needs only the observer role's permissions
// (worksteal serve init writes them), with the observer's inbox prefix
// (cluster.ConnectOptions(cluster.RoleObserver, creds) sets both).
func New(nc *nats.Conn, cfg Config) (*Dashboard, error) {
	obs, err := clusterobs.NewObserver(nc, clusterobs.ObserverConfig{Stream: cfg.Stream, StragglerFactor: cfg.StragglerFactor})
	if err != nil {
		return nil, err // wraps cluster.ErrInvalidOption
	}
	return newDashboard(obs, cfg.Page), nil
}

// newDashboard is the dashboard drawn from obs.
func newDashboard(obs *clusterobs.Observer, cfg dash.Config) *Dashboard {
	if cfg.Title == "" {
		cfg.Title = "worksteal cluster"
	}
	s := dash.New(obs, cfg)
	s.HandleJSON("/api/workers", func() any { return obs.State().Workers })
	s.HandleJSON("/api/jobs", func() any { return obs.State().Jobs })
	s.HandleJSON("/api/stragglers", func() any { return obs.State().Stragglers })
	col := newCollector(obs.State, "")
	reg := prometheus.NewRegistry()
	reg.MustRegister(col)
	s.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	return &Dashboard{obs: obs, srv: s, col: col}
}

// Run follows the cluster until ctx is done, and then returns nil. Until
// the cluster's buckets exist (no node has set them up yet) it waits for
// them, and the page says so. It returns an error only if it cannot
// subscribe to the workers' statuses.
func (d *Dashboard) Run(ctx context.Context) error { return d.obs.Run(ctx) }

// ServeHTTP serves the page, the JSON routes and /metrics.
func (d *Dashboard) ServeHTTP(w http.ResponseWriter, r *http.Request) { d.srv.ServeHTTP(w, r) }

// Close ends the open event streams (dash.Server.Close).
func (d *Dashboard) Close() { d.srv.Close() }

// Collector returns the cluster's metrics, for a program's own Prometheus
// registry (they are on /metrics already), in the conventions of package
// metrics/prom (counters end in _total, times are in seconds), under the
// namespace "worksteal_cluster":
//
//	worksteal_cluster_tasks_queued{job}                 tasks waiting for a worker
//	worksteal_cluster_tasks_running{job}                tasks running on live workers
//	worksteal_cluster_tasks_succeeded_total{job}        results recorded as successes
//	worksteal_cluster_tasks_failed_total{job}           results recorded as failures
//	worksteal_cluster_job_tasks{job}                    tasks in the job
//	worksteal_cluster_redeliveries_total                tasks workers received again after an earlier delivery
//	worksteal_cluster_worker_up{worker}                 1 for a live worker, 0 for a lost or stopped one
//	worksteal_cluster_worker_slots{worker}              tasks the worker runs at once
//	worksteal_cluster_worker_running{worker}            tasks it runs now
//	worksteal_cluster_worker_busy_seconds_total{worker} its handlers' running time
//	worksteal_cluster_worker_failures_total{worker}     its handler runs that failed
//	worksteal_cluster_task_start_latency_seconds        histogram: task publication to the start of its first run
//
// Each scrape takes one state of the cluster, so the metrics of one
// scrape agree.
func (d *Dashboard) Collector() prometheus.Collector { return d.col }
