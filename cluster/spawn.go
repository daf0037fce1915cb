package cluster

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nuid"
)

// Tasks that spawn tasks (see the package doc, "Trees"): a delivered task
// is a unit; the children its handler spawns, and theirs, run on this
// worker (the unit's local subtree) unless they are handed over to an
// idle worker, spilled, as tasks of their own.
//
// Invariants (who owns what):
//   - A node is in at most one place: the worker's local queue (pending),
//     a runner (running), or the stream (spilled). The queue's mutex
//     decides: a runner and a spill both take a node out of the queue
//     under it, so a node is run locally or spilled, never both.
//   - unit.open counts the unit's nodes not finished: its root until its
//     handler returns, each local child until its handler returns, each
//     child being spilled until its message is stored. The unit's result
//     is written only once open is 0, so a spilled child is in the stream
//     (and listed in unit.spilled) before the result that lists it is
//     recorded: the quiescence argument of the package doc rests on this.
//   - Runners are started under the queue's mutex and stop under it when
//     they find the queue empty, so a node pushed while the last runner
//     stops is never left without one (no lost wake-up).

// Headers of a spilled child's message, besides the unit's (copied).
const (
	hdrParent = "Ws-Parent" // the task whose result lists this one
	hdrReduce = "Ws-Reduce" // the job's reduction
)

// ErrNotInTask: Spawn, ReduceValue or SpawnEnv was called with a ctx that
// is not a handler's.
var ErrNotInTask = errors.New("cluster: not called from a running task's handler")

// ErrUnknownReduce: a job names a reduction that is neither built in nor
// registered (Node.Reduce) on this node.
var ErrUnknownReduce = errors.New("cluster: unknown reduce")

// ErrReduce: a value could not be combined (a number that is not one).
var ErrReduce = errors.New("cluster: reduce")

// treeNode is one task of a tree on this worker: a unit's root or a
// child kept local.
type treeNode struct {
	unit    *treeUnit
	id      string // task id: the unit's for the root, "<parent>=<index>" for a child
	handler string
	payload []byte
	next    atomic.Int64 // the index of its next child

	value    []byte // set by ReduceValue (the node's own goroutine)
	valueSet bool

	// Continuations (continuation.go), under the unit's mu: parent and
	// index place a local child; pending counts its own handler and its
	// children not yet complete; then is its continuation, contOf the
	// node a continuation completes; results are its children's outputs.
	parent  *treeNode
	index   int
	pending int
	output  []byte
	then    *treeNode
	hasThen bool // then was set (it stays true once then is queued)
	contOf  *treeNode
	results [][]byte
}

// treeUnit is a delivered task whose handler spawned: its local subtree.
type treeUnit struct {
	s      *serving
	ctx    context.Context // the root's ctx: cancelled when the task stops
	cancel context.CancelCauseFunc
	msg    *nats.Msg
	job    string
	task   string
	red    reducer
	// spillable: its children may be handed over (they use the unit's own
	// route, whose consumer lives as long as the job).
	handler string

	// handed: the children an earlier run of this task handed over (its
	// checkpoint, loaded when the task is delivered again): they are
	// published again under the same ids instead of run here.
	handed map[string]bool

	// started counts the local children whose handlers started here; a
	// watcher hears it with the held list (failover.go), and if this run
	// is lost, the next run's result counts them as run again (reran,
	// loaded from the checkpoint the watcher wrote).
	started atomic.Int64
	reran   int

	mu      sync.Mutex
	open    int
	rootOut []byte // the root's continuation's output, if it has one
	fold    fold
	err     error
	spilled []string
	done    chan struct{}
}

// treeNode returns the tree state of r's task, making it on first use.
func (r *running) treeNode() (*treeNode, error) {
	r.treeMu.Lock()
	defer r.treeMu.Unlock()
	if r.tnode != nil {
		return r.tnode, nil
	}
	if r.s == nil || r.msg == nil {
		return nil, ErrNotInTask
	}
	red, err := r.s.n.reducerOf(r.msg.Header.Get(hdrReduce))
	if err != nil {
		return nil, err
	}
	u := &treeUnit{s: r.s, msg: r.msg, job: r.info.Job, task: r.info.Task, handler: handlerOf(r.msg.Subject), red: red,
		open: 1, done: make(chan struct{})}
	u.fold.r = red
	u.ctx, u.cancel = context.WithCancelCause(r.ctx)
	if r.delivered > 1 || r.info.Speculative {
		u.handed = r.s.loadHanded(u)
		u.reran = r.s.loadReran(u)
	}
	r.s.heldUnit(r.msg, u)
	r.tnode = &treeNode{unit: u, id: r.info.Task, handler: u.handler, pending: 1}
	return r.tnode, nil
}

