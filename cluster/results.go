package cluster

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Progress is a job's state as its Submission sees it.
//
// While a tree grows, its counts run ahead of the results that count
// (Wait, Next): Total and Spawned add the children that running tasks
// report handed over so far (their workers' notices, every second) and
// those listed by children whose parent's result is not in yet, and
// Succeeded and Failed count those children's results. So a tree's total
// grows as it is handed over, and an unfinished job always has at least
// one task without a result (Total > Done). Once the job is done the
// counts are the counted results'.
type Progress struct {
	Total     int
	Succeeded int
	Failed    int
	// Running is the number of unfinished tasks that workers report
	// running: a worker reports a task at every heartbeat and every
	// second (and at its start when the job speculates), and a task
	// not reported for three of those is no longer counted (its worker
	// was lost).
	Running int
	// Longest is the task that has run longest of those, if any: a hung
	// task shows here.
	Longest RunningTask
	// Copies is the number of speculative copies published.
	Copies int
	// Retries is the number of attempts after a failure, summed over the
	// recorded results; Reruns the runs beyond those (Result.Reruns: a
	// worker died, stopped or lost the server and the task ran again, or a
	// run's result was discarded), as the records say: the same counts as
	// worksteal job status and job results. Retries + Reruns is the
	// executions beyond one per task. (A worker's Redelivered counter
	// is something else: the deliveries it received again.)
	Retries, Reruns int
	// Spawned is the number of children handed over between workers,
	// each a task with a result of its own (Total includes them): while
	// the job runs, as far as the workers' notices and the results so far
	// tell; once it is done, those the results list. Children run by their
	// parent's worker are inside their parent's result (see Spawn).
	Spawned int
	// Workers is the number of tasks each worker reports running (those
	// counted in Running), by worker name.
	Workers map[string]int
}

// RunningTask is a task a worker reports running.
type RunningTask struct {
	Task    string
	Worker  string
	Attempt int
	Start   time.Time
}

// Done is Succeeded + Failed.
func (p Progress) Done() int { return p.Succeeded + p.Failed }

// watch feeds the results bucket's updates into s until stopped.
func (s *Submission) watch(w jetstream.KeyWatcher, loaded chan struct{}) {
	for e := range w.Updates() {
		if e == nil {
			if loaded != nil {
				close(loaded)
				loaded = nil
			}
			continue
		}
		if e.Operation() != jetstream.KeyValuePut {
			continue
		}
		var r Result
		if decodeResult(e.Value(), &r) != nil {
			continue
		}
		s.add(r)
	}
	s.mu.Lock()
	if !s.finished && s.err == nil {
		s.err = fmt.Errorf("%w: the watch of job %s's results ended", ErrJetStream, s.ID)
	}
	s.changed()
	s.mu.Unlock()
	if loaded != nil {
		close(loaded)
	}
}

// watchRecord ends the Submission with ErrJobCancelled when the job's
// record says it was cancelled.
func (s *Submission) watchRecord(w jetstream.KeyWatcher) {
	for e := range w.Updates() {
		if e == nil || e.Operation() != jetstream.KeyValuePut {
			continue
		}
		var rec jobRecord
		if json.Unmarshal(e.Value(), &rec) == nil && rec.Cancelled {
			s.mu.Lock()
			if s.err == nil && !s.finished {
				s.err = fmt.Errorf("%w: job %s", ErrJobCancelled, s.ID)
				s.changed()
			}
			s.mu.Unlock()
			return
		}
	}
}

// add takes one recorded result.
func (s *Submission) add(r Result) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.addLocked(r)
}

// addLocked is add with s.mu held.
func (s *Submission) addLocked(r Result) {
	if s.isDone(r.Task) {
		// The record again, updated: a discarded run was added.
		if old := s.discarded[r.Task]; r.Discarded > old {
			s.extra += r.Discarded - old
			s.discarded[r.Task] = r.Discarded
			s.changed()
		}
		return
	}
	if !s.inTree(r) {
		return // not (yet) listed by its parent's recorded result
	}
	s.mark(r)
	s.queue = append(s.queue, r)
	delete(s.started, r.Task)
	if r.OK() {
		s.succeeded++
		s.hedge.History.Observe(r.Runtime)
	} else {
		s.failed++
		if s.firstFailed == nil {
			f := r
			f.Output = nil
			s.firstFailed = &f
		}
	}
	s.retries += max(0, r.Attempt-1)
	s.extra += r.Reruns()
	if r.Discarded > 0 {
		s.discarded[r.Task] = r.Discarded
	}
	s.grow(r)
	if s.copied[r.Task] {
		// The race is decided: stop the other copy.
		s.n.nc.Publish(s.n.cancelSubject(s.ID, r.Task), nil)
	}
	if s.ndone == s.total && !s.finished {
		s.finished, s.finishedAt = true, time.Now()
		close(s.done)
		s.closing.Go(s.markDone)
	}
	s.changed()
}

