package clusterobs

import (
	"cmp"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/worksteal/worksteal/internal/clusterops"
	"github.com/worksteal/worksteal/internal/clusterwire"
)

// State is a cluster's state as an Observer sees it: the data of the
// dashboard (JSON at /api/state), also what its Prometheus metrics report.
type State struct {
	// Kind is "cluster": the dashboard page draws a cluster.
	Kind   string    `json:"kind"`
	Time   time.Time `json:"time"`
	Stream string    `json:"stream"`
	// Ready says the observer found the cluster's buckets; Note says what
	// it waits for otherwise.
	Ready bool   `json:"ready"`
	Note  string `json:"note,omitempty"`
	// StragglerFactor is the rule in use: a task is a straggler past this
	// many times its job's median run time.
	StragglerFactor float64       `json:"straggler_factor"`
	Workers         []WorkerState `json:"workers"`
	Jobs            []JobState    `json:"jobs"`
	Stragglers      []Straggler   `json:"stragglers"`
	// Refusals are the recorder's counts of refused and discarded
	// messages by "<role>/<reason>" (worker/not-held, person/not-owner,
	// task/no-job, ...), as worksteal serve's recorder last published them.
	Refusals map[string]int64 `json:"refusals,omitempty"`
	// Queued is the number of tasks waiting for a worker, over all jobs.
	Queued  int `json:"queued"`
	Running int `json:"running"`
	// Redeliveries is the workers' count of tasks received again after an
	// earlier delivery (a lost worker, a failed attempt), since they
	// started.
	Redeliveries int64 `json:"redeliveries"`
	// Latency is the submit-to-start latency histogram, all workers
	// together (see clusterwire.LatencyBounds).
	Latency clusterwire.Latency `json:"latency"`
}

// WorkerState is one worker in a State.
type WorkerState struct {
	Name     string            `json:"name"`
	Status   string            `json:"status"` // "up", "lost" (silent for 3 statuses) or "stopped"
	Slots    int               `json:"slots"`
	Running  int               `json:"running"`
	Handlers []string          `json:"handlers"`
	Labels   map[string]string `json:"labels,omitempty"`
	Started  time.Time         `json:"started"`
	// LastSeen is when its last status arrived; SilentSec how long ago.
	LastSeen    time.Time `json:"last_seen"`
	SilentSec   float64   `json:"silent_s"`
	Executed    int64     `json:"executed"`
	Failures    int64     `json:"failures"`
	Redelivered int64     `json:"redelivered"`
	// Spawned counts the children its tasks spawned (cluster.Spawn), Spilled
	// those it handed over to other workers (clusterwire.WorkerStatus).
	Spawned int64   `json:"spawned"`
	Spilled int64   `json:"spilled"`
	BusySec float64 `json:"busy_s"`
	// Utilization is busy slots over slots between its last two statuses.
	Utilization float64                  `json:"utilization"`
	Tasks       []clusterwire.StatusTask `json:"tasks"`
	// Timeline holds its recently finished tasks, oldest first.
	Timeline []Span `json:"timeline"`
}

// Span is a finished task on a worker's timeline.
type Span struct {
	Job     string `json:"job"`
	Task    string `json:"task"`
	StartMs int64  `json:"start_ms"` // Unix milliseconds
	Ms      int64  `json:"ms"`
	OK      bool   `json:"ok"`
}

// JobState is one job in a State.
type JobState struct {
	ID string `json:"id"`
	// Total is the tasks the job's record counts plus Handed, the
	// children handed over between workers that the results seen so far
	// list (a tree's total grows as it does; results recorded before the
	// observer started are not seen, so neither are the children they
	// list). Reduce names the job's reduction (cluster.Job.Reduce); the value
	// reduced so far is not shown: it is made of the tasks' outputs, which
	// the observer may not read (cluster.Submission.Value and worksteal job status
	// show it).
	Total     int    `json:"total"`
	Handed    int    `json:"handed"`
	Reduce    string `json:"reduce,omitempty"`
	Succeeded int    `json:"succeeded"`
	Failed    int    `json:"failed"`
	Running   int    `json:"running"`
	Queued    int    `json:"queued"`
	// Waiting says what queued tasks wait for when no worker up can run
	// them (see clusterops.Stall): "no live worker has gpu=1 (handler sh) since
	// 12:03:04: 3 tasks wait"; "" otherwise.
	Waiting string `json:"waiting,omitempty"`
	// Retries counts the attempts after a handler's failure, Reruns the
	// runs beyond the attempts (cluster.Result.Reruns: a worker died, stopped or
	// lost the server, a result was discarded), over the recorded results.
	Retries  int       `json:"retries"`
	Reruns   int       `json:"reruns"`
	Finished bool      `json:"finished"`
	Created  time.Time `json:"created"`
	// Rate is results per second over the last 10 s; ETASec the time left
	// at that rate (-1: unknown).
	Rate      float64 `json:"rate"`
	ETASec    float64 `json:"eta_s"`
	MedianSec float64 `json:"median_s"`
	// ElapsedSec runs from the job's creation to now, or to its
	// end once finished (when its submitter saw its last result, else its
	// last result seen, else when the observer first saw it finished).
	ElapsedSec float64 `json:"elapsed_s"`
}

