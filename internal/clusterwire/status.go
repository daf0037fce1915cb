package clusterwire

import "time"

// StatusEvery is how often a serving worker publishes its WorkerStatus on
// <stream>.status.<name>. One small message a second per worker, whatever
// the task rate: the live view of workers (what runs where, stragglers,
// lost workers, busy time) costs nothing per task. Tasks that start and end
// between two statuses are seen through their results instead.
const StatusEvery = time.Second

// StatusMissed is how many statuses in a row an observer may miss before it
// counts the worker lost: a killed worker shows as lost within 3 s.
const StatusMissed = 3

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
	// Spawned counts the children its tasks spawned, Spilled those it
	// handed over to other workers (see Spawn).
	Spawned int64 `json:"spawned,omitempty"`
	Spilled int64 `json:"spilled,omitempty"`
	// Busy is the handlers' running time summed, the running ones included.
	Busy    time.Duration `json:"busy_ns"`
	Latency Latency       `json:"latency"`
	// Results are the results this worker recorded since its previous
	// status, in the order it recorded them.
	Results []StatusResult `json:"results,omitempty"`
	// Stopping says the worker is stopping (its last status).
	Stopping bool `json:"stopping,omitempty"`
}

// StatusResult is a result a worker recorded, as its status reports it:
// what an observer needs of it (no output, no error text).
type StatusResult struct {
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