// bit returns the done bit of r's task, or false if r's index does not
// name its task. Called with s.mu held.
func (s *Submission) bit(r Result) (word int, mask uint64, ok bool) {
	if r.Index < 0 || r.Index >= len(s.ids) || s.ids[r.Index] != r.Task {
		return 0, 0, false
	}
	return r.Index / 64, 1 << (r.Index % 64), true
}

// mark notes that r's task has a result, and says false if it had one.
// Called with s.mu held.
func (s *Submission) mark(r Result) bool {
	if w, m, ok := s.bit(r); ok {
		if s.doneBits[w]&m != 0 {
			return false
		}
		s.doneBits[w] |= m
	} else {
		if s.doneIDs[r.Task] {
			return false
		}
		s.doneIDs[r.Task] = true
	}
	s.ndone++
	return true
}

// unmark forgets r's result (retryFailed). Called with s.mu held.
func (s *Submission) unmark(r Result) {
	if w, m, ok := s.bit(r); ok && s.doneBits[w]&m != 0 {
		s.doneBits[w] &^= m
		s.ndone--
	} else if s.doneIDs[r.Task] {
		delete(s.doneIDs, r.Task)
		s.ndone--
	}
}

// isDone says task has a result. Called with s.mu held.
func (s *Submission) isDone(task string) bool {
	if i, ok := s.index[task]; ok && s.doneBits[i/64]&(1<<(i%64)) != 0 {
		return true
	}
	return s.doneIDs[task]
}

// changed wakes the waiters of Next. Called with s.mu held.
func (s *Submission) changed() {
	close(s.notify)
	s.notify = make(chan struct{})
}

// markDone notes in the job record that every task has a result, and
// removes the job's routes (and any speculative copy still queued).
func (s *Submission) markDone() {
	s.setDone(true)
	if s.n.opts.role.binds() {
		return // an observer following the job may not remove anything
	}
	s.routesMu.Lock()
	defer s.routesMu.Unlock()
	s.mu.Lock()
	over := s.finished && !s.retrying
	s.mu.Unlock()
	if !over {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), s.n.opts.defaultTimeout)
	defer cancel()
	if err := s.n.jobOp(ctx, ownEnd, s.ID); err != nil {
		s.n.opts.onError(fmt.Errorf("cluster: removing the routes of finished job %s: %w", s.ID, err))
	}
}

// setDone sets the record's Done flag. The record is updated with a
// compare-and-set on its revision; a concurrent writer (another follower
// publishing or resuming) makes it read the record again and retry.
func (s *Submission) setDone(done bool) {
	ctx, cancel := context.WithTimeout(context.Background(), s.n.opts.defaultTimeout)
	defer cancel()
	for ctx.Err() == nil {
		e, err := s.n.jobs.Get(ctx, s.ID)
		if err != nil {
			return
		}
		var rec jobRecord
		if json.Unmarshal(e.Value(), &rec) != nil || rec.Done == done {
			return
		}
		rec.Done = done
		if done {
			s.mu.Lock()
			rec.Ended = s.finishedAt
			s.mu.Unlock()
		} else {
			rec.Ended = time.Time{}
		}
		data, _ := json.Marshal(rec)
		if _, err := s.n.jobs.Update(ctx, s.ID, data, e.Revision()); err == nil {
			return
		}
	}
}

// startNote is a worker's latest report of a running task.
type startNote struct {
	RunningTask
	seen   time.Time // when it was last reported
	handed int       // the children it has handed over so far
}

// onStarted takes a worker's notice that it started (or still runs) tasks:
// one line per task, "task \t attempt \t start-unix-ns \t worker", and
// in the notices of noticeEvery "\t handed", the children the task has
// handed over so far.
func (s *Submission) onStarted(m *nats.Msg) {
	now := time.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	for line := range strings.SplitSeq(string(m.Data), "\n") {
		f := strings.Split(line, "\t")
		if len(f) < 4 {
			continue
		}
		ns, err := strconv.ParseInt(f[2], 10, 64)
		if err != nil || s.isDone(f[0]) {
			continue
		}
		attempt, _ := strconv.Atoi(f[1])
		note := startNote{RunningTask{Task: f[0], Worker: f[3], Attempt: attempt, Start: time.Unix(0, ns)}, now, 0}
		if len(f) > 4 {
			note.handed, _ = strconv.Atoi(f[4])
		}
		if old, ok := s.started[f[0]]; ok && old.Start.Equal(note.Start) && old.Worker == note.Worker {
			note.handed = max(note.handed, old.handed) // the same run: its count only grows
		}
		s.started[f[0]] = note
	}
}

