package cluster

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
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

// treeNodeOf returns the tree node of the task that ctx is the handler
// context of, for a call (verb: "spawn", "then") naming handler:
// ErrNotInTask outside a handler, an error naming a bad handler name.
func treeNodeOf(ctx context.Context, verb, handler string) (*treeNode, error) {
	r := runningFrom(ctx)
	if r == nil {
		return nil, ErrNotInTask
	}
	if !namePattern.MatchString(handler) {
		return nil, fmt.Errorf("%w: %s: handler name %q: use letters, digits, '-' and '_'", ErrInvalidJob, verb, handler)
	}
	return r.treeNode()
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
	parent, err := treeNodeOf(ctx, "spawn", handler)
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

// handedSuffix ends the checkpoint key of the children a unit handed
// over: <job>.<task>.handed.
const handedSuffix = ".handed"

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