// handedSoFar is the number of children r's task has handed over to other
// workers so far (its whole local subtree's), for its progress reports.
func (r *running) handedSoFar() int {
	nd := r.treeNodeIfAny()
	if nd == nil {
		return 0
	}
	nd.unit.mu.Lock()
	defer nd.unit.mu.Unlock()
	return len(nd.unit.spilled)
}

// treeNodeIfAny returns r's tree node if its handler spawned or set a value.
func (r *running) treeNodeIfAny() *treeNode {
	r.treeMu.Lock()
	defer r.treeMu.Unlock()
	return r.tnode
}

// Spawn adds a child task to the job of the handler whose ctx it is given:
// handler runs payload, on this worker's pool of runners unless an idle
// worker takes it over. The child's id is the spawning task's id, '=',
// and the child's index among its siblings (0, 1, ...): a handler that
// runs again (its worker died) spawns the same children under the same
// ids, so no child is counted twice, provided it spawns them in the same
// order (a deterministic handler).
//
// The job's result counts the child: its value goes into the job's
// reduction (Job.Reduce) and the job ends only once it, and everything it
// spawns, has run. A child's failure fails the task that is being run
// with it (the delivered task, which is retried whole, its children
// included). A child spilled to another worker is recorded as a task of
// its own, with its own attempts. Children that are handed over go to the
// route of the delivered task, so a child may be handed over only if it
// has that task's handler; others stay on this worker (which must have
// their handler).
//
// Spawn returns at once (the child runs later), ErrNotInTask outside a
// handler, or an error naming a bad handler name or reduction.
func Spawn(ctx context.Context, handler string, payload []byte) error {
	r := runningFrom(ctx)
	if r == nil {
		return ErrNotInTask
	}
	if !namePattern.MatchString(handler) {
		return fmt.Errorf("%w: spawn: handler name %q: use letters, digits, '-' and '_'", ErrInvalidJob, handler)
	}
	parent, err := r.treeNode()
	if err != nil {
		return err
	}
	u := parent.unit
	if _, ok := u.s.handlers[handler]; !ok && handler != u.handler {
		return fmt.Errorf("%w %q: spawned by task %s, and this worker does not have it", ErrUnknownHandler, handler, parent.id)
	}
	if limit := int(u.s.n.nc.MaxPayload()) - 1024; len(payload) > limit {
		return fmt.Errorf("%w: spawn: payload of %d bytes is over the server's limit of %d", ErrInvalidJob, len(payload), limit)
	}
	u.mu.Lock()
	if u.open == 0 {
		u.mu.Unlock()
		return fmt.Errorf("%w: task %s has finished (spawn before the handler returns)", ErrNotInTask, parent.id)
	}
	u.open++
	i := parent.next.Add(1) - 1
	c := &treeNode{unit: u, id: parent.id + "=" + strconv.FormatInt(i, 10), handler: handler, payload: payload,
		parent: parent, index: int(i), pending: 1}
	parent.pending++
	u.mu.Unlock()
	u.s.n.spawned.Add(1)
	if u.handed[c.id] {
		u.s.tree.handOver(c, false) // an earlier run handed it over: the same task
		return nil
	}
	u.s.tree.push(c)
	return nil
}

// ReduceValue sets the value that the running task contributes to its
// job's reduction (Job.Reduce), in place of its output. Without it a
// task's value is its handler's output. ErrNotInTask outside a handler.
func ReduceValue(ctx context.Context, v []byte) error {
	r := runningFrom(ctx)
	if r == nil {
		return ErrNotInTask
	}
	nd, err := r.treeNode()
	if err != nil {
		return err
	}
	nd.unit.mu.Lock()
	nd.value, nd.valueSet = append([]byte(nil), v...), true
	nd.unit.mu.Unlock()
	return nil
}

