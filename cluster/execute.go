package cluster

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Acks of a task message (JetStream's ack protocol on its reply subject).
var (
	ackAck      = []byte("+ACK")
	ackNak      = []byte("-NAK")
	ackProgress = []byte("+WPI")
	ackTerm     = []byte("+TERM")
)

// settleMsg sends an ack of kind to the server for m. A worker of a
// server with a recorder sends it through the recorder, which checks that
// this worker holds the delivery (a worker's credential may not publish
// acks itself: the server would take one for any delivery).
func (n *Node) settleMsg(m *nats.Msg, kind []byte) error {
	if n.viaRecorder() {
		a := nats.NewMsg(n.recSubject(recAck))
		a.Header.Set(hdrAck, m.Reply)
		a.Data = kind
		return n.nc.PublishMsg(a)
	}
	return n.nc.Publish(m.Reply, kind)
}

// nakDelay hands m back to be delivered again after d.
func (n *Node) nakDelay(m *nats.Msg, d time.Duration) error {
	return n.settleMsg(m, fmt.Appendf(nil, `-NAK {"delay":%d}`, d.Nanoseconds()))
}

// delivery is one delivery of a task message to this worker, as the state
// machine of the package doc sees it.
type delivery struct {
	msg         *nats.Msg
	job, task   string
	key         string // the result key, <job>.<task>
	index       int
	handler     string
	spec        bool
	delivered   int // the server's delivery count, from 1
	maxAttempts int
	maxLost     int
	parent      string        // the task whose result lists this one (a handed-over child)
	seen        failureRecord // the handler's failures before this delivery
	// checkpointed: the handler saved a checkpoint, to drop once recorded.
	checkpointed bool
}

func (s *serving) parse(msg *nats.Msg) delivery {
	h := msg.Header
	d := delivery{msg: msg, job: h.Get(hdrJob), task: h.Get(hdrTask), spec: h.Get(hdrSpec) != "",
		handler: handlerOf(msg.Subject), delivered: 1, maxAttempts: defaultAttempts}
	d.index, _ = strconv.Atoi(h.Get(hdrIndex))
	d.parent = h.Get(hdrParent)
	d.key = resultKey(d.job, d.task)
	if md, err := msg.Metadata(); err == nil {
		d.delivered = int(md.NumDelivered)
	}
	if a, err := strconv.Atoi(h.Get(hdrAttempts)); err == nil && a > 0 {
		d.maxAttempts = a
	}
	d.maxLost = s.n.opts.maxLost
	if l, err := strconv.Atoi(h.Get(hdrMaxLost)); err == nil && l > 0 {
		d.maxLost = l
	}
	return d
}

// lost is the number of earlier deliveries that ended without an outcome
// from the handler: deliveries that were not failures.
func (d delivery) lost() int { return max(0, d.delivered-1-d.seen.Failures) }

// attempt is the attempt this delivery makes: failures so far + 1.
func (d delivery) attempt() int { return d.seen.Failures + 1 }

func (d delivery) result(worker string) Result {
	return Result{Job: d.job, Task: d.task, Index: d.index, Handler: d.handler, Worker: worker,
		Attempt: d.attempt(), Deliveries: d.delivered, Speculative: d.spec, Parent: d.parent}
}

// execute runs one delivered task and settles its message, following the
// state machine of the package doc: a success or a last failure is
// recorded and acked; a failure with attempts left is counted and nak'ed
// with the job's retry delay; a stopping worker naks at once, uncounted; a
// task whose deliveries ended without an outcome too often is recorded as
// poison.
//
// free gives the task's slot back (see serving.settling); it may be called
// before execute returns.
func (s *serving) execute(ctx context.Context, msg *nats.Msg, free func()) {
	n := s.n
	defer s.hold(msg)()
	d := s.parse(msg)
	if d.job == "" || d.task == "" {
		n.settleMsg(msg, ackTerm) // not ours: no job to record it under
		return
	}
	// While the worker holds the task, the server hears from it every
	// heartbeat: during the handler and until the outcome is recorded; and
	// once the handler runs, the submitter hears that it does.
	var notice startNotice
	hb := newHeartbeat(n.heartbeat, func() {
		if err := n.settleMsg(msg, ackProgress); err != nil {
			n.opts.onError(fmt.Errorf("cluster: heartbeat of task %s: %w", d.key, err))
		}
		if b := notice.get(); b != nil {
			n.nc.Publish(n.startedSubject(d.job), b)
		}
	})
	defer hb.stop()
	if hf, ok := s.admit(&d); ok {
		s.run(ctx, d, hf, &notice, free)
	}
}

// startNotice is a running task's report to its submitter, "task \t
// attempt \t start-unix-ns \t worker", set when its handler starts.
type startNotice struct {
	mu sync.Mutex
	b  []byte
}

func (sn *startNotice) set(b []byte) { sn.mu.Lock(); sn.b = b; sn.mu.Unlock() }

func (sn *startNotice) get() []byte { sn.mu.Lock(); defer sn.mu.Unlock(); return sn.b }

// admit decides whether a delivery runs: not if its result is in, if it
// is a poison task, if its attempts are spent, or if this worker lacks its
// handler; those are settled here. It fills in d.seen.
func (s *serving) admit(d *delivery) (Handler, bool) {
	n := s.n
	// A handed-over child may be published again by its parent's re-run
	// after JetStream's de-duplication window: its result may be in.
	if d.delivered > 1 || d.spec || d.parent != "" {
		if d.delivered > 1 {
			n.redelivered.Add(1)
		}
		if n.hasResult(d) {
			n.duplicates.Add(1) // the result is in: this copy has nothing to do
			n.settleMsg(d.msg, ackAck)
			return nil, false
		}
	}
	if d.delivered > 1 {
		f, err := n.heldFailures(s.settleCtx, d)
		if err != nil {
			n.opts.onError(fmt.Errorf("cluster: reading the failures of %s: %w", d.key, err))
			n.nakDelay(d.msg, time.Second)
			return nil, false
		}
		d.seen = f
	}
	res := d.result(n.opts.name)
	switch {
	case d.lost() >= d.maxLost:
		res.Error = fmt.Sprintf("%v: %d of its %d deliveries ended without an outcome", errMaxDeliveries, d.lost(), d.delivered)
		res.Failure = FailurePoison
		s.settle(*d, res)
		return nil, false
	case d.attempt() > d.maxAttempts:
		// Its last failure was counted but not recorded (the worker died
		// between the two): record it now.
		res.Attempt = d.maxAttempts
		res.Error, res.Failure = d.seen.Error, FailureError
		s.settle(*d, res)
		return nil, false
	}
	hf, ok := s.handlers[d.handler]
	if !ok {
		if d.lost()+1 >= d.maxLost {
			res.Error = fmt.Sprintf("%v %q: no worker that received the task has it", ErrUnknownHandler, d.handler)
			res.Failure = FailureUnknownHandler
			s.settle(*d, res)
			return nil, false
		}
		n.nakDelay(d.msg, time.Second) // another worker may have it
		return nil, false
	}
	return hf, true
}

// run runs the handler of an admitted delivery and settles the outcome,
// freeing the slot (free) as soon as the handler is done.
func (s *serving) run(ctx context.Context, d delivery, hf Handler, notice *startNotice, free func()) {
	n, msg := s.n, d.msg
	res := d.result(n.opts.name)
	r := &running{node: n, key: d.key, pool: s.pool, delivered: d.delivered, info: TaskInfo{Job: d.job, Task: d.task, Index: d.index, Attempt: d.attempt(), Speculative: d.spec, Worker: n.opts.name},
		s: s, msg: msg}
	tctx, cancel := context.WithCancelCause(context.WithValue(context.WithoutCancel(ctx), taskCtxKey{}, r))
	r.cancel, r.ctx = cancel, tctx
	defer cancel(nil)
	if !s.track(d.key, r) {
		n.settleMsg(msg, ackNak) // stopping: handed back, not an attempt
		return
	}

	// The submitter hears of the start at once when it wants to (to
	// speculate), else with the heartbeats: short tasks cost no notice.
	res.Start = time.Now()
	notice.set([]byte(d.task + "\t" + strconv.Itoa(d.attempt()) + "\t" + strconv.FormatInt(res.Start.UnixNano(), 10) + "\t" + n.opts.name))
	if msg.Header.Get(hdrNotify) != "" {
		n.nc.Publish(n.startedSubject(d.job), notice.get())
	}
	s.meter.start(r, res.Start, msg, d.delivered == 1 && !d.spec)
	out, err := call(tctx, hf, msg.Data)
	if nd := r.treeNodeIfAny(); nd != nil { // it spawned: its local subtree runs to the end
		out, res.Value, res.Spawned, err = nd.unit.wait(nd, out, err)
		res.Reran = nd.unit.reran
	}
	res.Runtime = time.Since(res.Start)
	s.untrack(d.key, r)
	s.meter.finish(r, res.Runtime, err != nil)
	d.checkpointed = r.checkpointed
	n.executed.Add(1)

	switch cause := context.Cause(tctx); {
	case errors.Is(cause, errStopping):
		n.settleMsg(msg, ackNak) // back to the queue for another worker, at once, uncounted
		return
	case errors.Is(cause, errJobCancelled):
		n.settleMsg(msg, ackTerm) // the job is gone: nothing to record
		return
	case errors.Is(cause, errSuperseded):
		n.duplicates.Add(1)
		n.settleMsg(msg, ackAck)
		return
	}
	s.settling <- struct{}{}
	defer func() { <-s.settling }()
	free()
	res.Output = out
	if err != nil {
		res.Error, res.Failure = err.Error(), FailureError
		var p *panicError
		switch {
		case isPermanent(err):
			res.Failure = FailurePermanent
		case errors.As(err, &p):
			res.Failure, res.Stack = FailurePanic, p.stack
		}
		if res.Failure != FailurePermanent && d.attempt() < d.maxAttempts {
			s.retry(d, res.Error)
			return
		}
	}
	s.settle(d, res)
}

// track lists r as running under key, unless the worker is stopping.
func (s *serving) track(key string, r *running) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stop.Load() {
		return false
	}
	s.running[key] = append(s.running[key], r)
	s.busy.Add(1)
	return true
}

