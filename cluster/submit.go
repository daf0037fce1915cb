package cluster

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nuid"

	"github.com/worksteal/worksteal/balance"
)

var taskIDPattern = charset("_=-")

// publishBatch is how many tasks are published between two updates of the
// job record's Published count.
const publishBatch = 512

// validate checks job and returns its task ids (defaults filled in).
func (n *Node) validate(job *Job) ([]string, error) {
	if job.ID == "" {
		job.ID = nuid.Next()
	}
	if n.opts.owner == "" && strings.Contains(job.ID, ".") {
		// "<owner>.<id>" is a person's job (WithOwner): an admin's jobs
		// have no owner.
		return nil, fmt.Errorf("%w: job id %q: use letters, digits, '-' and '_'", ErrInvalidJob, job.ID)
	}
	id, err := n.jobID(job.ID)
	if err != nil {
		return nil, err
	}
	job.ID = id
	if len(job.Tasks) == 0 {
		return nil, fmt.Errorf("%w: job %s has no tasks", ErrInvalidJob, job.ID)
	}
	if job.MaxAttempts < 0 {
		return nil, fmt.Errorf("%w: job %s: max attempts %d: must be 0 (default) or more", ErrInvalidJob, job.ID, job.MaxAttempts)
	}
	if job.RetryDelay < 0 {
		return nil, fmt.Errorf("%w: job %s: retry delay %v: must be 0 (default) or more", ErrInvalidJob, job.ID, job.RetryDelay)
	}
	if _, err := n.reducerOf(job.Reduce); err != nil {
		return nil, fmt.Errorf("%w: job %s: reduce: %w", ErrInvalidJob, job.ID, err)
	}
	if err := job.Require.check(); err != nil {
		return nil, fmt.Errorf("%w: job %s: requirement: %w", ErrInvalidJob, job.ID, err)
	}
	limit := int(n.nc.MaxPayload()) - 1024
	ids := make([]string, len(job.Tasks))
	seen := make(map[string]int, len(job.Tasks))
	for i, t := range job.Tasks {
		id := t.ID
		if id == "" {
			id = strconv.Itoa(i)
		}
		switch {
		case !taskIDPattern.MatchString(id):
			return nil, fmt.Errorf("%w: task %d: id %q: use letters, digits, '-', '_' and '='", ErrInvalidJob, i, id)
		case !namePattern.MatchString(t.Handler):
			return nil, fmt.Errorf("%w: task %s: handler name %q: use letters, digits, '-' and '_'", ErrInvalidJob, id, t.Handler)
		case t.Require.check() != nil:
			return nil, fmt.Errorf("%w: task %s: requirement: %w", ErrInvalidJob, id, t.Require.check())
		case len(t.Payload) > limit:
			return nil, fmt.Errorf("%w: task %s: payload of %d bytes is over the server's limit of %d", ErrInvalidJob, id, len(t.Payload), limit)
		}
		if j, dup := seen[id]; dup {
			return nil, fmt.Errorf("%w: tasks %d and %d have the same id %q", ErrInvalidJob, j, i, id)
		}
		seen[id] = i
		ids[i] = id
	}
	if err := checkChildIDs(job.ID, ids, seen); err != nil {
		return nil, err
	}
	return ids, nil
}