// finish folds a finished node's outcome into its unit.
func (u *treeUnit) finish(nd *treeNode, out []byte, err error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if err != nil && u.err == nil {
		if nd.id != u.task && !errors.Is(err, context.Canceled) && !isSkipped(err) {
			// A child's failure fails the unit: the unit's error names it,
			// as a task of its own would be named.
			err = &childError{task: nd.id, handler: nd.handler, err: err}
		}
		u.err = err
		u.cancel(err) // the unit fails: its pending children are skipped
	}
	if err == nil {
		v := out
		if nd.valueSet {
			v = nd.value
		}
		if nd.folds() {
			u.fold.add(v, false)
		}
		if u.fold.err != nil && u.err == nil {
			u.err = u.fold.err
			u.cancel(u.err)
		}
		if u.err == nil {
			nd.output = out
			u.release(nd) // continuation.go
		}
	}
	u.closeOne()
}

// childError is a unit's failure caused by one of its spawned children.
type childError struct {
	task, handler string
	err           error
}

func (e *childError) Error() string {
	return fmt.Sprintf("spawned task %s (%s) failed: %v", e.task, e.handler, e.err)
}

func (e *childError) Unwrap() error { return e.err }

// isSkipped says err is the cause a skipped node finishes with (its unit
// failed or stops): not a failure of its own.
func isSkipped(err error) bool {
	var ce *childError
	return errors.As(err, &ce) || errors.Is(err, errStopping) || errors.Is(err, errJobCancelled) || errors.Is(err, errSuperseded)
}

// closeOne counts one node off. Called with u.mu held.
func (u *treeUnit) closeOne() {
	u.open--
	if u.open == 0 {
		close(u.done)
	}
}

// wait finishes the unit's root and waits for its local subtree; it
// returns the unit's outcome: the root's output, the first error of the
// subtree, the reduced value and the children handed over.
func (u *treeUnit) wait(root *treeNode, out []byte, err error) ([]byte, []byte, []string, error) {
	u.finish(root, out, err)
	<-u.done
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.rootOut != nil {
		out = u.rootOut // its continuation's
	}
	v := u.fold.v
	if v == nil {
		v = []byte{} // a value, empty
	}
	return out, v, u.spilled, u.err
}

// reranKey is the checkpoint key of the count of a unit's local children
// that started in runs lost with their worker.
func reranKey(job, task string) string { return resultKey(job, task) + reranSuffix }

// reranSuffix ends the key of that count.
const reranSuffix = ".reran"

// loadReran reads that count (0 on doubt).
func (s *serving) loadReran(u *treeUnit) int {
	ctx, cancel := context.WithTimeout(u.ctx, s.n.opts.defaultTimeout)
	defer cancel()
	v, ok, err := s.n.readHeld(ctx, u.msg, readReran, s.n.checkpoints, reranKey(u.job, u.task))
	if err != nil || !ok {
		return 0
	}
	k, _ := strconv.Atoi(string(v))
	return k
}

// addReran adds k to the count of task key (a compare-and-set).
func (n *Node) addReran(ctx context.Context, key string, k int) error {
	kv := n.checkpoints
	rk := key + ".reran"
	for {
		e, err := kv.Get(ctx, rk)
		switch {
		case isNotFound(err):
			if _, err = kv.Create(ctx, rk, strconv.AppendInt(nil, int64(k), 10)); err == nil || !errors.Is(err, jetstream.ErrKeyExists) {
				return err
			}
		case err != nil:
			return err
		default:
			old, _ := strconv.Atoi(string(e.Value()))
			if _, err = kv.Update(ctx, rk, strconv.AppendInt(nil, int64(old+k), 10), e.Revision()); err == nil || !errors.Is(err, jetstream.ErrKeyExists) {
				return err
			}
		}
	}
}

// treeState is a serving worker's local queue of spawned children, its
// runners, and its side of the idle signals.
type treeState struct {
	s   *serving
	max int // runners at most: the worker's slots

	mu      sync.Mutex
	q       []*treeNode // pending children: runners take the newest, spills the oldest
	head    int
	runners int

	spilling atomic.Bool
	id       string // this serving's own, in its idle signals (names may repeat in one process)
	idle     idleLimit
}

func newTreeState(s *serving) *treeState {
	return &treeState{s: s, max: max(1, s.n.opts.slots), id: nuid.Next(), idle: idleLimit{last: map[string]time.Time{}}}
}