// Straggler is a task running longer than StragglerFactor × its job's
// median.
type Straggler struct {
	Job        string  `json:"job"`
	Task       string  `json:"task"`
	Worker     string  `json:"worker"`
	Attempt    int     `json:"attempt"`
	RunningSec float64 `json:"running_s"`
	MedianSec  float64 `json:"median_s"`
	Ratio      float64 `json:"ratio"`
}

// Snapshot returns State() as the dashboard's data source.
func (o *Observer) Snapshot() any { return o.State() }

// State returns the cluster's state now.
func (o *Observer) State() State {
	now := time.Now()
	o.mu.Lock()
	defer o.mu.Unlock()
	s := State{Kind: "cluster", Time: now, Stream: o.cfg.Stream, Ready: o.ready, Note: o.note, StragglerFactor: o.cfg.StragglerFactor,
		Workers: []WorkerState{}, Jobs: []JobState{}, Stragglers: []Straggler{}, Refusals: maps.Clone(o.refusals)}
	running := map[string]int{}
	var live []clusterwire.Worker // the workers up, for the jobs' stalls
	for _, w := range o.workers {
		ws, up, keep := o.workerState(&s, now, w, running)
		if !keep {
			continue
		}
		if up {
			live = append(live, clusterwire.Worker{Handlers: w.st.Handlers, Labels: w.st.Labels})
		}
		s.Redeliveries += w.st.Redelivered
		s.Latency.Add(w.st.Latency)
		s.Workers = append(s.Workers, ws)
	}
	slices.SortFunc(s.Workers, func(a, b WorkerState) int { return strings.Compare(a.Name, b.Name) })
	o.refreshLive(now)
	slices.SortFunc(s.Stragglers, func(a, b Straggler) int { return cmp.Compare(b.Ratio, a.Ratio) })
	for _, j := range o.jobs {
		if !j.recorded {
			continue // results of a job whose record is gone
		}
		js := o.jobState(j, now, running[j.id], live)
		s.Queued += js.Queued
		s.Running += js.Running
		s.Jobs = append(s.Jobs, js)
	}
	slices.SortFunc(s.Jobs, func(a, b JobState) int {
		if a.Finished != b.Finished {
			if a.Finished {
				return 1
			}
			return -1
		}
		return cmp.Or(b.Created.Compare(a.Created), strings.Compare(a.ID, b.ID))
	})
	if len(s.Jobs) > maxJobs {
		s.Jobs = s.Jobs[:maxJobs]
	}
	return s
}

// workerState is worker w's row at now: its status, running tasks (counted
// per job into running, each checked as a straggler into s) and timeline.
// up: it counts for the jobs' stalls; !keep: it has been gone long enough
// to be forgotten, and is. o.mu is held.
func (o *Observer) workerState(s *State, now time.Time, w *workerView, running map[string]int) (ws WorkerState, up, keep bool) {
	st := w.st
	ws = WorkerState{Name: st.Name, Status: "up", Slots: st.Slots, Handlers: st.Handlers, Labels: st.Labels, Started: st.Started,
		LastSeen: w.seen, SilentSec: now.Sub(w.seen).Seconds(), Executed: st.Executed, Failures: st.Failures,
		Redelivered: st.Redelivered, Spawned: st.Spawned, Spilled: st.Spilled, BusySec: st.Busy.Seconds(), Utilization: w.util, Tasks: []clusterwire.StatusTask{}, Timeline: []Span{}}
	every := cmp.Or(st.Every, clusterwire.StatusEvery)
	if silent := now.Sub(w.seen); (st.Stopping && silent > forgetStopped) || silent > forgetLost {
		delete(o.workers, st.Name)
		delete(o.spans, st.Name)
		return ws, false, false
	}
	switch {
	case st.Stopping:
		ws.Status = "stopped"
	case now.Sub(w.seen) > clusterwire.StatusMissed*every:
		ws.Status = "lost"
		ws.Utilization = 0
	default:
		up = true
		ws.Tasks = st.Running
		ws.Running = len(st.Running)
		for _, t := range st.Running {
			running[t.Job]++
			o.straggler(s, now, st.Name, t)
		}
	}
	if ring := o.spans[st.Name]; ring != nil {
		cut := now.Add(-o.cfg.Timeline).UnixMilli()
		for i := range ring.spans {
			sp := ring.spans[(ring.next+i)%len(ring.spans)]
			if sp.StartMs+sp.Ms >= cut {
				ws.Timeline = append(ws.Timeline, sp)
			}
		}
	}
	return ws, up, true
}