func (s *serving) untrack(key string, r *running) {
	s.busy.Add(-1)
	s.mu.Lock()
	defer s.mu.Unlock()
	rs := slices.DeleteFunc(s.running[key], func(x *running) bool { return x == r })
	if len(rs) == 0 {
		delete(s.running, key)
	} else {
		s.running[key] = rs
	}
}

// retry counts a failed attempt and hands the task back for the next one
// after the job's retry delay. If the count cannot be written (the server
// is gone for longer than the worker serves), the message is left to be
// redelivered after the ack wait, and the failure is not counted: the
// attempt is made again.
func (s *serving) retry(d delivery, errText string) {
	n := s.n
	k, err := n.addFailure(s.settleCtx, d, errText)
	if err != nil {
		n.opts.onError(fmt.Errorf("cluster: counting a failure of %s: %w", d.key, err))
		return
	}
	n.nakDelay(d.msg, n.retryDelay(d.msg.Header, k))
}

// heartbeat calls beat every interval until stopped, from a timer: no
// goroutine for tasks shorter than one interval.
type heartbeat struct {
	mu      sync.Mutex
	t       *time.Timer
	stopped bool
}

func newHeartbeat(every time.Duration, beat func()) *heartbeat {
	h := &heartbeat{}
	//lint:ignore S1021 tick refers to itself (it reschedules itself)
	var tick func()
	tick = func() {
		beat()
		h.mu.Lock()
		if !h.stopped {
			h.t.Reset(every)
		}
		h.mu.Unlock()
	}
	h.mu.Lock()
	h.t = time.AfterFunc(every, tick)
	h.mu.Unlock()
	return h
}

