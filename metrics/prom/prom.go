// Package prom exports the statistics of a [worksteal.Pool] as Prometheus
// metrics. It is a package of its own so that the runtime keeps no
// dependencies: only programs that import it link client_golang.
//
// Register one [Collector] per pool:
//
//	pool, _ := worksteal.New(worksteal.Config{})
//	prometheus.MustRegister(prom.New(pool, prom.Opts{}))
//
// Each scrape takes one [worksteal.Pool.Stats] snapshot (a few atomic loads
// per worker, no locks) and reports it as counters per worker, labelled
// worker="0", worker="1", … (spare workers that compensated for blocking
// calls follow the regular ones), plus gauges derived from the same
// snapshot. The metric names follow the Prometheus conventions: counters end
// in _total, times are in seconds:
//
//	worksteal_tasks_executed_total{worker}   jobs run (stolen or popped Join halves, scope and submitted tasks)
//	worksteal_tasks_spawned_total{worker}    jobs pushed onto the worker's deque
//	worksteal_steals_total{worker}           jobs the worker stole
//	worksteal_stolen_from_total{worker}      jobs other workers stole from it
//	worksteal_steal_attempts_total{worker}   steal attempts, successful or not
//	worksteal_failed_steals_total{worker}    attempts that found nothing or lost a race
//	worksteal_parks_total{worker}            times it parked for lack of work
//	worksteal_promoted_total{worker}         latent Join halves it made public
//	worksteal_busy_seconds_total{worker}     time spent running work
//	worksteal_idle_seconds_total{worker}     time spent looking for work or parked
//	worksteal_workers                        workers reported (regular and spare)
//	worksteal_utilization_ratio              busy / (busy + idle) since the pool started
//	worksteal_imbalance_ratio                max / mean busy time over the workers (1 is balanced)
//	worksteal_steal_rate_ratio               stolen / executed jobs
//
// The derived gauges cover the whole life of the pool; for a recent window
// compute them from the counters in PromQL, e.g.
// rate(worksteal_busy_seconds_total[5m]).
package prom

import (
	"strconv"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/worksteal/worksteal"
)

// Opts names the metrics of one collector.
type Opts struct {
	// Namespace prefixes every metric name; "" means "worksteal".
	Namespace string
	// ConstLabels are added to every metric, e.g. {"pool": "render"} to tell
	// several pools of one process apart.
	ConstLabels prometheus.Labels
}

// Collector is a [prometheus.Collector] for one pool. It is safe for
// concurrent scrapes and holds no state besides the pool and the metric
// descriptions.
type Collector struct {
	stats func() worksteal.Stats

	executed, spawned, steals, stolenFrom, attempts, failed, parks, promoted *prometheus.Desc
	busy, idle                                                               *prometheus.Desc
	workers, utilization, imbalance, stealRate                               *prometheus.Desc
}

// New returns a collector of p's statistics. Register it with a
// [prometheus.Registerer]; registering two collectors with the same
// Namespace and ConstLabels fails as a duplicate, so give each pool its own
// ConstLabels (or Namespace).
//
// Panics: if p is nil.
func New(p *worksteal.Pool, o Opts) *Collector {
	if p == nil {
		panic("prom: nil pool")
	}
	return newCollector(p.Stats, o)
}

// newCollector builds a collector over any source of snapshots (tests use
// fixed ones).
func newCollector(stats func() worksteal.Stats, o Opts) *Collector {
	ns := o.Namespace
	if ns == "" {
		ns = "worksteal"
	}
	perWorker := func(name, help string) *prometheus.Desc {
		return prometheus.NewDesc(prometheus.BuildFQName(ns, "", name), help, []string{"worker"}, o.ConstLabels)
	}
	pool := func(name, help string) *prometheus.Desc {
		return prometheus.NewDesc(prometheus.BuildFQName(ns, "", name), help, nil, o.ConstLabels)
	}
	return &Collector{
		stats:       stats,
		executed:    perWorker("tasks_executed_total", "Jobs the worker ran: stolen or popped Join halves, scope and submitted tasks."),
		spawned:     perWorker("tasks_spawned_total", "Jobs the worker pushed onto its deque (Join second halves, spawns)."),
		steals:      perWorker("steals_total", "Jobs the worker took from other workers' deques."),
		stolenFrom:  perWorker("stolen_from_total", "Jobs other workers took from this worker's deque."),
		attempts:    perWorker("steal_attempts_total", "Steal attempts, successful or not."),
		failed:      perWorker("failed_steals_total", "Steal attempts that found the victim empty or lost a race."),
		parks:       perWorker("parks_total", "Times the worker parked for lack of work."),
		promoted:    perWorker("promoted_total", "Latent Join halves the worker made public (pushed where thieves can take them)."),
		busy:        perWorker("busy_seconds_total", "Time the worker spent running work."),
		idle:        perWorker("idle_seconds_total", "Time the worker spent looking for work or parked."),
		workers:     pool("workers", "Workers reported: the regular ones, then spares that ever ran."),
		utilization: pool("utilization_ratio", "Busy time over busy plus idle time of all workers since the pool started."),
		imbalance:   pool("imbalance_ratio", "Load imbalance: the largest worker busy time over the mean (1 is perfect balance)."),
		stealRate:   pool("steal_rate_ratio", "Stolen jobs per executed job since the pool started."),
	}
}

// Describe sends the descriptions of every metric the collector reports.
func (c *Collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.executed, c.spawned, c.steals, c.stolenFrom, c.attempts, c.failed,
		c.parks, c.promoted, c.busy, c.idle, c.workers, c.utilization, c.imbalance, c.stealRate} {
		ch <- d
	}
}

// Collect takes one statistics snapshot and sends every metric from it, so
// the counters and the derived gauges of one scrape agree.
func (c *Collector) Collect(ch chan<- prometheus.Metric) {
	st := c.stats()
	counter := func(d *prometheus.Desc, v float64, worker string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, v, worker)
	}
	for i, w := range st.Workers {
		id := strconv.Itoa(i)
		counter(c.executed, float64(w.Executed), id)
		counter(c.spawned, float64(w.Spawned), id)
		counter(c.steals, float64(w.Stolen), id)
		counter(c.stolenFrom, float64(w.StolenFrom), id)
		counter(c.attempts, float64(w.StealAttempts), id)
		counter(c.failed, float64(w.FailedSteals), id)
		counter(c.parks, float64(w.Parks), id)
		counter(c.promoted, float64(w.Promoted), id)
		counter(c.busy, w.Busy.Seconds(), id)
		counter(c.idle, w.Idle.Seconds(), id)
	}
	gauge := func(d *prometheus.Desc, v float64) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v)
	}
	gauge(c.workers, float64(len(st.Workers)))
	gauge(c.utilization, st.Utilization())
	gauge(c.imbalance, st.Imbalance())
	gauge(c.stealRate, st.StealRate())
}
