package cluster

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/worksteal/worksteal/balance"
)

// ObserverConfig sets up an Observer; its zero value is useful.
type ObserverConfig struct {
	// Stream is the name the cluster's nodes use (WithStream); "" means "ws".
	Stream string
	// StragglerFactor flags a running task as a straggler once it has run
	// longer than StragglerFactor × the median run time of its job's
	// finished tasks (after three have finished): the rule of
	// "worksteal run --timeout 200%". 0 means 2.
	StragglerFactor float64
	// Timeline is how far back the per-worker timeline of finished tasks
	// reaches; 0 means one minute.
	Timeline time.Duration
	// DefaultTimeout bounds each request to the server; 0 means 5s.
	DefaultTimeout time.Duration
}

// Observer follows a cluster's state for a dashboard or a monitoring job,
// and never changes it: it reads the job records (direct gets, once a
// second), the task stream's and the results bucket's per-subject counts
// (stream info), and the workers' status messages (WorkerStatus). It
// publishes nothing to the cluster's streams, buckets or subjects, creates
// no consumer, and reads no result (so no task's output): it works with
// an observer's credentials (RolePermissions), which allow it nothing
// else. State returns the view; it is safe for concurrent use.
//
// Its cost does not grow with the task rate: it reads no message per task.
// Results come in the workers' statuses, a thousand at most per message,
// and the count of a job's results is asked of the server once a second.
//
// Where each figure comes from:
//   - workers: their status messages, one a second each; a worker silent
//     for 3 statuses is lost, one that said it was stopping is stopped;
//   - a job's total: its record; done: the server's count of its results
//     (exact, at most a second old); failed, retries, redeliveries, the
//     median and the timeline: the results the statuses report after the
//     observer started (results recorded before it started count as done,
//     and a worker killed loses the report of its last second's results:
//     the failures among those are not shown, since the observer may not
//     read results); running: the workers' statuses; queued: the tasks of
//     the job in the stream, less the running ones;
//   - trees: a worker's children spawned and handed over come in its
//     statuses; a job's tasks handed over are the children listed by the
//     results the statuses report (a count per result, no ids), and its
//     total is its record's plus those; a job with a reduction is finished
//     only by its record (the submitter's quiescence rule), since a
//     child's result can be counted before the result listing it is seen.
//     The value reduced so far is not shown: it is made of the tasks'
//     outputs, which the observer may not read;
//   - stragglers: running tasks against their job's median (see
//     ObserverConfig.StragglerFactor);
//   - throughput: the growth of the done count over the last 10 s; ETA:
//     what is left at that rate.
type Observer struct {
	nc  *nats.Conn
	js  jetstream.JetStream
	cfg ObserverConfig

	mu       sync.Mutex
	ready    bool             // the buckets were found
	note     string           // why not ready
	refusals map[string]int64 // the recorder's latest counts (refusals.go)
	workers  map[string]*workerView
	spans    map[string]*spanRing // recent finished tasks, by worker
	jobs     map[string]*jobView
	inQueue  map[string]int         // task messages in the stream, by job
	waits    map[string][]routeWait // routes with queued tasks, by job
}

// workerView is what the observer knows of one worker.
type workerView struct {
	st       workerStatus
	seen     time.Time // when its last status arrived
	prevBusy time.Duration
	prevSent time.Time
	util     float64 // busy slots / slots between its last two statuses
}

// jobView is what the observer knows of one job.
//
// Counts: done is the server's count of the job's results (countDone,
// exact as of the last poll); failedKeys are the failed tasks seen in
// statuses (a set: a result reported twice counts once);
// seen counts every result seen, for jobs not counted by the server yet.
type jobView struct {
	id                  string
	total               int
	created             time.Time
	recorded            bool      // a record exists
	finished            bool      // its record says Done
	ended               time.Time // its record's Ended
	finishedSeen        time.Time // when the observer first showed it finished
	countedAll          int       // consecutive counts that found every task's result (flat jobs)
	doneExact           int       // the server's count of results
	counted             bool      // doneExact is set
	countAfter          time.Time // when countDone may count it again
	seen                int
	failedKeys          map[string]struct{}
	handed              map[string]int // children listed by a result, by the listing task (a set: reported twice counts once)
	handedSum           int            // the sum of handed
	live                int            // children handed over by tasks still running, as the last statuses say
	running             int            // its tasks running, as the last statuses say
	reduce              string         // the record's Reduce
	retries, reruns     int            // attempts after a failure; runs beyond the attempts (Result.Reruns)
	firstStart, lastEnd time.Time
	hist                *balance.History // run times of successful tasks
	samples             []doneSample     // the server's counts over the last rateWindow
}