// fingerprint identifies a job's tasks, so that a resumed job is the same.
func fingerprint(job Job, ids []string) string {
	h := sha256.New()
	for i, t := range job.Tasks {
		p := sha256.Sum256(t.Payload)
		fmt.Fprintf(h, "%s\x00%s\x00%x\n", ids[i], t.Handler, p)
		if req := job.Require.merge(t.Require); len(req) > 0 {
			fmt.Fprintf(h, "require %s\n", req) // absent without: older records match
		}
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// Submit publishes job's tasks to the workers and returns the Submission
// that follows it. If a job with the same ID is recorded, Submit resumes
// it: the results recorded so far are kept and only the tasks that were
// never published are published now, so a submitter that was killed and
// restarted with the same job finishes it, and nothing is run again that
// has a result. A recorded job with other tasks is an error
// (ErrJobMismatch).
//
// Submit returns once every task is published; the tasks run meanwhile.
// Errors: ErrInvalidJob (naming the task and field), ErrUnknownHandler
// (when live workers are registered and none has a handler),
// ErrJetStream, or the ctx's error.
func (n *Node) Submit(ctx context.Context, job Job) (*Submission, error) {
	ids, err := n.validate(&job)
	if err != nil {
		return nil, err
	}
	if err := n.ensure(ctx); err != nil {
		return nil, err
	}
	// Right after the stream and buckets exist, a JetStream cluster may
	// still be electing their leaders: reads and creates then get "no
	// responders" or 503 for a moment. Both steps are idempotent (a record
	// created on an earlier try is found and resumed), so they are retried.
	var rec jobRecord
	var resumed bool
	err = n.retrySettling(ctx, func(ctx context.Context) error {
		if err := n.checkRoutes(ctx, job); err != nil {
			return err
		}
		var err error
		rec, resumed, err = n.jobRecord(ctx, job, ids)
		return err
	})
	if err != nil {
		return nil, err
	}
	// The routes exist before the results are followed: a resumed job
	// found finished deletes them again (markDone).
	if err := n.ensureRoutes(ctx, job); err != nil {
		return nil, err
	}
	s, err := n.follow(ctx, rec, job, ids)
	if err != nil {
		return nil, err
	}
	s.Resumed = resumed
	if resumed && job.RetryFailed {
		if err := s.retryFailed(ctx); err != nil {
			s.Stop()
			return nil, err
		}
	}
	if err := s.publish(ctx, rec); err != nil {
		s.Stop()
		return nil, err
	}
	return s, nil
}

// retryFailed removes the failed results of a resumed job and publishes
// their tasks again (Job.RetryFailed). A result is removed only if it is
// still the failure read (a compare-and-delete), so a concurrent retry of
// the same job cannot remove a newer result.
func (s *Submission) retryFailed(ctx context.Context) error {
	n := s.n
	s.mu.Lock()
	var failed []Result
	for _, r := range s.queue[s.head:] { // Submit calls this before anyone calls Next
		if !r.OK() {
			failed = append(failed, r)
		}
	}
	s.mu.Unlock()
	if len(failed) == 0 {
		return nil
	}
	// The routes of a job found finished may be going (markDone): they
	// are made again, and markDone leaves them while this retry runs.
	s.routesMu.Lock()
	s.mu.Lock()
	s.retrying = true
	s.mu.Unlock()
	s.routesMu.Unlock()
	defer func() {
		s.mu.Lock()
		s.retrying = false
		s.mu.Unlock()
	}()
	if err := n.ensureRoutes(ctx, s.job); err != nil {
		return err
	}
	tctx, cancel := n.timeout(ctx)
	defer cancel()
	for _, r := range failed {
		key := resultKey(s.ID, r.Task)
		e, err := n.results.Get(tctx, key)
		if err != nil {
			return fmt.Errorf("%w: job %s: reading the failure of %s: %w", ErrJetStream, s.ID, r.Task, err)
		}
		if err := n.results.Delete(tctx, key, jetstream.LastRevision(e.Revision())); err != nil {
			continue // changed meanwhile: someone else retries it
		}
		n.failuresKV.Purge(tctx, key)
		n.checkpoints.Purge(tctx, key)
		s.mu.Lock()
		if s.finished {
			s.finished = false
			s.done = make(chan struct{})
		}
		s.unmark(r)
		s.queue = append(s.queue[:s.head], slices.DeleteFunc(s.queue[s.head:], func(a Result) bool { return a.Task == r.Task })...)
		if s.firstFailed != nil && s.firstFailed.Task == r.Task {
			s.firstFailed = nil
		}
		s.failed--
		s.retries -= max(0, r.Attempt-1)
		s.extra -= r.Reruns() + s.discarded[r.Task] - r.Discarded
		delete(s.discarded, r.Task)
		s.mu.Unlock()
		i, ok := s.index[r.Task]
		if !ok {
			continue
		}
		msg := s.taskMsg(i, false)
		if _, err := n.js.PublishMsg(tctx, msg, jetstream.WithMsgID(fmt.Sprintf("%s.%s.retry%d", s.nonce, r.Task, e.Revision()))); err != nil {
			return fmt.Errorf("%w: publishing task %s of job %s again: %w", ErrJetStream, r.Task, s.ID, err)
		}
	}
	if len(failed) > 0 {
		s.setDone(false)
		n.announceRoutes()
	}
	return nil
}

// retrySettling runs f until it succeeds, fails for good, or 30 s pass:
// errors of a JetStream cluster still settling (transient, or no responders
// once the stream and buckets are known to exist) are retried with backoff.
func (n *Node) retrySettling(ctx context.Context, f func(ctx context.Context) error) error {
	ctx, cancel := context.WithTimeout(ctx, max(n.opts.defaultTimeout, 30*time.Second))
	defer cancel()
	return retryTransient(ctx, n.opts.defaultTimeout, f)
}

// jobRecord reads job's record, or creates it.
func (n *Node) jobRecord(ctx context.Context, job Job, ids []string) (rec jobRecord, resumed bool, err error) {
	fp := fingerprint(job, ids)
	tctx, cancel := n.timeout(ctx)
	defer cancel()
	for {
		e, err := n.jobs.Get(tctx, job.ID)
		if err == nil {
			if err := json.Unmarshal(e.Value(), &rec); err != nil {
				return rec, false, fmt.Errorf("%w: job %s: unreadable record: %v", ErrJetStream, job.ID, err)
			}
			if rec.Cancelled {
				return rec, false, fmt.Errorf("%w: job %s was cancelled (delete it to run it again)", ErrJobCancelled, job.ID)
			}
			if rec.Fingerprint != fp || rec.Total != len(job.Tasks) {
				return rec, false, fmt.Errorf("%w: job %s has %d recorded tasks that differ from the %d given (delete it, or choose another id)", ErrJobMismatch, job.ID, rec.Total, len(job.Tasks))
			}
			return rec, true, nil
		}
		if !isNotFound(err) {
			return rec, false, err
		}
		rec = jobRecord{ID: job.ID, Nonce: nuid.Next(), Total: len(job.Tasks), Fingerprint: fp, MaxAttempts: job.MaxAttempts, Created: time.Now(),
			Reduce: job.Reduce}
		data, _ := json.Marshal(rec)
		if _, err := n.jobs.Create(tctx, job.ID, data); err == nil {
			// A new job starts empty: whatever its subjects and keys hold
			// was written before it existed (a deleted job's leftovers, or
			// a pre-seeded forgery) and is not its own.
			if err := n.jobOp(tctx, ownPurge, job.ID); err != nil {
				return rec, false, err
			}
			return rec, false, nil
		} else if !errors.Is(err, jetstream.ErrKeyExists) {
			return rec, false, err
		}
		// Another submitter created it just now: read theirs.
	}
}

// Open follows a recorded job without submitting anything: its progress,
// its results so far and as they come. It cannot speculate (it has no
// payloads). ErrJobNotFound if no job has that id.
func (n *Node) Open(ctx context.Context, id string) (*Submission, error) {
	id, err := n.jobID(id)
	if err != nil {
		return nil, err
	}
	if err := n.ensure(ctx); err != nil {
		return nil, err
	}
	tctx, cancel := n.timeout(ctx)
	defer cancel()
	e, err := n.jobs.Get(tctx, id)
	if isNotFound(err) || errors.Is(err, jetstream.ErrInvalidKey) {
		return nil, fmt.Errorf("%w: %q", ErrJobNotFound, id)
	}
	if err != nil {
		return nil, err
	}
	var rec jobRecord
	if err := json.Unmarshal(e.Value(), &rec); err != nil {
		return nil, fmt.Errorf("%w: job %s: unreadable record: %v", ErrJetStream, id, err)
	}
	s, err := n.follow(ctx, rec, Job{ID: id}, nil)
	if err != nil {
		return nil, err
	}
	s.Resumed = true
	return s, nil
}

// Delete removes a job: its queued tasks, results, checkpoints, failure
// counts and record; the workers stop its running tasks without recording
// them. (A worker that does not hear the stop, being away from the server,
// may still record a result into a new job of the same id.)
func (n *Node) Delete(ctx context.Context, id string) error { return n.callerJobOp(ctx, ownDelete, id) }

// deleteJob is Delete's work (see cancelJob).
func (n *Node) deleteJob(ctx context.Context, id string) error {
	ctx, cancel := n.timeout(ctx)
	defer cancel()
	if err := n.stream.Purge(ctx, jetstream.WithPurgeSubject(n.opts.stream+".task."+id+".>")); err != nil {
		return err
	}
	n.nc.Publish(n.opts.stream+".cancel."+id, nil) // stop its running tasks
	if err := n.deleteRoutes(ctx, id); err != nil {
		return err
	}
	if err := n.purgeJob(ctx, id); err != nil {
		return err
	}
	return n.jobs.Purge(ctx, id)
}

// purgeJob removes job id's queued tasks, results, checkpoints and failure
// counts.
func (n *Node) purgeJob(ctx context.Context, id string) error {
	if err := n.stream.Purge(ctx, jetstream.WithPurgeSubject(n.opts.stream+".task."+id+".>")); err != nil {
		return err
	}
	for _, b := range []string{"results", "checkpoints", "failures"} {
		bucket := n.opts.stream + "_" + b
		st, err := n.js.Stream(ctx, "KV_"+bucket)
		if err != nil {
			return err
		}
		if err := st.Purge(ctx, jetstream.WithPurgeSubject("$KV."+bucket+"."+id+".>")); err != nil {
			return err
		}
	}
	return nil
}

// Submission follows one job: its results as workers record them, its
// progress, and (for a job submitted here with Speculate) speculative
// copies of its stragglers. Its methods are safe for concurrent use. Stop
// it when done with it.
type Submission struct {
	// ID is the job's id; Resumed says the job was recorded before.
	ID      string
	Resumed bool

	n      *Node
	job    Job
	ids    []string
	index  map[string]int
	nonce  string
	total  int
	hedge  *balance.Hedge
	cancel context.CancelFunc
	// closing is markDone in flight; Stop waits for it, so a submitter
	// that exits after Wait leaves the job recorded as done.
	closing sync.WaitGroup
	done    chan struct{}
	subs    []*nats.Subscription
	stopW   func()

	// routesMu orders markDone's removal of the routes and retryFailed's
	// making them again.
	routesMu sync.Mutex

	mu       sync.Mutex
	retrying bool // retryFailed runs: the routes stay
	// What the Submission keeps of the results: its memory is bounded by
	// the results its caller has not consumed through Next (plus a bit per
	// task), not by the job.
	//   - doneBits: the tasks that have a result, a bit per task index (a
	//     result whose index does not name its task, and every result of
	//     an Opened job, which has no task list, is in doneIDs instead);
	//     ndone counts both.
	//   - queue[head:]: the results Next has not returned, oldest first
	//     (all of them for a caller that only uses Wait or Results);
	//     consumed counts those Next returned, which are the caller's.
	doneBits []uint64
	doneIDs  map[string]bool
	ndone    int
	queue    []Result
	head     int
	consumed int
	// firstFailed is the first failure seen (its output dropped), for
	// Wait's error after Next returned it.
	firstFailed *Result
	started     map[string]startNote
	copied      map[string]bool
	// Counts kept as results arrive, so that Progress is O(1) per result:
	// extra is Σ Result.Reruns over the recorded results, as their
	// records say (discarded holds the tasks with discarded runs, whose
	// records a worker updates).
	succeeded, failed, retries, extra int
	discarded                         map[string]int
	notify                            chan struct{} // closed and replaced on every change
	err                               error         // the watch failed
	finished                          bool
	finishedAt                        time.Time // when finished was set

	tree // tasks spawned by tasks, and the job's reduction (tree.go)
}

// follow starts watching the job's results and workers' start notices,
// and returns once the results recorded so far are loaded.
func (n *Node) follow(ctx context.Context, rec jobRecord, job Job, ids []string) (*Submission, error) {
	bg, cancel := context.WithCancel(context.WithoutCancel(ctx))
	s := &Submission{
		ID: rec.ID, n: n, job: job, ids: ids, nonce: rec.Nonce, total: rec.Total, cancel: cancel, tree: tree{reduce: rec.Reduce},
		done: make(chan struct{}), doneIDs: map[string]bool{}, started: map[string]startNote{},
		copied: map[string]bool{}, notify: make(chan struct{}), discarded: map[string]int{},
		hedge: &balance.Hedge{Delay: job.SpeculateAfter, MinSamples: 3, History: balance.NewHistory(0)},
	}
	if ids != nil {
		s.index = make(map[string]int, len(ids))
		for i, id := range ids {
			s.index[id] = i
		}
		s.doneBits = make([]uint64, (len(ids)+63)/64)
	}
	sub, err := n.nc.Subscribe(n.startedSubject(rec.ID), s.onStarted)
	if err != nil {
		cancel()
		return nil, err
	}
	s.subs = append(s.subs, sub)
	w, err := n.results.Watch(bg, rec.ID+".*")
	if err != nil {
		s.Stop()
		return nil, err
	}
	jw, err := n.jobs.Watch(bg, rec.ID)
	if err != nil {
		w.Stop()
		s.Stop()
		return nil, err
	}
	s.stopW = func() { w.Stop(); jw.Stop() }
	go s.watchRecord(jw)
	loaded := make(chan struct{})
	go s.watch(w, loaded)
	select {
	case <-loaded:
	case <-ctx.Done():
		s.Stop()
		return nil, ctx.Err()
	}
	if job.Speculate && job.Tasks != nil {
		go s.speculate(bg)
	}
	return s, nil
}

// publish sends the tasks that the record does not show as published and
// that have no result, updating the record as it goes.
func (s *Submission) publish(ctx context.Context, rec jobRecord) error {
	n := s.n
	var futures []jetstream.PubAckFuture
	announced := false
	flush := func(upTo int) error {
		// Each publish fails on its own after the default timeout
		// (WithPublishAsyncTimeout in New); the timer also bounds the
		// wait for them all.
		limit := 2 * n.opts.defaultTimeout
		timer := time.NewTimer(limit)
		defer timer.Stop()
		select {
		case <-n.js.PublishAsyncComplete():
		case <-ctx.Done():
			return ctx.Err()
		case <-timer.C:
			return fmt.Errorf("%w: job %s: the server did not acknowledge %d published tasks within %v (overloaded, or its store overwritten by another server?)",
				ErrJetStream, s.ID, len(futures), limit)
		}
		for _, f := range futures {
			select {
			case <-f.Ok():
			case err := <-f.Err():
				task := f.Msg().Header.Get(hdrTask)
				if errors.Is(err, jetstream.ErrAsyncPublishTimeout) {
					return fmt.Errorf("%w: job %s: the server did not acknowledge task %s within %v (overloaded, or its store overwritten by another server?)",
						ErrJetStream, s.ID, task, n.opts.defaultTimeout)
				}
				return fmt.Errorf("%w: publishing task %s of job %s: %w", ErrJetStream, task, s.ID, n.storageFull(err))
			case <-timer.C:
				return fmt.Errorf("%w: job %s: the server did not acknowledge task %s within %v", ErrJetStream, s.ID, f.Msg().Header.Get(hdrTask), limit)
			}
		}
		futures = futures[:0]
		if !announced {
			n.announceRoutes() // the first tasks are in
			announced = true
		}
		if upTo > rec.Published {
			tctx, cancel := n.timeout(ctx)
			defer cancel()
			for {
				cur, rev, err := n.jobRecordOf(tctx, s.ID)
				if err != nil {
					return err
				}
				if cur.Cancelled {
					return fmt.Errorf("%w: job %s", ErrJobCancelled, s.ID)
				}
				cur.Published = max(cur.Published, upTo)
				data, _ := json.Marshal(cur)
				if _, err = n.jobs.Update(tctx, s.ID, data, rev); err == nil {
					rec.Published = cur.Published
					break
				} else if !errors.Is(err, jetstream.ErrKeyExists) {
					return err
				}
			}
		}
		return nil
	}
	for i := rec.Published; i < len(s.job.Tasks); i++ {
		if s.hasResult(s.ids[i]) {
			continue
		}
		f, err := n.js.PublishMsgAsync(s.taskMsg(i, false), jetstream.WithMsgID(s.nonce+"."+s.ids[i]))
		if err != nil {
			return fmt.Errorf("%w: publishing task %s of job %s: %w", ErrJetStream, s.ids[i], s.ID, err)
		}
		futures = append(futures, f)
		if len(futures) == publishBatch {
			if err := flush(i + 1); err != nil {
				return err
			}
		}
	}
	return flush(len(s.job.Tasks))
}

func (s *Submission) taskMsg(i int, copy bool) *nats.Msg {
	t := s.job.Tasks[i]
	m := nats.NewMsg(s.n.routeSubject(taskRoute(s.job, t)))
	m.Header.Set(hdrJob, s.ID)
	m.Header.Set(hdrTask, s.ids[i])
	m.Header.Set(hdrIndex, strconv.Itoa(i))
	if s.job.MaxAttempts > 0 {
		m.Header.Set(hdrAttempts, strconv.Itoa(s.job.MaxAttempts))
	}
	m.Header.Set(hdrMaxLost, strconv.Itoa(s.n.opts.maxLost))
	if s.job.Reduce != "" {
		m.Header.Set(hdrReduce, s.job.Reduce)
	}
	if s.job.RetryDelay > 0 {
		m.Header.Set(hdrRetryDelay, strconv.FormatInt(s.job.RetryDelay.Nanoseconds(), 10))
	}
	if copy {
		m.Header.Set(hdrSpec, "1")
	}
	if s.job.NoSpawn {
		m.Header.Set(hdrNoSpawn, "1")
	}
	if s.job.Speculate {
		m.Header.Set(hdrNotify, "1")
	}
	m.Data = t.Payload
	return m
}

// speculate publishes copies of stragglers once every unfinished task is
// running, until the job is done.
func (s *Submission) speculate(ctx context.Context) {
	t := time.NewTicker(50 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.done:
			return
		case <-t.C:
		}
		for _, i := range s.stragglers() {
			msg := s.taskMsg(i, true)
			pctx, cancel := s.n.timeout(ctx)
			_, err := s.n.js.PublishMsg(pctx, msg, jetstream.WithMsgID(s.nonce+"."+s.ids[i]+".copy"))
			cancel()
			if err != nil {
				s.n.opts.onError(fmt.Errorf("cluster: publishing a copy of task %s: %w", s.ids[i], err))
			}
		}
	}
}

// stragglers picks the tasks to copy now, and marks them copied.
func (s *Submission) stragglers() []int {
	s.mu.Lock()
	defer s.mu.Unlock()
	pending := s.total - s.ndone
	if pending == 0 || len(s.started) < pending {
		return nil // some tasks still wait in the queue: no spare capacity
	}
	thr, ok := s.hedge.Threshold()
	if !ok {
		return nil
	}
	now := time.Now()
	var picked []int
	for id, st := range s.started {
		if !s.copied[id] && now.Sub(st.Start) > thr {
			s.copied[id] = true
			picked = append(picked, s.index[id])
		}
	}
	slices.Sort(picked)
	return picked
}

// growing adds to p what a tree has that no counted result lists yet:
// the children its running tasks report handed over, and the results of
// children whose parent's result is not in yet (orphans) with the
// children they list. An unfinished job has at least one task without a
// result. Called with s.mu held.
func (s *Submission) growing(p *Progress) {
	live := 0
	for _, st := range s.started {
		live += st.handed
	}
	live += s.orphanSpawned
	p.Succeeded += s.orphanOK
	p.Failed += s.orphanFailed
	p.Total += live
	p.Spawned += live
	p.Total = max(p.Total, p.Done()+p.Running, p.Done()+1)
}

// Stop stops following the job; the job itself goes on in the cluster, and
// Open or a new Submit of it picks it up. It first waits for the record of
// a finished job to say "done", so a submitter that exits right after Wait
// leaves the job listed as done.
func (s *Submission) Stop() {
	s.closing.Wait()
	s.cancel()
	for _, sub := range s.subs {
		sub.Unsubscribe()
	}
	if s.stopW != nil {
		s.stopW()
	}
}