// expireStarted forgets the tasks whose workers stopped reporting them:
// not reported for three of the workers' reports (heartbeats or notices,
// whichever come more often).
// Called with s.mu held.
func (s *Submission) expireStarted(now time.Time) {
	limit := 3 * min(s.n.heartbeat, noticeEvery)
	if limit <= 0 {
		return
	}
	for id, st := range s.started {
		if now.Sub(st.seen) > limit {
			delete(s.started, id)
		}
	}
}

func (s *Submission) hasResult(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.isDone(id)
}

// Progress returns the job's progress. Its cost does not grow with the
// results (it scans the tasks reported running).
func (s *Submission) Progress() Progress {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := time.Now()
	s.expireStarted(now)
	p := Progress{Total: s.total, Succeeded: s.succeeded, Failed: s.failed, Running: len(s.started),
		Copies: len(s.copied), Retries: s.retries, Reruns: s.extra, Spawned: s.spawned}
	for _, st := range s.started {
		if p.Longest.Task == "" || st.Start.Before(p.Longest.Start) {
			p.Longest = st.RunningTask
		}
		if p.Workers == nil {
			p.Workers = map[string]int{}
		}
		p.Workers[st.Worker]++
	}
	if !s.finished {
		s.growing(&p)
	}
	return p
}

// Next returns the next result not yet returned, in the order they were
// recorded (the results recorded before a resume come first), waiting for
// one if need be. After the last, it returns ErrNoMoreResults.
//
// A result Next returns is the caller's: the Submission keeps no copy, so
// its memory stays bounded by the results not consumed yet, however large
// the job. Hence, once Next has been called, Results and Wait return only
// the results Next has not returned yet.
func (s *Submission) Next(ctx context.Context) (Result, error) {
	for {
		s.mu.Lock()
		if s.head < len(s.queue) {
			r := s.queue[s.head]
			s.queue[s.head] = Result{} // the output is the caller's now
			s.head++
			s.consumed++
			s.compact()
			s.mu.Unlock()
			return r, nil
		}
		if s.consumed == s.total {
			s.mu.Unlock()
			return Result{}, ErrNoMoreResults
		}
		if s.err != nil {
			err := s.err
			s.mu.Unlock()
			return Result{}, err
		}
		ch := s.notify
		s.mu.Unlock()
		select {
		case <-ctx.Done():
			return Result{}, ctx.Err()
		case <-ch:
		}
	}
}

// compact drops the consumed part of the queue once it is most of it,
// and gives back an array grown for a burst. Called with s.mu held.
func (s *Submission) compact() {
	if s.head < 64 || 2*s.head < len(s.queue) {
		return
	}
	n := len(s.queue) - s.head
	if cap(s.queue) > 4*n+64 {
		s.queue = append(make([]Result, 0, 2*n+16), s.queue[s.head:]...)
	} else {
		copy(s.queue, s.queue[s.head:])
		clear(s.queue[n:])
		s.queue = s.queue[:n]
	}
	s.head = 0
}

// Done is closed when every task has a result.
func (s *Submission) Done() <-chan struct{} { return s.done }

// Wait waits until every task has a result and returns them all, in task
// order (after Next, those Next has not returned). If some tasks failed,
// it returns the results with an error wrapping ErrTasksFailed that says
// how many failed and which first: a caller that only checks the error
// does not miss a failure.
func (s *Submission) Wait(ctx context.Context) ([]Result, error) {
	for {
		s.mu.Lock()
		finished, err, ch := s.finished, s.err, s.notify
		s.mu.Unlock()
		if finished {
			rs := s.Results()
			s.mu.Lock()
			err := failedError(s.ID, s.failed, s.total, s.firstFailed)
			s.mu.Unlock()
			return rs, err
		}
		if err != nil {
			return nil, err
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-ch:
		}
	}
}

// failedError is Wait's error for a job of total tasks of which failed
// failed, first the first seen: nil if none failed.
func failedError(job string, failed, total int, first *Result) error {
	if failed == 0 {
		return nil
	}
	which := ""
	if first != nil {
		which = fmt.Sprintf(" (task %s: %s: %s)", first.Task, first.Failure, first.Error)
	}
	return fmt.Errorf("%w: job %s: %d of %d tasks failed%s", ErrTasksFailed, job, failed, total, which)
}

// Results returns the results recorded so far, in task order; once Next
// has been called, those it has not returned.
func (s *Submission) Results() []Result {
	s.mu.Lock()
	rs := slices.Clone(s.queue[s.head:])
	s.mu.Unlock()
	slices.SortFunc(rs, func(a, b Result) int { return cmp.Or(cmp.Compare(a.Index, b.Index), cmp.Compare(a.Task, b.Task)) })
	return rs
}