// doneSample is the server's count of a job's results at a time.
type doneSample struct {
	at time.Time
	n  int
}

// spanRing keeps the last spanKeep finished tasks of one worker.
type spanRing struct {
	spans []Span
	next  int
}

const (
	spanKeep   = 32               // finished tasks kept per worker for the timeline
	rateWindow = 10 * time.Second // throughput is measured over this window
	maxJobs    = 50               // jobs shown: unfinished first, then the latest

	forgetStopped = time.Minute      // a stopped worker is shown this long
	forgetLost    = 10 * time.Minute // a lost worker is shown this long
)

// NewObserver returns an Observer of the cluster reached through nc; Run
// makes it follow the cluster.
func NewObserver(nc *nats.Conn, cfg ObserverConfig) (*Observer, error) {
	if nc == nil {
		return nil, fmt.Errorf("%w: nil connection", ErrInvalidOption)
	}
	if cfg.Stream == "" {
		cfg.Stream = "ws"
	}
	if !namePattern.MatchString(cfg.Stream) {
		return nil, fmt.Errorf("%w: stream name %q: use letters, digits, '-' and '_'", ErrInvalidOption, cfg.Stream)
	}
	switch {
	case cfg.StragglerFactor == 0:
		cfg.StragglerFactor = 2
	case cfg.StragglerFactor < 1 || cfg.StragglerFactor != cfg.StragglerFactor:
		return nil, fmt.Errorf("%w: straggler factor %v: must be 1 or more", ErrInvalidOption, cfg.StragglerFactor)
	}
	if cfg.Timeline <= 0 {
		cfg.Timeline = time.Minute
	}
	if cfg.DefaultTimeout <= 0 {
		cfg.DefaultTimeout = 5 * time.Second
	}
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, err
	}
	return &Observer{nc: nc, js: js, cfg: cfg, note: "connecting",
		workers: map[string]*workerView{}, spans: map[string]*spanRing{}, jobs: map[string]*jobView{}, inQueue: map[string]int{}}, nil
}

// Run follows the cluster until ctx is done, and then returns nil. Until
// the cluster's buckets exist (no node has set them up yet) it waits for
// them, and State says so. It returns an error only if it cannot subscribe
// to the workers' statuses.
func (o *Observer) Run(ctx context.Context) error {
	rsub, err := o.nc.Subscribe(o.cfg.Stream+".refusals", o.onRefusals)
	if err != nil {
		return err
	}
	defer rsub.Unsubscribe()
	sub, err := o.nc.Subscribe(o.cfg.Stream+".status.*", o.onStatus)
	if err != nil {
		return fmt.Errorf("cluster: observing worker statuses: %w", err)
	}
	defer sub.Unsubscribe()

	var jobs jetstream.KeyValue
	for {
		jobs, err = o.bind(ctx)
		if err == nil {
			break
		}
		o.setNote(err.Error())
		if !sleepCtx(ctx, time.Second) {
			return nil
		}
	}
	stream, _ := o.js.Stream(ctx, o.cfg.Stream+"_tasks")
	o.pollJobs(ctx, jobs)
	o.countQueued(ctx, stream)
	o.countDone(ctx)
	o.mu.Lock()
	o.ready, o.note = true, ""
	o.mu.Unlock()

	poll := time.NewTicker(time.Second)
	defer poll.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-poll.C:
			if stream == nil {
				stream, _ = o.js.Stream(ctx, o.cfg.Stream+"_tasks")
			}
			o.pollJobs(ctx, jobs)
			o.countQueued(ctx, stream)
			o.countDone(ctx)
		}
	}
}