func (h *heartbeat) stop() {
	h.mu.Lock()
	h.stopped = true
	h.t.Stop()
	h.mu.Unlock()
}

// settle records res (unless a result exists) and acks the message. The
// write is retried while the worker serves (the heartbeats keep the task
// ours meanwhile); if it cannot be made, the message is left to be
// redelivered.
func (s *serving) settle(d delivery, res Result) {
	n := s.n
	recorded, err := n.record(s.settleCtx, d, res)
	if err != nil {
		n.opts.onError(fmt.Errorf("cluster: recording result of %s: %w", d.key, err))
		return
	}
	if recorded {
		n.recorded.Add(1)
		s.meter.recorded(res)
	} else {
		n.duplicates.Add(1)
		if res.Runtime > 0 { // it ran: the record counts it (Result.Discarded)
			if err := n.addDiscarded(s.settleCtx, d); err != nil {
				n.opts.onError(fmt.Errorf("cluster: counting a discarded run of %s: %w", d.key, err))
			}
		}
	}
	if recorded && n.viaRecorder() {
		// The recorder acked it (see Record).
	} else if err := n.settleMsg(d.msg, ackAck); err != nil {
		n.opts.onError(fmt.Errorf("cluster: ack of %s: %w", d.key, err))
	}
	if n.viaRecorder() {
		return // the recorder purges the checkpoints it saved with the result
	}
	if len(res.Spawned) > 0 && recorded { // its list of handed-over children (spawn.go) is done with
		ctx, cancel := context.WithTimeout(s.settleCtx, n.opts.defaultTimeout)
		n.checkpoints.Purge(ctx, resultKey(d.job, d.task)+handedSuffix)
		cancel()
	}
	if d.delivered > 1 || d.spec || d.checkpointed {
		ctx, cancel := context.WithTimeout(s.settleCtx, n.opts.defaultTimeout)
		defer cancel()
		n.checkpoints.Purge(ctx, d.key)
		if d.seen.Failures > 0 { // without a recorder: the worker purges them
			n.failuresKV.Purge(ctx, d.key)
		}
	}
}

