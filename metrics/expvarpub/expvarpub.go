// Package expvarpub publishes the statistics of a [worksteal.Pool] through
// the standard library's [expvar] package, so they appear as JSON on
// /debug/vars next to memstats and cmdline. It uses the standard library
// only.
//
// Each read of the variable takes one [worksteal.Pool.Stats] snapshot (a few
// atomic loads per worker, no locks). The value is a JSON object:
//
//	{
//	  "workers": 2,
//	  "utilization": 0.93, "imbalance": 1.02, "steal_rate": 0.004,
//	  "total": {"tasks_executed": …, "tasks_spawned": …, "steals": …, "stolen_from": …,
//	            "steal_attempts": …, "failed_steals": …, "parks": …,
//	            "busy_seconds": …, "idle_seconds": …},
//	  "per_worker": [{…the same fields…}, …]
//	}
//
// The field names are those of the Prometheus collector in metrics/prom,
// without the namespace and the _total suffix.
package expvarpub

import (
	"expvar"

	"github.com/worksteal/worksteal"
)

// counters are one worker's counters (or their sum), as published (the
// package doc's "total" and "per_worker" entries).
type counters struct {
	TasksExecuted  uint64  `json:"tasks_executed"`
	TasksSpawned   uint64  `json:"tasks_spawned"`
	Steals         uint64  `json:"steals"`
	StolenFrom     uint64  `json:"stolen_from"`
	StealAttempts  uint64  `json:"steal_attempts"`
	FailedSteals   uint64  `json:"failed_steals"`
	Parks          uint64  `json:"parks"`
	PromotedHalves uint64  `json:"promoted_halves"` // latent Join halves made public
	BusySeconds    float64 `json:"busy_seconds"`
	IdleSeconds    float64 `json:"idle_seconds"`
}

// snapshot is the published value of one pool (the JSON object of the
// package doc). A Go program reads the same figures from
// worksteal.Pool.Stats.
type snapshot struct {
	Workers     int        `json:"workers"`     // regular workers, then spares that ever ran
	Utilization float64    `json:"utilization"` // busy / (busy + idle) since the pool started
	Imbalance   float64    `json:"imbalance"`   // max / mean busy time (1 is balanced)
	StealRate   float64    `json:"steal_rate"`  // stolen / executed jobs
	Total       counters   `json:"total"`
	PerWorker   []counters `json:"per_worker"`
}

// take converts a statistics snapshot to the published form.
func take(s worksteal.Stats) snapshot {
	out := snapshot{
		Workers:     len(s.Workers),
		Utilization: s.Utilization(),
		Imbalance:   s.Imbalance(),
		StealRate:   s.StealRate(),
		Total:       countersOf(s.Total()),
		PerWorker:   make([]counters, len(s.Workers)),
	}
	for i, w := range s.Workers {
		out.PerWorker[i] = countersOf(w)
	}
	return out
}

func countersOf(w worksteal.WorkerStats) counters {
	return counters{
		TasksExecuted:  w.Executed,
		TasksSpawned:   w.Spawned,
		Steals:         w.Stolen,
		StolenFrom:     w.StolenFrom,
		StealAttempts:  w.StealAttempts,
		FailedSteals:   w.FailedSteals,
		Parks:          w.Parks,
		PromotedHalves: w.Promoted,
		BusySeconds:    w.Busy.Seconds(),
		IdleSeconds:    w.Idle.Seconds(),
	}
}

// Func returns an [expvar.Func] whose value is a fresh snapshot of p's
// statistics (the JSON object of the package doc), for publishing under
// a name of the caller's choice (or inside an [expvar.Map]).
//
// Panics: if p is nil.
func Func(p *worksteal.Pool) expvar.Func {
	if p == nil {
		panic("expvarpub: nil pool")
	}
	return func() any { return take(p.Stats()) }
}

// Publish publishes p's statistics as the expvar variable name. Like
// [expvar.Publish], it is meant to be called once per name, at start-up;
// the variable lives as long as the process (expvar cannot unpublish), so
// publish long-lived pools only.
//
// Panics: if p is nil, or if name is already published (expvar's own
// "Reuse of exported var name" panic).
func Publish(name string, p *worksteal.Pool) {
	expvar.Publish(name, Func(p))
}
