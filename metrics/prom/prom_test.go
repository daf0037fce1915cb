package prom

import (
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/worksteal/worksteal"
)

// fixedStats is a two-worker snapshot with every counter distinct.
func fixedStats() worksteal.Stats {
	return worksteal.Stats{Workers: []worksteal.WorkerStats{
		{Executed: 10, Spawned: 7, Stolen: 1, StolenFrom: 3, StealAttempts: 5, FailedSteals: 4, Parks: 2, Promoted: 11,
			Busy: 3 * time.Second, Idle: time.Second},
		{Executed: 20, Spawned: 9, Stolen: 3, StolenFrom: 1, StealAttempts: 8, FailedSteals: 5, Parks: 6, Promoted: 12,
			Busy: time.Second, Idle: 1500 * time.Millisecond},
	}}
}

func TestCollectorExposition(t *testing.T) {
	c := newCollector(fixedStats, Opts{})
	const want = `
# HELP worksteal_busy_seconds_total Time the worker spent running work.
# TYPE worksteal_busy_seconds_total counter
worksteal_busy_seconds_total{worker="0"} 3
worksteal_busy_seconds_total{worker="1"} 1
# HELP worksteal_failed_steals_total Steal attempts that found the victim empty or lost a race.
# TYPE worksteal_failed_steals_total counter
worksteal_failed_steals_total{worker="0"} 4
worksteal_failed_steals_total{worker="1"} 5
# HELP worksteal_idle_seconds_total Time the worker spent looking for work or parked.
# TYPE worksteal_idle_seconds_total counter
worksteal_idle_seconds_total{worker="0"} 1
worksteal_idle_seconds_total{worker="1"} 1.5
# HELP worksteal_imbalance_ratio Load imbalance: the largest worker busy time over the mean (1 is perfect balance).
# TYPE worksteal_imbalance_ratio gauge
worksteal_imbalance_ratio 1.5
# HELP worksteal_parks_total Times the worker parked for lack of work.
# TYPE worksteal_parks_total counter
worksteal_parks_total{worker="0"} 2
worksteal_parks_total{worker="1"} 6
# HELP worksteal_promoted_total Latent Join halves the worker made public (pushed where thieves can take them).
# TYPE worksteal_promoted_total counter
worksteal_promoted_total{worker="0"} 11
worksteal_promoted_total{worker="1"} 12
# HELP worksteal_steal_attempts_total Steal attempts, successful or not.
# TYPE worksteal_steal_attempts_total counter
worksteal_steal_attempts_total{worker="0"} 5
worksteal_steal_attempts_total{worker="1"} 8
# HELP worksteal_steal_rate_ratio Stolen jobs per executed job since the pool started.
# TYPE worksteal_steal_rate_ratio gauge
worksteal_steal_rate_ratio 0.13333333333333333
# HELP worksteal_steals_total Jobs the worker took from other workers' deques.
# TYPE worksteal_steals_total counter
worksteal_steals_total{worker="0"} 1
worksteal_steals_total{worker="1"} 3
# HELP worksteal_stolen_from_total Jobs other workers took from this worker's deque.
# TYPE worksteal_stolen_from_total counter
worksteal_stolen_from_total{worker="0"} 3
worksteal_stolen_from_total{worker="1"} 1
# HELP worksteal_tasks_executed_total Jobs the worker ran: stolen or popped Join halves, scope and submitted tasks.
# TYPE worksteal_tasks_executed_total counter
worksteal_tasks_executed_total{worker="0"} 10
worksteal_tasks_executed_total{worker="1"} 20
# HELP worksteal_tasks_spawned_total Jobs the worker pushed onto its deque (Join second halves, spawns).
# TYPE worksteal_tasks_spawned_total counter
worksteal_tasks_spawned_total{worker="0"} 7
worksteal_tasks_spawned_total{worker="1"} 9
# HELP worksteal_utilization_ratio Busy time over busy plus idle time of all workers since the pool started.
# TYPE worksteal_utilization_ratio gauge
worksteal_utilization_ratio 0.6153846153846154
# HELP worksteal_workers Workers reported: the regular ones, then spares that ever ran.
# TYPE worksteal_workers gauge
worksteal_workers 2
`
	if err := testutil.CollectAndCompare(c, strings.NewReader(want)); err != nil {
		t.Fatal(err)
	}
	if n := testutil.CollectAndCount(c); n != 10*2+4 {
		t.Errorf("CollectAndCount = %d; want %d (10 counters × 2 workers + 4 gauges)", n, 10*2+4)
	}
}