// push queues a child and starts a runner if one is free.
func (t *treeState) push(nd *treeNode) {
	t.mu.Lock()
	t.q = append(t.q, nd)
	start := t.runners < t.max
	if start {
		t.runners++
		t.s.tasks.Add(1)
	}
	t.mu.Unlock()
	if start {
		go t.runner()
	}
}

// popNewest takes the newest pending child (depth first, as a work-stealing
// worker pops its own deque), or stops the runner calling it.
func (t *treeState) popNewest() *treeNode {
	t.mu.Lock()
	defer t.mu.Unlock()
	for len(t.q) > t.head {
		nd := t.q[len(t.q)-1]
		t.q[len(t.q)-1] = nil
		t.q = t.q[:len(t.q)-1]
		if nd != nil { // nil: handed over (popOldest)
			return nd
		}
	}
	t.runners--
	t.q, t.head = t.q[:0], 0
	return nil
}

// popOldest takes up to k of the oldest pending children that may be
// handed over (the biggest subtrees, as a thief steals the top of a deque).
func (t *treeState) popOldest(k int) []*treeNode {
	t.mu.Lock()
	defer t.mu.Unlock()
	var out []*treeNode
	for i := t.head; i < len(t.q) && len(out) < k; i++ {
		nd := t.q[i]
		if nd == nil || nd.handler != nd.unit.handler || nd.unit.ctx.Err() != nil || nd.pinned() {
			continue
		}
		out = append(out, nd)
		t.q[i] = nil
	}
	for t.head < len(t.q) && t.q[t.head] == nil {
		t.head++
	}
	return out
}

// pending is the number of children waiting in the queue.
func (t *treeState) pending() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.q) - t.head
}

// runner runs pending children until the queue is empty.
func (t *treeState) runner() {
	defer t.s.tasks.Done()
	for {
		nd := t.popNewest()
		if nd == nil {
			return
		}
		t.run(nd)
	}
}

// run runs one local child.
func (t *treeState) run(nd *treeNode) {
	s, u := t.s, nd.unit
	if err := u.ctx.Err(); err != nil {
		u.finish(nd, nil, context.Cause(u.ctx)) // the unit stops or failed: skipped
		return
	}
	hf, ok := s.handlers[nd.handler]
	if !ok {
		u.finish(nd, nil, fmt.Errorf("%w %q: spawned as task %s", ErrUnknownHandler, nd.handler, nd.id))
		return
	}
	r := &running{node: s.n, tnode: nd, s: s, pool: s.pool, delivered: 1, key: resultKey(u.job, nd.id),
		info: TaskInfo{Job: u.job, Task: nd.id, Attempt: 1, Worker: s.n.opts.name}}
	r.ctx = context.WithValue(u.ctx, taskCtxKey{}, r)
	r.cancel = func(error) {}
	u.started.Add(1)
	s.heldChanged() // its watchers hear of the start (failover.go)
	s.busyLocal.Add(1)
	out, err := call(r.ctx, hf, nd.payload)
	s.busyLocal.Add(-1)
	s.n.executed.Add(1)
	u.finish(nd, out, err)
}

// spill hands up to k of the oldest pending children over to other
// workers: each is published as a task of its own in its unit's route,
// with an id that its parent's re-run would give it again (so a re-run
// publishes the same message id: JetStream drops the copy). A child whose
// message cannot be stored goes back to the queue and runs here.
func (t *treeState) spill(k int) {
	if !t.spilling.CompareAndSwap(false, true) {
		return
	}
	defer t.spilling.Store(false)
	for _, nd := range t.popOldest(k) {
		t.handOver(nd, true)
	}
}

