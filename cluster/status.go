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

	"github.com/worksteal/worksteal/internal/clusterwire"
)

// statusBatch is how many recorded results a worker reports at most in
// one status: with more, it sends its status early. So a status stays far
// below the server's message size limit, and the number of messages grows
// with the task rate a thousandfold slower than the rate itself.
const statusBatch = 1000

// meter keeps what a serving worker reports in its status. Per task it
// costs two short critical sections (start, finish) and a few atomic adds.
type meter struct {
	mu      sync.Mutex
	running map[*running]time.Time     // start of each running task
	results []clusterwire.StatusResult // recorded since the last status
	full    chan struct{}              // signalled when results reach statusBatch

	failures atomic.Int64
	busyNs   atomic.Int64 // finished runs only
	latency  []atomic.Uint64
	latNs    atomic.Int64
}

func newMeter() *meter {
	return &meter{running: map[*running]time.Time{}, latency: make([]atomic.Uint64, len(clusterwire.LatencyBounds)+1), full: make(chan struct{}, 1)}
}

// start notes that r started at start. The first run of a task (not a
// redelivery, not a speculative copy) adds its submit-to-start latency:
// from the time the server stored msg.
func (m *meter) start(r *running, start time.Time, msg *nats.Msg, first bool) {
	if md, err := msg.Metadata(); first && err == nil {
		wait := max(start.Sub(md.Timestamp), 0)
		i, _ := slices.BinarySearch(clusterwire.LatencyBounds, wait.Seconds())
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
	sr := clusterwire.StatusResult{Job: r.Job, Task: r.Task, Failed: r.Error != "", Attempt: r.Attempt, Deliveries: r.Deliveries, RuntimeNs: int64(r.Runtime), Handed: len(r.Spawned)}
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
func (s *serving) status(now time.Time, handlers []string) clusterwire.WorkerStatus {
	n, m := s.n, s.meter
	st := clusterwire.WorkerStatus{
		Name: n.opts.name, Slots: n.opts.slots, Handlers: handlers, Labels: n.opts.labels, Started: s.started, Sent: now, Every: clusterwire.StatusEvery,
		Executed: n.executed.Load(), Failures: m.failures.Load(), Redelivered: n.redelivered.Load(),
		Spawned: n.spawned.Load(), Spilled: n.spilled.Load(),
		Busy: time.Duration(m.busyNs.Load()), Running: []clusterwire.StatusTask{},
		Latency: clusterwire.Latency{Counts: make([]uint64, len(m.latency)), SumSec: time.Duration(m.latNs.Load()).Seconds()},
	}
	for i := range m.latency {
		st.Latency.Counts[i] = m.latency[i].Load()
	}
	m.mu.Lock()
	st.Results, m.results = m.results, nil
	for r, start := range m.running {
		st.Running = append(st.Running, clusterwire.StatusTask{Job: r.info.Job, Task: r.info.Task, Attempt: r.info.Attempt, Speculative: r.info.Speculative, Start: start, Handed: r.handedSoFar()})
		st.Busy += now.Sub(start)
	}
	m.mu.Unlock()
	slices.SortFunc(st.Running, func(a, b clusterwire.StatusTask) int { return a.Start.Compare(b.Start) })
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
	t := time.NewTicker(clusterwire.StatusEvery)
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

// noticeEvery is how often a serving worker tells the submitters of the
// tasks it runs that they still run (one message a second per job it runs
// tasks of, on <stream>.started.<job>), with the children each has handed
// over so far: a job's Progress counts its running tasks and its growing
// tree from these. A task that ends within the second costs no notice.
const noticeEvery = clusterwire.StatusEvery

// noticeRunning sends the start notices of the running tasks, one message
// per job: "task \t attempt \t start-unix-ns \t worker \t handed" lines.
func (n *Node) noticeRunning(running []clusterwire.StatusTask) {
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
