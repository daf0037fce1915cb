// Package clusterdash serves the dashboard of a cluster (package cluster):
// the dash page drawn from a cluster.Observer, JSON endpoints for each part
// of the state, and Prometheus metrics on the same listener. It only
// reads: the observer never writes to the cluster, and the server answers
// only GET and HEAD.
//
// Routes, besides dash's / (page), /api/state and /events:
//
//	/api/workers     the workers: slots, running tasks, status (up, lost, stopped), counters (children spawned and handed over included), timeline
//	/api/jobs        the jobs: done, failed, running, queued, handed over, rate, ETA
//	/api/stragglers  tasks running longer than the straggler factor × their job's median
//	/metrics         Prometheus metrics (see Collector)
package clusterdash

import (
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/worksteal/worksteal/cluster"
	"github.com/worksteal/worksteal/dash"
)

// New returns the dashboard of the cluster that obs follows (run
// obs.Run as well).
//
// Panics: if obs is nil.
func New(obs *cluster.Observer, cfg dash.Config) *dash.Server {
	if obs == nil {
		panic("clusterdash: nil observer")
	}
	if cfg.Title == "" {
		cfg.Title = "worksteal cluster"
	}
	s := dash.New(obs, cfg)
	s.HandleJSON("/api/workers", func() any { return obs.State().Workers })
	s.HandleJSON("/api/jobs", func() any { return obs.State().Jobs })
	s.HandleJSON("/api/stragglers", func() any { return obs.State().Stragglers })
	reg := prometheus.NewRegistry()
	reg.MustRegister(NewCollector(obs.State, ""))
	s.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	return s
}