// handOver publishes nd as a task of its own, in its unit's route, with a
// message id that any run of its unit gives it (JetStream drops a copy
// published again within its de-duplication window; a later copy finds
// the result recorded). First the unit's checkpoint lists it (record:
// false when it is listed already), so that a re-run of the unit, after
// this worker died, publishes it again rather than running it: the
// checkpoint rule of the package doc. A child that cannot be listed or
// published runs here.
func (t *treeState) handOver(nd *treeNode, record bool) {
	n, u := t.s.n, nd.unit
	if u.msg.Header.Get(hdrNoSpawn) != "" {
		t.push(nd) // the job keeps its children where they were spawned (Job.NoSpawn)
		return
	}
	if record && !n.viaRecorder() { // the recorder lists it (hdrList) before it publishes
		if err := t.s.recordHanded(u, nd.id); err != nil {
			if u.ctx.Err() == nil {
				n.opts.onError(fmt.Errorf("cluster: handing over task %s: %w", nd.id, err))
			}
			t.push(nd)
			return
		}
	}
	ctx, cancel := context.WithTimeout(u.ctx, n.opts.defaultTimeout)
	var err error
	if n.viaRecorder() {
		// The recorder checks that this worker holds the unit and that
		// the id is a child's, and publishes it (see Record).
		hdr := map[string]string{hdrTask: nd.id}
		if record {
			hdr[hdrList] = "1"
		}
		_, _, err = n.askRecorder(ctx, recSpawn, u.msg.Reply, hdr, nd.payload)
	} else {
		// The job's nonce, as its submitter's message ids begin
		// ("<nonce>.<task>", kept by JetStream in the delivered message):
		// no header of its own on every task.
		nonce, _, _ := strings.Cut(u.msg.Header.Get(jetstream.MsgIDHeader), ".")
		if nonce == "" {
			nonce = u.job
		}
		_, err = n.js.PublishMsg(ctx, childMsg(u.msg, u.task, nd.id, nd.payload), jetstream.WithMsgID(nonce+"."+nd.id))
	}
	cancel()
	if err != nil {
		if u.ctx.Err() == nil {
			n.opts.onError(fmt.Errorf("cluster: handing over task %s: %w", nd.id, err))
		}
		t.push(nd) // runs here (or is skipped, its unit stopping)
		return
	}
	n.spilled.Add(1)
	u.mu.Lock()
	u.spilled = append(u.spilled, nd.id)
	if p := nd.parent; p != nil { // it completes elsewhere: not a child its parent waits for
		p.pending--
		if p.pending == 0 {
			u.complete(p)
		}
	}
	u.closeOne()
	u.mu.Unlock()
}

// handedSuffix ends the checkpoint key of the children a unit handed
// over: <job>.<task>.handed.
const handedSuffix = ".handed"

// handedKey is the checkpoint key of the children a unit handed over.
func handedKey(u *treeUnit) string { return resultKey(u.job, u.task) + handedSuffix }

// recordHanded adds id to the unit's checkpoint of handed-over children.
func (s *serving) recordHanded(u *treeUnit, id string) error {
	ctx, cancel := context.WithTimeout(u.ctx, s.n.opts.defaultTimeout)
	defer cancel()
	return s.n.appendHanded(ctx, handedKey(u), id)
}

// appendHanded adds id to the list of handed-over children under key (a
// compare-and-set on its revision): a worker's own, without a recorder;
// the recorder's for a worker that holds the unit (recSpawn with hdrList).
func (n *Node) appendHanded(ctx context.Context, key, id string) error {
	kv := n.checkpoints
	for {
		e, err := kv.Get(ctx, key)
		switch {
		case isNotFound(err):
			if _, err = kv.Create(ctx, key, []byte(id)); err == nil || !errors.Is(err, jetstream.ErrKeyExists) {
				return err
			}
		case err != nil:
			return err
		default:
			v := append(append(append([]byte(nil), e.Value()...), '\n'), id...)
			if _, err = kv.Update(ctx, key, v, e.Revision()); err == nil || !errors.Is(err, jetstream.ErrKeyExists) {
				return err
			}
		}
		// Changed meanwhile (another run of the unit): read it again.
	}
}

// loadHanded reads the children that earlier runs of u handed over; on
// doubt, none (they then run here: correct, only slower).
func (s *serving) loadHanded(u *treeUnit) map[string]bool {
	ctx, cancel := context.WithTimeout(u.ctx, s.n.opts.defaultTimeout)
	defer cancel()
	v, ok, err := s.n.readHeld(ctx, u.msg, readHanded, s.n.checkpoints, handedKey(u))
	if err != nil || !ok {
		return nil
	}
	m := map[string]bool{}
	for _, id := range strings.Split(string(v), "\n") {
		m[id] = true
	}
	return m
}

