package cluster

import (
	"context"
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

// handedKey is the checkpoint key of the children a unit handed over.
func handedKey(u *treeUnit) string { return resultKey(u.job, u.task) + handedSuffix }

// recordHanded adds id to the unit's checkpoint of handed-over children.
func (s *serving) recordHanded(u *treeUnit, id string) error {
	ctx, cancel := context.WithTimeout(u.ctx, s.n.opts.defaultTimeout)
	defer cancel()
	return s.n.appendHanded(ctx, handedKey(u), id)
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
