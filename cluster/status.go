package cluster

import (
	"context"
	"encoding/json"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
)

// statusEvery is how often a serving worker publishes its WorkerStatus on
// <stream>.status.<name>. One small message a second per worker, whatever
// the task rate: the live view of workers (what runs where, stragglers,
// lost workers, busy time) costs nothing per task. Tasks that start and end
// between two statuses are seen through their results instead.
const statusEvery = time.Second

// statusMissed is how many statuses in a row an observer may miss before it
// counts the worker lost: a killed worker shows as lost within 3 s.
const statusMissed = 3

// LatencyBounds are the upper bounds, in seconds, of the buckets of the
// submit-to-start latency histogram (WorkerStatus.Latency): the time from
// the task's publication to the start of its first run.
var LatencyBounds = []float64{0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300}

// Latency is a histogram of submit-to-start latencies: Counts[i] tasks
// waited at most LatencyBounds[i] (and more than the bound before); the
// last count is over the last bound. Counts are cumulative over a worker's
// life, as Prometheus counters are.
type Latency struct {
	Counts []uint64 `json:"counts"`
	SumSec float64  `json:"sum_s"`
}

// Add adds another histogram's counts to l.
func (l *Latency) Add(o Latency) {
	if len(l.Counts) < len(o.Counts) {
		l.Counts = append(l.Counts, make([]uint64, len(o.Counts)-len(l.Counts))...)
	}
	for i, c := range o.Counts {
		l.Counts[i] += c
	}
	l.SumSec += o.SumSec
}

// Total is the number of tasks counted.
func (l Latency) Total() uint64 {
	var n uint64
	for _, c := range l.Counts {
		n += c
	}
	return n
}

// WorkerStatus is what a serving worker publishes every second on
// <stream>.status.<name>: the tasks it runs now and its counters since it
// started serving. Observers read it; nothing in the cluster depends on it.
type WorkerStatus struct {
	Name     string            `json:"name"`
	Slots    int               `json:"slots"`
	Handlers []string          `json:"handlers"`
	Labels   map[string]string `json:"labels,omitempty"`
	Started  time.Time         `json:"started"`
	Sent     time.Time         `json:"sent"`
	// Every is the interval between two statuses.
	Every   time.Duration `json:"every_ns"`
	Running []StatusTask  `json:"running"`
	// Executed counts handler runs that ended, Failures those that
	// returned an error (each failed attempt counts), Redelivered the tasks
	// received again after an earlier delivery.
	Executed    int64 `json:"executed"`
	Failures    int64 `json:"failures"`
	Redelivered int64 `json:"redelivered"`
	// Busy is the handlers' running time summed, the running ones included.
	Busy    time.Duration `json:"busy_ns"`
	Latency Latency       `json:"latency"`
	// Stopping says the worker is stopping (its last status).
	Stopping bool `json:"stopping,omitempty"`
}

// StatusTask is a task running on a worker, as its status reports it.
type StatusTask struct {
	Job         string    `json:"job"`
	Task        string    `json:"task"`
	Attempt     int       `json:"attempt"`
	Speculative bool      `json:"speculative,omitempty"`
	Start       time.Time `json:"start"`
}

// meter keeps what a serving worker reports in its status. Per task it
// costs two short critical sections (start, finish) and a few atomic adds.
type meter struct {
	mu      sync.Mutex
	running map[*running]time.Time // start of each running task

	failures atomic.Int64
	busyNs   atomic.Int64 // finished runs only
	latency  []atomic.Uint64
	latNs    atomic.Int64
}

func newMeter() *meter {
	return &meter{running: map[*running]time.Time{}, latency: make([]atomic.Uint64, len(LatencyBounds)+1)}
}

// start notes that r started at start. The first run of a task (not a
// redelivery, not a speculative copy) adds its submit-to-start latency:
// from the time the server stored msg.
func (m *meter) start(r *running, start time.Time, msg *nats.Msg, first bool) {
	if md, err := msg.Metadata(); first && err == nil {
		wait := max(start.Sub(md.Timestamp), 0)
		i, _ := slices.BinarySearch(LatencyBounds, wait.Seconds())
		m.latency[i].Add(1)
		m.latNs.Add(int64(wait))
	}
	m.mu.Lock()
	m.running[r] = start
	m.mu.Unlock()
}

// finish notes that r's handler returned after runtime, failed or not.
func (m *meter) finish(r *running, runtime time.Duration, failed bool) {
	m.mu.Lock()
	delete(m.running, r)
	m.mu.Unlock()
	m.busyNs.Add(int64(runtime))
	if failed {
		m.failures.Add(1)
	}
}

// status assembles the worker's status at now.
func (s *serving) status(now time.Time, handlers []string) WorkerStatus {
	n, m := s.n, s.meter
	st := WorkerStatus{
		Name: n.opts.name, Slots: n.opts.slots, Handlers: handlers, Labels: n.opts.labels, Started: s.started, Sent: now, Every: statusEvery,
		Executed: n.executed.Load(), Failures: m.failures.Load(), Redelivered: n.redelivered.Load(),
		Busy: time.Duration(m.busyNs.Load()), Running: []StatusTask{},
		Latency: Latency{Counts: make([]uint64, len(m.latency)), SumSec: time.Duration(m.latNs.Load()).Seconds()},
	}
	for i := range m.latency {
		st.Latency.Counts[i] = m.latency[i].Load()
	}
	m.mu.Lock()
	for r, start := range m.running {
		st.Running = append(st.Running, StatusTask{Job: r.info.Job, Task: r.info.Task, Attempt: r.info.Attempt, Speculative: r.info.Speculative, Start: start})
		st.Busy += now.Sub(start)
	}
	m.mu.Unlock()
	slices.SortFunc(st.Running, func(a, b StatusTask) int { return a.Start.Compare(b.Start) })
	return st
}

// publishStatus publishes the worker's status every statusEvery until ctx
// is done, then once more with Stopping set. Core NATS, no JetStream: a
// status nobody listens to costs the server nothing.
func (s *serving) publishStatus(ctx context.Context) {
	names := make([]string, 0, len(s.handlers))
	for h := range s.handlers {
		names = append(names, h)
	}
	slices.Sort(names)
	subject := s.n.statusSubject(s.n.opts.name)
	send := func(stopping bool) {
		st := s.status(time.Now(), names)
		st.Stopping = stopping
		data, _ := json.Marshal(st)
		s.n.nc.Publish(subject, data)
	}
	t := time.NewTicker(statusEvery)
	defer t.Stop()
	for {
		send(false)
		select {
		case <-ctx.Done():
			send(true)
			s.n.nc.Flush()
			return
		case <-t.C:
		}
	}
}

func (n *Node) statusSubject(worker string) string { return n.opts.stream + ".status." + worker }