// bind finds the jobs and results buckets (without creating anything,
// and reading no result).
func (o *Observer) bind(ctx context.Context) (jobs jetstream.KeyValue, err error) {
	tctx, cancel := context.WithTimeout(ctx, o.cfg.DefaultTimeout)
	defer cancel()
	if _, err = o.js.Stream(tctx, "KV_"+o.cfg.Stream+"_results"); err != nil {
		if errors.Is(err, jetstream.ErrStreamNotFound) {
			err = jetstream.ErrBucketNotFound
		}
		return nil, bindError(o.cfg.Stream+"_results", err)
	}
	if jobs, err = o.js.KeyValue(tctx, o.cfg.Stream+"_jobs"); err != nil {
		return nil, bindError(o.cfg.Stream+"_jobs", err)
	}
	return jobs, nil
}

func bindError(bucket string, err error) error {
	if errors.Is(err, jetstream.ErrBucketNotFound) {
		return fmt.Errorf("waiting for the cluster: no bucket %s yet (no worker or submitter has used stream %q)", bucket, strings.TrimSuffix(bucket, "_results"))
	}
	return fmt.Errorf("reading bucket %s: %w", bucket, err)
}

func (o *Observer) setNote(s string) {
	o.mu.Lock()
	o.note = s
	o.mu.Unlock()
}

// onStatus takes a worker's status message.
func (o *Observer) onStatus(m *nats.Msg) {
	var st workerStatus
	if json.Unmarshal(m.Data, &st) != nil || st.Name == "" {
		return
	}
	now := time.Now()
	o.mu.Lock()
	defer o.mu.Unlock()
	w := o.workers[st.Name]
	if w == nil || !st.Started.Equal(w.st.Started) {
		w = &workerView{prevBusy: st.Busy, prevSent: st.Sent} // a new worker, or a restarted one
		o.workers[st.Name] = w
	}
	if dt := st.Sent.Sub(w.prevSent); dt > 0 && st.Slots > 0 {
		w.util = min(1, max(0, float64(st.Busy-w.prevBusy)/(float64(dt)*float64(st.Slots))))
	}
	w.prevBusy, w.prevSent = st.Busy, st.Sent
	w.st, w.seen = st, now
	for _, r := range st.Results {
		start := time.Unix(0, r.StartNs)
		if r.StartNs == 0 {
			start = st.Sent
		}
		o.addResult(r.Job, r.Task, st.Name, r.Failed, r.Attempt, r.Deliveries, 0, start, start.Add(time.Duration(r.RuntimeNs)), r.StartNs != 0)
		if r.Handed > 0 {
			o.job(r.Job).addHanded(r.Task, r.Handed)
		}
	}
	w.st.Results = nil
	if st.Stopping {
		w.util = 0
		w.st.Running = nil
	}
}