// The metrics pass the registry's consistency checks and the linter's
// naming rules (counters end in _total, units are base units).
func TestCollectorLint(t *testing.T) {
	c := newCollector(fixedStats, Opts{})
	problems, err := testutil.CollectAndLint(c)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Errorf("lint: %s: %s", p.Metric, p.Text)
	}
	reg := prometheus.NewPedanticRegistry()
	if err := reg.Register(c); err != nil {
		t.Fatalf("pedantic registry: %v", err)
	}
	if _, err := reg.Gather(); err != nil {
		t.Fatalf("pedantic gather: %v", err)
	}
}

func TestCollectorOpts(t *testing.T) {
	reg := prometheus.NewPedanticRegistry()
	a := newCollector(fixedStats, Opts{ConstLabels: prometheus.Labels{"pool": "a"}})
	b := newCollector(fixedStats, Opts{ConstLabels: prometheus.Labels{"pool": "b"}})
	if err := reg.Register(a); err != nil {
		t.Fatal(err)
	}
	if err := reg.Register(b); err != nil {
		t.Fatalf("second pool with other const labels: %v", err)
	}
	if err := reg.Register(newCollector(fixedStats, Opts{ConstLabels: prometheus.Labels{"pool": "a"}})); err == nil {
		t.Error("registering the same names and labels twice succeeded")
	}
	n := newCollector(fixedStats, Opts{Namespace: "render"})
	const want = `
# HELP render_workers Workers reported: the regular ones, then spares that ever ran.
# TYPE render_workers gauge
render_workers 2
`
	if err := testutil.CollectAndCompare(n, strings.NewReader(want), "render_workers"); err != nil {
		t.Fatal(err)
	}
}

// On a live pool the counters follow the pool's own Stats.
func TestCollectorLivePool(t *testing.T) {
	p, err := worksteal.New(worksteal.Config{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	c := New(p, Opts{})
	for i := 0; i < 3; i++ {
		worksteal.Run(p, func(w *worksteal.Worker) int { return fib(w, 18) })
	}
	time.Sleep(time.Millisecond) // let the workers go idle and publish
	st := p.Stats()
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(c)
	if got := testutil.CollectAndCount(c, "worksteal_tasks_executed_total"); got != len(st.Workers) {
		t.Fatalf("%d executed series; want one per worker (%d)", got, len(st.Workers))
	}
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var executed float64
	for _, mf := range mfs {
		if mf.GetName() == "worksteal_tasks_executed_total" {
			for _, m := range mf.GetMetric() {
				executed += m.GetCounter().GetValue()
			}
		}
	}
	if executed < float64(st.Total().Executed) || executed < 3 {
		t.Errorf("scraped %v executed jobs; Stats said %d before the scrape (and 3 Runs happened)", executed, st.Total().Executed)
	}
	if u := testutil.ToFloat64(gaugeOnly(c, c.utilization)); u <= 0 || u > 1 {
		t.Errorf("utilization %v outside (0, 1]", u)
	}
}

func TestNewNilPoolPanics(t *testing.T) {
	defer func() {
		if r := recover(); r == nil || !strings.HasPrefix(r.(string), "prom:") {
			t.Errorf("recover() = %v; want a prom: panic", r)
		}
	}()
	New(nil, Opts{})
}

// gaugeOnly narrows a collector to one pool-wide metric (for ToFloat64).
func gaugeOnly(c *Collector, d *prometheus.Desc) prometheus.Collector {
	return collectorFunc(func(ch chan<- prometheus.Metric) {
		all := make(chan prometheus.Metric, 64)
		c.Collect(all)
		close(all)
		for m := range all {
			if m.Desc() == d {
				ch <- m
			}
		}
	})
}

type collectorFunc func(ch chan<- prometheus.Metric)

func (f collectorFunc) Describe(ch chan<- *prometheus.Desc) { prometheus.DescribeByCollect(f, ch) }
func (f collectorFunc) Collect(ch chan<- prometheus.Metric) { f(ch) }

func fib(w *worksteal.Worker, n int) int {
	if n < 2 {
		return n
	}
	a, b := worksteal.JoinFunc(w, fib, n-1, fib, n-2)
	return a + b
}