// jobState is job j's row at now: its counts (running of its tasks run on
// the workers), what it waits for (the routes no worker of live can take),
// its rate, ETA and elapsed time. o.mu is held.
func (o *Observer) jobState(j *jobView, now time.Time, running int, live []clusterwire.Worker) JobState {
	done := j.seen
	if j.counted {
		done = j.doneExact
	}
	total := j.tasks()
	js := JobState{ID: j.id, Total: total, Handed: j.handedSum + j.live, Reduce: j.reduce, Running: running,
		Retries: j.retries, Reruns: j.reruns, Created: j.created, ETASec: -1, MedianSec: j.hist.Quantile(0.5).Seconds()}
	js.Finished = o.finishedNow(j)
	if js.Finished {
		done = total // seen may count a result twice (reported twice)
		if j.finishedSeen.IsZero() {
			j.finishedSeen = now
		}
	} else {
		js.Queued = max(0, o.inQueue[j.id]-js.Running)
		var stalls []string
		for _, r := range o.waits[j.id] {
			if r.Stalled(live) {
				stall := clusterops.Stall{Job: r.Job, Handler: r.Handler, Require: r.Require, Queued: r.Queued, Since: r.Since}
				stalls = append(stalls, stall.String())
			}
		}
		slices.Sort(stalls)
		js.Waiting = strings.Join(stalls, "; ")
		switch {
		case j.total > 0 && !j.mayGrow():
			// A job whose record is read and that spawns nothing has
			// exactly the record's tasks. Its counts come from
			// sources read at different moments (the statuses, the
			// results, the stream's messages: a task whose result is
			// recorded stays in the stream until it is acked), so
			// done+running+queued may pass it for a moment: the
			// total does not follow them, and done stays within it.
			done = min(done, total)
			js.Queued = min(js.Queued, max(0, total-done-js.Running))
		default:
			// What is done, running or queued is a task of the job,
			// and an unfinished job has a task without a result: a
			// total behind the statuses (a child's result counted
			// before the status of the task that handed it over, or
			// a job whose record is not read yet) is raised to that.
			js.Total = max(total, done+js.Running+js.Queued, done+1)
		}
	}
	js.Failed = min(len(j.failedKeys), done)
	js.Succeeded = done - js.Failed
	// The rate: the server's counts over the last 10 s.
	if n := len(j.samples); n >= 2 && !js.Finished {
		if dt := j.samples[n-1].at.Sub(j.samples[0].at); dt > 0 {
			js.Rate = float64(j.samples[n-1].n-j.samples[0].n) / dt.Seconds()
		}
	}
	// The ETA: what is left at that rate; unknown (-1) while a tree
	// grows, since its total is not known until it ends.
	switch left := js.Total - done; {
	case js.Finished:
		js.ETASec = 0
	case j.mayGrow():
	case js.Rate > 0:
		js.ETASec = float64(left) / js.Rate
	}
	// The elapsed time ends with the job: at its last result seen, or
	// when its submitter saw it end (its record's Ended), or when the
	// observer first saw it finished.
	end := now
	if js.Finished {
		end = cmp.Or(j.ended, j.lastEnd, j.finishedSeen)
	}
	js.ElapsedSec = max(0, end.Sub(j.created).Seconds())
	return js
}

// straggler adds t to s.Stragglers if it has run longer than the factor
// times its job's median. Called with o.mu held.
func (o *Observer) straggler(s *State, now time.Time, worker string, t clusterwire.StatusTask) {
	j := o.jobs[t.Job]
	if j == nil || j.hist.Len() < 3 {
		return // the same minimum as the runner's --timeout N%
	}
	med := j.hist.Quantile(0.5)
	ran := now.Sub(t.Start)
	if med <= 0 || float64(ran) <= o.cfg.StragglerFactor*float64(med) {
		return
	}
	s.Stragglers = append(s.Stragglers, Straggler{Job: t.Job, Task: t.Task, Worker: worker, Attempt: t.Attempt,
		RunningSec: ran.Seconds(), MedianSec: med.Seconds(), Ratio: float64(ran) / float64(med)})
}
