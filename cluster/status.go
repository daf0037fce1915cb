package cluster

import (
	"context"
	"encoding/json"
	"slices"
	"strconv"
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

// statusBatch is how many recorded results a worker reports at most in
// one status: with more, it sends its status early. So a status stays far
// below the server's message size limit, and the number of messages grows
// with the task rate a thousandfold slower than the rate itself.
const statusBatch = 1000

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

// workerStatus is what a serving worker publishes every second on
// <stream>.status.<name>: the tasks it runs now and its counters since it
// started serving. Observers read it; nothing in the cluster depends on it.
type workerStatus struct {
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
	// Spawned counts the children its tasks spawned, Spilled those it
	// handed over to other workers (see Spawn).
	Spawned int64 `json:"spawned,omitempty"`
	Spilled int64 `json:"spilled,omitempty"`
	// Busy is the handlers' running time summed, the running ones included.
	Busy    time.Duration `json:"busy_ns"`
	Latency Latency       `json:"latency"`
	// Results are the results this worker recorded since its previous
	// status, in the order it recorded them.
	Results []statusResult `json:"results,omitempty"`
	// Stopping says the worker is stopping (its last status).
	Stopping bool `json:"stopping,omitempty"`
}

// statusResult is a result a worker recorded, as its status reports it:
// what an observer needs of it (no output, no error text).
type statusResult struct {
	Job        string `json:"job"`
	Task       string `json:"task"`
	Failed     bool   `json:"failed,omitempty"`
	Attempt    int    `json:"attempt"`
	Deliveries int    `json:"deliveries,omitempty"`
	StartNs    int64  `json:"start_ns,omitempty"`
	RuntimeNs  int64  `json:"runtime_ns,omitempty"`
	// Handed is the number of children the result lists (Result.Spawned):
	// tasks handed over to other workers, which record results of their
	// own. The ids are not sent: an observer needs only the count.
	Handed int `json:"handed,omitempty"`
}

// StatusTask is a task running on a worker, as its status reports it.
type StatusTask struct {
	Job         string    `json:"job"`
	Task        string    `json:"task"`
	Attempt     int       `json:"attempt"`
	Speculative bool      `json:"speculative,omitempty"`
	Start       time.Time `json:"start"`
	// Handed is the number of children the task (its handler and the
	// children it ran here) has handed over to other workers so far: a
	// tree's total grows by these before the task's result lists them.
	Handed int `json:"handed,omitempty"`
}

// meter keeps what a serving worker reports in its status. Per task it
// costs two short critical sections (start, finish) and a few atomic adds.
type meter struct {
	mu      sync.Mutex
	running map[*running]time.Time // start of each running task
	results []statusResult         // recorded since the last status
	full    chan struct{}          // signalled when results reach statusBatch

	failures atomic.Int64
	busyNs   atomic.Int64 // finished runs only
	latency  []atomic.Uint64
	latNs    atomic.Int64
}

func newMeter() *meter {
	return &meter{running: map[*running]time.Time{}, latency: make([]atomic.Uint64, len(LatencyBounds)+1), full: make(chan struct{}, 1)}
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

// recorded notes a result this worker recorded, for its next status.
func (m *meter) recorded(r Result) {
	sr := statusResult{Job: r.Job, Task: r.Task, Failed: r.Error != "", Attempt: r.Attempt, Deliveries: r.Deliveries, RuntimeNs: int64(r.Runtime), Handed: len(r.Spawned)}
	if !r.Start.IsZero() {
		sr.StartNs = r.Start.UnixNano()
	}
	m.mu.Lock()
	m.results = append(m.results, sr)
	full := len(m.results) == statusBatch
	m.mu.Unlock()
	if full {
		select {
		case m.full <- struct{}{}:
		default:
		}
	}
}

// status assembles the worker's status at now.
func (s *serving) status(now time.Time, handlers []string) workerStatus {
	n, m := s.n, s.meter
	st := workerStatus{
		Name: n.opts.name, Slots: n.opts.slots, Handlers: handlers, Labels: n.opts.labels, Started: s.started, Sent: now, Every: statusEvery,
		Executed: n.executed.Load(), Failures: m.failures.Load(), Redelivered: n.redelivered.Load(),
		Spawned: n.spawned.Load(), Spilled: n.spilled.Load(),
		Busy: time.Duration(m.busyNs.Load()), Running: []StatusTask{},
		Latency: Latency{Counts: make([]uint64, len(m.latency)), SumSec: time.Duration(m.latNs.Load()).Seconds()},
	}
	for i := range m.latency {
		st.Latency.Counts[i] = m.latency[i].Load()
	}
	m.mu.Lock()
	st.Results, m.results = m.results, nil
	for r, start := range m.running {
		st.Running = append(st.Running, StatusTask{Job: r.info.Job, Task: r.info.Task, Attempt: r.info.Attempt, Speculative: r.info.Speculative, Start: start, Handed: r.handedSoFar()})
		st.Busy += now.Sub(start)
	}
	m.mu.Unlock()
	slices.SortFunc(st.Running, func(a, b StatusTask) int { return a.Start.Compare(b.Start) })
	return st
}

// publishStatus publishes the worker's status every statusEvery until ctx
// is done, then, once tasksDone is closed, once more with Stopping set. A
// status is also sent early when statusBatch results wait to be reported. Core NATS, no JetStream: a
// status nobody listens to costs the server nothing.
func (s *serving) publishStatus(ctx context.Context, tasksDone <-chan struct{}) {
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
		if !stopping {
			s.n.noticeRunning(st.Running)
		}
	}
	t := time.NewTicker(statusEvery)
	defer t.Stop()
	for {
		send(false)
		select {
		case <-ctx.Done():
			<-tasksDone // the results of the tasks that were finishing
			send(true)
			s.n.nc.FlushTimeout(s.n.opts.defaultTimeout)
			return
		case <-t.C:
		case <-s.meter.full:
		}
	}
}

// NoticeEvery is how often a serving worker tells the submitters of the
// tasks it runs that they still run (one message a second per job it runs
// tasks of, on <stream>.started.<job>), with the children each has handed
// over so far: a job's Progress counts its running tasks and its growing
// tree from these. A task that ends within the second costs no notice.
const NoticeEvery = statusEvery

// noticeRunning sends the start notices of the running tasks, one message
// per job: "task \t attempt \t start-unix-ns \t worker \t handed" lines.
func (n *Node) noticeRunning(running []StatusTask) {
	byJob := map[string][]byte{}
	for _, t := range running {
		b := byJob[t.Job]
		if len(b) > 0 {
			b = append(b, '\n')
		}
		b = append(b, t.Task...)
		b = append(b, '\t')
		b = strconv.AppendInt(b, int64(t.Attempt), 10)
		b = append(b, '\t')
		b = strconv.AppendInt(b, t.Start.UnixNano(), 10)
		b = append(b, '\t')
		b = append(b, n.opts.name...)
		b = append(b, '\t')
		b = strconv.AppendInt(b, int64(t.Handed), 10)
		byJob[t.Job] = b
	}
	for job, b := range byJob {
		n.nc.Publish(n.startedSubject(job), b)
	}
}

func (n *Node) statusSubject(worker string) string { return n.opts.stream + ".status." + worker }