// handlerOf returns the handler named by a task subject,
// "<stream>.task.<job>.<handler>.<requirements>" (see route).
func handlerOf(subject string) string {
	// The job may be one token or two ("<owner>.<id>", see WithOwner):
	// the handler is the last token but one.
	f := strings.Split(subject, ".")
	if len(f) < 5 {
		return ""
	}
	return f[len(f)-2]
}

// call runs a handler, turning a panic into an error (a *panicError).
func call(ctx context.Context, h Handler, payload []byte) (out []byte, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = &panicError{value: p, stack: string(debug.Stack())}
		}
	}()
	return h(ctx, payload)
}

// panicError is a handler's panic: its message is the panic's value, and
// the stack goes to Result.Stack, apart from it.
type panicError struct {
	value any
	stack string
}

func (p *panicError) Error() string { return fmt.Sprintf("cluster: handler panicked: %v", p.value) }

// addDiscarded counts, in the result recorded under key, a run of the task
// whose own result was discarded (see addDiscardedDirect); a worker of a
// server with a recorder asks the recorder, for the delivery d holds.
func (n *Node) addDiscarded(ctx context.Context, d delivery) error {
	if n.viaRecorder() {
		_, _, err := n.askRecorder(ctx, recDiscarded, d.msg.Reply, map[string]string{hdrDelivered: strconv.Itoa(d.delivered)}, nil)
		return err
	}
	return n.addDiscardedDirect(ctx, d.key, d.delivered)
}

// addDiscardedDirect counts, in the result recorded under key, a run of the task
// whose own result was discarded: one the record's delivery count does not
// cover already (a delivery from delivered on; an earlier one is counted
// in Deliveries). The record is updated with a compare-and-set on its
// revision, retried on a concurrent update; its outcome is not touched.
// This is the one count of extra runs that Progress, job status and job
// results read.
func (n *Node) addDiscardedDirect(ctx context.Context, key string, delivered int) error {
	for tries := 1; ; tries++ {
		tctx, cancel := n.timeout(ctx)
		e, err := n.results.Get(tctx, key)
		if err == nil {
			var r Result
			if err = decodeResult(e.Value(), &r); err != nil {
				cancel()
				return err
			}
			if delivered < r.Deliveries {
				cancel()
				return nil // counted in Deliveries
			}
			r.Discarded++
			_, err = n.results.Update(tctx, key, appendResult(nil, r), e.Revision())
		}
		cancel()
		if err == nil || isNotFound(err) {
			return nil // no record any more: the job was deleted
		}
		if tries >= 20 || !sleepCtx(ctx, backoffDelay(tries)) {
			return err
		}
	}
}

// hasResult says a result is recorded for delivery d's task. On doubt
// (the server does not answer, the recorder refuses), it says no: running
// the task again is safe.
func (n *Node) hasResult(d *delivery) bool {
	ctx, cancel := context.WithTimeout(context.Background(), n.opts.defaultTimeout)
	defer cancel()
	_, ok, err := n.readHeld(ctx, d.msg, readResult, n.results, d.key)
	return err == nil && ok
}

// record writes res, the outcome of delivery d, unless a result is
// there: the one write that makes result recording exactly-once. It
// returns false, nil for a duplicate. Transient errors (a leader election
// in a JetStream cluster) are retried until ctx is done; a create that
// timed out but was applied shows up as a duplicate on retry, which is
// still one record. A worker of a server with a recorder asks the
// recorder to write it (see Record), which checks d first.
func (n *Node) record(ctx context.Context, d delivery, res Result) (bool, error) {
	data := appendResult(nil, res)
	if limit := n.nc.MaxPayload() - 1024; int64(len(data)) > limit {
		res.Output, res.Stack = nil, ""
		res.Error = fmt.Sprintf("cluster: result of %d bytes is over the server's limit of %d", len(data), limit)
		res.Failure = FailureError
		data = appendResult(nil, res)
	}
	if n.viaRecorder() {
		st, err := n.recordViaRecorder(ctx, d.msg.Reply, data)
		if err != nil {
			return false, err
		}
		return st == recOK, nil
	}
	for tries := 1; ; tries++ {
		ok, err := n.writeResult(ctx, d.key, data)
		if err == nil {
			return ok, nil
		}
		if !sleepCtx(ctx, backoffDelay(tries)) {
			return false, err
		}
	}
}

// writeResult creates key with data: true if written now (or by an
// earlier try whose answer was lost: the key holds the same bytes), false
// if another result is there.
func (n *Node) writeResult(ctx context.Context, key string, data []byte) (bool, error) {
	_, err := n.results.Create(ctx, key, data)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, jetstream.ErrKeyExists):
		// The key may hold our own write from a try that failed
		// (applied, but its answer lost): that is still our record.
		if e, gerr := n.results.Get(ctx, key); gerr == nil && bytes.Equal(e.Value(), data) {
			return true, nil
		}
		return false, nil
	}
	return false, err
}