// Idle signals: a worker with nothing to run says so on
// <stream>.idle.<its name>, "id<TAB>free slots<TAB>name" (id: its Serve's
// own, random), every idleEvery while it stays idle, backing off to idleMax
// while nobody hands it anything; a worker with two or more pending
// children hears it and hands over half of them, at most the free slots.
// So the signals cost a few messages a second per idle worker, whatever
// the number of tasks, and none while every worker is busy.
//
// A signal lures work away from the worker that hears it, so the hearer
// trusts it only so far: the sender is the subject's last part, which the
// server lets a worker with a credential of its own name only with that
// name (RolePermissionsFor), and a signal whose body names another sender
// is discarded; each sender gets at most one hand-over per idleGap, and all
// senders together at most idleBurst per idleGap. The discarded ones are
// counted (Stats.IdleRefused). A flood of signals, from one name or many,
// so moves at most idleBurst hand-overs per idleGap, each at most half of
// the pending children, to the task stream, where any worker of the route
// (the sender included, as before) may take them: it changes where they
// run, never their outcome (the recorder writes that).
const (
	idleEvery = 10 * time.Millisecond
	idleMax   = 500 * time.Millisecond
	idleGap   = 50 * time.Millisecond
	idleBurst = 8
)

// idleLimit is the rate limit of the idle signals one worker hears.
type idleLimit struct {
	mu     sync.Mutex
	last   map[string]time.Time // sender -> its last accepted signal (pruned of those older than idleGap once it grows past idleNames)
	window time.Time            // start of the current global window
	inWin  int                  // signals accepted in it
}

const idleNames = 1024

// allow says whether a signal from sender, heard at now, may be answered.
func (l *idleLimit) allow(sender string, now time.Time) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if t, ok := l.last[sender]; ok && now.Sub(t) < idleGap {
		return false
	}
	if now.Sub(l.window) >= idleGap {
		l.window, l.inWin = now, 0
	}
	if l.inWin >= idleBurst {
		return false
	}
	l.inWin++
	if len(l.last) >= idleNames {
		for k, t := range l.last {
			if now.Sub(t) >= idleGap {
				delete(l.last, k)
			}
		}
	}
	l.last[sender] = now
	return true
}

// idleSubject is the subject of name's idle signals; ">" for all.
func (n *Node) idleSubject(name string) string { return n.opts.stream + ".idle." + name }

// idleLoop sends this worker's idle signals until ctx is done.
func (t *treeState) idleLoop(ctx context.Context) {
	s := t.s
	wait := idleEvery
	timer := time.NewTimer(wait)
	defer timer.Stop()
	seen := s.n.delivered.Load()
	for {
		select {
		case <-ctx.Done():
			return
		case <-timer.C:
		}
		// Idle: nothing delivered since the last look (a worker between
		// two short tasks of a batch is not idle) and nothing to run.
		delivered := s.n.delivered.Load()
		quiet := delivered == seen
		seen = delivered
		if quiet && s.busy.Load() == 0 && s.busyLocal.Load() == 0 && t.pending() == 0 {
			s.n.nc.Publish(s.n.idleSubject(s.n.opts.name), []byte(t.id+"\t"+strconv.Itoa(s.n.opts.slots)+"\t"+s.n.opts.name))
			s.n.idleSignals.Add(1)
			wait = min(2*wait, idleMax)
		} else {
			wait = idleEvery
		}
		timer.Reset(wait)
	}
}

// onIdle hears another worker's idle signal and hands over half of the
// pending children, at most its free slots.
func (t *treeState) onIdle(m *nats.Msg) {
	id, rest, ok := cut(string(m.Data))
	if !ok || id == t.id {
		return // its own
	}
	slots, name, _ := cut(rest)
	sender := strings.TrimPrefix(m.Subject, t.s.n.idleSubject(""))
	free, err := strconv.Atoi(slots)
	if err != nil || free < 1 || name != sender || !t.idle.allow(sender, time.Now()) {
		t.s.n.idleRefused.Add(1)
		return
	}
	t.s.n.idleAccepted.Add(1)
	p := t.pending()
	if p < 2 || t.spilling.Load() {
		return
	}
	go t.spill(min(p/2, free))
}

func cut(s string) (string, string, bool) {
	for i := 0; i < len(s); i++ {
		if s[i] == '\t' {
			return s[:i], s[i+1:], true
		}
	}
	return "", "", false
}
