package clusterdash

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/worksteal/worksteal/internal/clusterobs"
	"github.com/worksteal/worksteal/internal/clusterwire"
)

// collector reports a cluster's state as Prometheus metrics (see
// Dashboard.Collector for the list).
type collector struct {
	state func() clusterobs.State

	queued, running, succeeded, failed, total, redeliveries *prometheus.Desc
	up, slots, wRunning, busy, failures, latency            *prometheus.Desc
}

// newCollector returns a collector of the states that state returns
// (clusterobs.Observer.State); namespace "" means "worksteal_cluster".
func newCollector(state func() clusterobs.State, namespace string) *collector {
	if namespace == "" {
		namespace = "worksteal_cluster"
	}
	d := func(name, help string, labels ...string) *prometheus.Desc {
		return prometheus.NewDesc(prometheus.BuildFQName(namespace, "", name), help, labels, nil)
	}
	return &collector{
		state:        state,
		queued:       d("tasks_queued", "Tasks of the job waiting for a worker.", "job"),
		running:      d("tasks_running", "Tasks of the job running on live workers.", "job"),
		succeeded:    d("tasks_succeeded_total", "Tasks of the job whose recorded result is a success.", "job"),
		failed:       d("tasks_failed_total", "Tasks of the job whose recorded result is a failure.", "job"),
		total:        d("job_tasks", "Tasks in the job.", "job"),
		redeliveries: d("redeliveries_total", "Tasks that workers received again after an earlier delivery."),
		up:           d("worker_up", "1 if the worker sends its status, 0 if it is lost or stopped.", "worker"),
		slots:        d("worker_slots", "Tasks the worker runs at once.", "worker"),
		wRunning:     d("worker_running", "Tasks the worker runs now.", "worker"),
		busy:         d("worker_busy_seconds_total", "Running time of the worker's handlers, summed over its slots.", "worker"),
		failures:     d("worker_failures_total", "Handler runs on the worker that returned an error.", "worker"),
		latency:      d("task_start_latency_seconds", "Time from a task's publication to the start of its first run."),
	}
}

// Describe sends the descriptions of every metric.
func (c *collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.queued, c.running, c.succeeded, c.failed, c.total, c.redeliveries,
		c.up, c.slots, c.wRunning, c.busy, c.failures, c.latency} {
		ch <- d
	}
}

// Collect sends the metrics of one State.
func (c *collector) Collect(ch chan<- prometheus.Metric) {
	st := c.state()
	m := func(d *prometheus.Desc, t prometheus.ValueType, v float64, label ...string) {
		ch <- prometheus.MustNewConstMetric(d, t, v, label...)
	}
	for _, j := range st.Jobs {
		m(c.queued, prometheus.GaugeValue, float64(j.Queued), j.ID)
		m(c.running, prometheus.GaugeValue, float64(j.Running), j.ID)
		m(c.succeeded, prometheus.CounterValue, float64(j.Succeeded), j.ID)
		m(c.failed, prometheus.CounterValue, float64(j.Failed), j.ID)
		m(c.total, prometheus.GaugeValue, float64(j.Total), j.ID)
	}
	m(c.redeliveries, prometheus.CounterValue, float64(st.Redeliveries))
	for _, w := range st.Workers {
		up := 0.0
		if w.Status == "up" {
			up = 1
		}
		m(c.up, prometheus.GaugeValue, up, w.Name)
		m(c.slots, prometheus.GaugeValue, float64(w.Slots), w.Name)
		m(c.wRunning, prometheus.GaugeValue, float64(w.Running), w.Name)
		m(c.busy, prometheus.CounterValue, w.BusySec, w.Name)
		m(c.failures, prometheus.CounterValue, float64(w.Failures), w.Name)
	}
	buckets := map[float64]uint64{}
	var cum uint64
	for i, b := range clusterwire.LatencyBounds {
		if i < len(st.Latency.Counts) {
			cum += st.Latency.Counts[i]
		}
		buckets[b] = cum
	}
	ch <- prometheus.MustNewConstHistogram(c.latency, st.Latency.Total(), st.Latency.SumSec, buckets)
}