// pollJobs reads the jobs bucket: its keys (the stream's per-subject
// counts), then each record by a direct get. No consumer: the observer
// role may create none (RolePermissions). A job whose record is gone is
// forgotten with its results.
func (o *Observer) pollJobs(ctx context.Context, jobs jetstream.KeyValue) {
	tctx, cancel := context.WithTimeout(ctx, o.cfg.DefaultTimeout)
	defer cancel()
	keys, err := bucketKeys(tctx, o.js, jobs.Bucket())
	if err != nil {
		return
	}
	recs := map[string]jobRecord{}
	for _, k := range keys {
		e, err := jobs.Get(tctx, k)
		if isNotFound(err) {
			continue // deleted
		}
		var rec jobRecord
		if err != nil || json.Unmarshal(e.Value(), &rec) != nil {
			return // try again at the next poll, forgetting nothing
		}
		recs[rec.ID] = rec
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	for id := range o.jobs {
		if _, ok := recs[id]; !ok {
			delete(o.jobs, id) // deleted: its results go with it
		}
	}
	for _, rec := range recs {
		o.onJob(rec)
	}
}

// onJob takes a job's record. Called with o.mu held.
func (o *Observer) onJob(rec jobRecord) {
	j := o.job(rec.ID)
	if j.recorded && !rec.Created.Equal(j.created) && !j.created.IsZero() {
		// The id was deleted and submitted again: start over.
		*j = jobView{id: rec.ID, hist: balance.NewHistory(0), failedKeys: map[string]struct{}{}}
	}
	j.total, j.created, j.recorded, j.reduce, j.ended = rec.Total, rec.Created, true, rec.Reduce, rec.Ended
	j.finished = j.finished || rec.Done
}

// addHanded notes that task's recorded result lists n children handed
// over. Called with o.mu held.
func (j *jobView) addHanded(task string, n int) {
	if j.handed == nil {
		j.handed = map[string]int{}
	}
	j.handedSum += n - j.handed[task]
	j.handed[task] = n
}

// mayGrow says the job may be a tree: it names a reduction, or a result
// seen or a running task listed children handed over. Called with o.mu
// held.
func (j *jobView) mayGrow() bool { return j.reduce != "" || j.handedSum > 0 || j.live > 0 }

// tasks is the job's tasks as far as the observer knows: those its record
// counts and the children handed over that the results seen list.
func (j *jobView) tasks() int { return j.total + j.handedSum + j.live }

// job returns the view of job id, made if need be. Called with o.mu held.
func (o *Observer) job(id string) *jobView {
	j := o.jobs[id]
	if j == nil {
		j = &jobView{id: id, hist: balance.NewHistory(0), failedKeys: map[string]struct{}{}}
		o.jobs[id] = j
	}
	return j
}

// addResult counts one recorded result of a job, from a worker's status.
// Called with o.mu held.
func (o *Observer) addResult(job, task, worker string, failed bool, attempt, deliveries, discarded int, start, end time.Time, ran bool) {
	j := o.job(job)
	r := struct {
		Job, Task, Worker  string
		StartNs, RuntimeNs int64
		ok                 bool
	}{job, task, worker, start.UnixNano(), int64(end.Sub(start)), !failed}
	if !ran {
		r.StartNs = 0
	}
	j.seen++
	if !failed {
		j.hist.Observe(time.Duration(r.RuntimeNs))
	} else if _, dup := j.failedKeys[task]; !dup {
		j.failedKeys[task] = struct{}{}
	}
	j.retries += max(0, attempt-1)
	j.reruns += max(0, deliveries-attempt) + discarded
	if j.firstStart.IsZero() || start.Before(j.firstStart) {
		j.firstStart = start
	}
	if end.After(j.lastEnd) {
		j.lastEnd = end
	}
	if r.StartNs != 0 && r.Worker != "" && time.Since(end) < o.cfg.Timeline {
		ring := o.spans[r.Worker]
		if ring == nil {
			ring = &spanRing{}
			o.spans[r.Worker] = ring
		}
		sp := Span{Job: r.Job, Task: r.Task, StartMs: start.UnixMilli(), Ms: time.Duration(r.RuntimeNs).Milliseconds(), OK: r.ok}
		if len(ring.spans) < spanKeep {
			ring.spans = append(ring.spans, sp)
		} else {
			ring.spans[ring.next] = sp
			ring.next = (ring.next + 1) % spanKeep
		}
	}
}

// countDone asks the server how many results each unfinished job has:
// the number of the job's keys in the results bucket's stream (a stream
// info request's subject total: no message is read, nothing is created).
// The server's work grows with the job's results (35-45 ms for 100,000,
// BenchmarkCountDone), so a job is counted at most once a second and no
// more often than every 25 × its last count's time: one job's counts take
// at most about 4% of the server's time, whatever its size and the task
// rate.
func (o *Observer) countDone(ctx context.Context) {
	now := time.Now()
	o.mu.Lock()
	var ids []string
	for id, j := range o.jobs {
		if j.recorded && !j.finished && !now.Before(j.countAfter) {
			ids = append(ids, id)
		}
	}
	o.mu.Unlock()
	if len(ids) > maxJobs {
		ids = ids[:maxJobs]
	}
	stream := "KV_" + o.cfg.Stream + "_results"
	for _, id := range ids {
		tctx, cancel := context.WithTimeout(ctx, o.cfg.DefaultTimeout)
		start := time.Now()
		n, err := subjectCount(tctx, o.nc, stream, "$KV."+o.cfg.Stream+"_results."+id+".*")
		cancel()
		if err != nil {
			continue
		}
		end := time.Now()
		o.mu.Lock()
		if j := o.jobs[id]; j != nil {
			o.refreshLive(end)
			j.setDone(n, end)
			j.countAfter = start.Add(25 * end.Sub(start))
		}
		o.mu.Unlock()
	}
}

// setDone takes the server's count of the job's results at t.
func (j *jobView) setDone(n int, t time.Time) {
	j.doneExact, j.counted = n, true
	// A job is finished by its record (Done, set by its submitter's
	// quiescence rule). Without it (no submitter follows the job), a
	// count that covers the job's tasks twice in a row shows it finished,
	// only while nothing tells of a tree: a child's result may be counted
	// before the observer has seen the task that handed it over, so a
	// count cannot tell that every task of a tree is in.
	if j.total > 0 && n >= j.tasks() && !j.mayGrow() {
		j.countedAll++
	} else {
		j.countedAll = 0
	}
	j.samples = append(j.samples, doneSample{t, n})
	k := 0
	for k < len(j.samples)-1 && t.Sub(j.samples[k].at) > rateWindow {
		k++
	}
	j.samples = j.samples[k:]
}

// refreshLive sets each job's running tasks and the children they have
// handed over so far, from the last statuses of the workers up. Called
// with o.mu held.
func (o *Observer) refreshLive(now time.Time) {
	for _, j := range o.jobs {
		j.live, j.running = 0, 0
	}
	for _, w := range o.workers {
		if w.st.Stopping || now.Sub(w.seen) > statusMissed*cmp.Or(w.st.Every, statusEvery) {
			continue
		}
		for _, t := range w.st.Running {
			j := o.jobs[t.Job]
			if j == nil {
				continue
			}
			j.running++
			if _, recorded := j.handed[t.Task]; !recorded {
				j.live += t.Handed
			}
		}
	}
}

// finishedNow says the job is finished: its record says so, or (a job no
// submitter follows) two counts in a row covered its tasks and nothing
// of it runs or waits. Called with o.mu held.
func (o *Observer) finishedNow(j *jobView) bool {
	return j.finished || (j.countedAll >= 2 && j.running == 0 && o.inQueue[j.id] == 0 && !j.mayGrow())
}

// countQueued reads how many task messages of each job the stream holds.
func (o *Observer) countQueued(ctx context.Context, stream jetstream.Stream) {
	if stream == nil {
		return
	}
	tctx, cancel := context.WithTimeout(ctx, o.cfg.DefaultTimeout)
	defer cancel()
	info, err := stream.Info(tctx, jetstream.WithSubjectFilter(o.cfg.Stream+".task.>"))
	if err != nil {
		return
	}
	counts := map[string]int{}
	prefix := o.cfg.Stream + ".task."
	for subj, n := range info.State.Subjects {
		if job := jobOfTaskSubject(prefix, subj); job != "" { // <job>.<handler>.<requirements>
			counts[job] += int(n)
		}
	}
	waits := map[string][]routeWait{}
	lister := stream.ListConsumers(tctx)
	for info := range lister.Info() {
		if r, ok := routeWaitOf(info); ok {
			waits[r.job] = append(waits[r.job], r)
		}
	}
	o.mu.Lock()
	o.inQueue = counts
	if lister.Err() == nil {
		o.waits = waits
	}
	o.mu.Unlock()
}

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
	// together (see LatencyBounds).
	Latency Latency `json:"latency"`
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
	// Spawned counts the children its tasks spawned (Spawn), Spilled
	// those it handed over to other workers (WorkerStatus).
	Spawned int64   `json:"spawned"`
	Spilled int64   `json:"spilled"`
	BusySec float64 `json:"busy_s"`
	// Utilization is busy slots over slots between its last two statuses.
	Utilization float64      `json:"utilization"`
	Tasks       []StatusTask `json:"tasks"`
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
	// list). Reduce names the job's reduction (Job.Reduce); the value
	// reduced so far is not shown: it is made of the tasks' outputs, which
	// the observer may not read (Submission.Value and worksteal job status
	// show it).
	Total     int    `json:"total"`
	Handed    int    `json:"handed"`
	Reduce    string `json:"reduce,omitempty"`
	Succeeded int    `json:"succeeded"`
	Failed    int    `json:"failed"`
	Running   int    `json:"running"`
	Queued    int    `json:"queued"`
	// Waiting says what queued tasks wait for when no worker up can run
	// them (see Stall): "no live worker has gpu=1 (handler sh) since
	// 12:03:04: 3 tasks wait"; "" otherwise.
	Waiting string `json:"waiting,omitempty"`
	// Retries counts the attempts after a handler's failure, Reruns the
	// runs beyond the attempts (Result.Reruns: a worker died, stopped or
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
		Workers: []WorkerState{}, Jobs: []JobState{}, Stragglers: []Straggler{}, Refusals: cloneCounts(o.refusals)}
	running := map[string]int{}
	var live []WorkerInfo // the workers up, for the jobs' stalls
	for _, w := range o.workers {
		ws, up, keep := o.workerState(&s, now, w, running)
		if !keep {
			continue
		}
		if up {
			live = append(live, WorkerInfo{Name: w.st.Name, Handlers: w.st.Handlers, Labels: w.st.Labels})
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
		Redelivered: st.Redelivered, Spawned: st.Spawned, Spilled: st.Spilled, BusySec: st.Busy.Seconds(), Utilization: w.util, Tasks: []StatusTask{}, Timeline: []Span{}}
	every := cmp.Or(st.Every, statusEvery)
	if silent := now.Sub(w.seen); (st.Stopping && silent > forgetStopped) || silent > forgetLost {
		delete(o.workers, st.Name)
		delete(o.spans, st.Name)
		return ws, false, false
	}
	switch {
	case st.Stopping:
		ws.Status = "stopped"
	case now.Sub(w.seen) > statusMissed*every:
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
func (o *Observer) jobState(j *jobView, now time.Time, running int, live []WorkerInfo) JobState {
	done := j.seen
	if j.counted {
		done = j.doneExact
	}
	total := j.tasks()
	js := JobState{ID: j.id, Total: total, Handed: j.handedSum + j.live, Reduce: j.reduce, Running: running,
		Retries: j.retries, Reruns: j.reruns, Created: j.created, ETASec: -1, MedianSec: j.hist.Median().Seconds()}
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
			if r.stalled(live) {
				stalls = append(stalls, r.stall().String())
			}
		}
		slices.Sort(stalls)
		js.Waiting = strings.Join(stalls, "; ")
		// What is done, running or queued is a task of the job, and
		// an unfinished job has a task without a result: a total
		// behind the statuses (a child's result counted before the
		// status of the task that handed it over) is raised to that.
		js.Total = max(total, done+js.Running+js.Queued, done+1)
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
func (o *Observer) straggler(s *State, now time.Time, worker string, t StatusTask) {
	j := o.jobs[t.Job]
	if j == nil || j.hist.Len() < 3 {
		return // the same minimum as the runner's --timeout N%
	}
	med := j.hist.Median()
	ran := now.Sub(t.Start)
	if med <= 0 || float64(ran) <= o.cfg.StragglerFactor*float64(med) {
		return
	}
	s.Stragglers = append(s.Stragglers, Straggler{Job: t.Job, Task: t.Task, Worker: worker, Attempt: t.Attempt,
		RunningSec: ran.Seconds(), MedianSec: med.Seconds(), Ratio: float64(ran) / float64(med)})
}

// ObserverInboxPrefix is the inbox prefix of an observer's connection
// (nats.CustomInboxPrefix): its replies arrive there, so its credentials
// need not let it read other clients' inboxes, where task payloads
// travel.
const ObserverInboxPrefix = "_INBOX_observer"

// ObserverPermissions lists the subjects an Observer of stream uses, for a
// read-only observer role: what it must be allowed to publish (JetStream
// API requests that read state: stream info, the task stream's consumer
// list, direct gets of job records) and to subscribe to (worker statuses,
// its own inbox). None of them changes the cluster or creates anything (no
// consumer: NATS cannot confine a consumer's deliveries to its creator),
// and none reads a result, so no task's output. Its connection must use
// nats.CustomInboxPrefix(ObserverInboxPrefix).
func ObserverPermissions(stream string) (publish, subscribe []string) {
	publish = []string{"$JS.API.INFO", "$JS.API.STREAM.INFO." + stream + "_tasks",
		"$JS.API.CONSUMER.LIST." + stream + "_tasks",    // the routes, for what their tasks wait for
		"$JS.API.STREAM.INFO.KV_" + stream + "_results", // count a job's results
		"$JS.API.STREAM.INFO.KV_" + stream + "_jobs",    // list the jobs
		"$JS.API.DIRECT.GET.KV_" + stream + "_jobs.>",   // and read their records
	}
	subscribe = []string{stream + ".status.*", stream + ".refusals", ObserverInboxPrefix + ".>"}
	return publish, subscribe
}
