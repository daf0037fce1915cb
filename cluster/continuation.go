package cluster

import (
	"context"
	"fmt"
)

// Continuations: a node's continuation runs once the node's handler and
// all of its children (their own continuations included) are complete,
// with their outputs (ChildResults), as a node of its own pushed to the
// worker's queue: no goroutine or slot waits for the children meanwhile
// (a counter does: treeNode.pending). Its output stands for the node's:
// its parent's continuation gets it, and a delivered task's result
// (Result.Output) is its root's continuation's output.
//
// Completion, under the unit's mu: a node is complete when pending (its
// own handler + its children not complete) reaches 0 and, if it has a
// continuation, that has completed. Children of a node with a
// continuation are pinned to this worker (never handed over: their
// outputs must come back here); a child handed over (of a node without
// one) counts as complete for its parent at once (its result is recorded
// as a task of its own).

// Then sets the continuation of the running task: once the task's
// handler has returned and every child it spawns has completed (with its
// own continuation, if any), handler runs with payload, and
// ChildResults gives it the children's outputs (in spawn order). The
// continuation holds no slot while it waits. It must be called before
// the task's first Spawn; the children of a task with a continuation run
// on this worker (they are not handed over). A child's failure fails the
// delivered task as usual. ErrNotInTask outside a handler.
func Then(ctx context.Context, handler string, payload []byte) error {
	nd, err := treeNodeOf(ctx, "then", handler)
	if err != nil {
		return err
	}
	u := nd.unit
	if _, ok := u.s.handlers[handler]; !ok {
		return fmt.Errorf("%w %q: continuation of task %s, and this worker does not have it", ErrUnknownHandler, handler, nd.id)
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	switch {
	case nd.next.Load() > 0:
		return fmt.Errorf("%w: then: task %s has spawned already (call Then before Spawn)", ErrInvalidJob, nd.id)
	case nd.then != nil:
		return fmt.Errorf("%w: then: task %s has a continuation already", ErrInvalidJob, nd.id)
	}
	nd.then = &treeNode{unit: u, id: nd.id + "=then", handler: handler, payload: payload, contOf: nd, pending: 1}
	nd.hasThen = true
	return nil
}

// ChildResults returns, in a continuation (Then), the outputs of the
// children of the task it continues, in spawn order (a child's output is
// its continuation's when it has one). Nil elsewhere.
func ChildResults(ctx context.Context) [][]byte {
	r := runningFrom(ctx)
	if r == nil || r.tnode == nil || r.tnode.contOf == nil {
		return nil
	}
	u := r.tnode.unit
	u.mu.Lock()
	defer u.mu.Unlock()
	return append([][]byte(nil), r.tnode.contOf.results...)
}

// pinned says nd's parent waits for its output (has a continuation).
// hasThen is written by Then before the parent's first Spawn, which
// created nd (under the unit's mu, before nd was queued): no lock needed,
// and none may be taken here (popOldest holds the queue's mutex, and the
// unit's mu is taken before it, never after).
func (nd *treeNode) pinned() bool { return nd.parent != nil && nd.parent.hasThen }

// folds says whether nd's own value (its output, or ReduceValue's) enters
// the job's reduction: each value is counted once, either by the
// continuation that reads it or by the reduction, never both (see the
// package doc, "Reductions"). Not if nd has a continuation (whose value
// stands for nd's), nor if the node nd completes is read by its parent's
// continuation (ChildResults). Called with u.mu held.
func (nd *treeNode) folds() bool {
	if nd.hasThen {
		return false
	}
	return !nd.completes().pinned()
}

// completes is the node whose completion nd's output stands for: nd
// itself, or the node it continues (following continuations of
// continuations).
func (nd *treeNode) completes() *treeNode {
	t := nd
	for t.contOf != nil {
		t = t.contOf
	}
	return t
}

// release counts nd's own handler done. Called with u.mu held.
func (u *treeUnit) release(nd *treeNode) {
	nd.pending--
	if nd.pending == 0 {
		u.complete(nd)
	}
}

// complete runs when nd's handler and children are done: its continuation
// is queued, or its output goes to whoever waits for it. Called with u.mu
// held.
func (u *treeUnit) complete(nd *treeNode) {
	if nd.then != nil {
		k := nd.then
		nd.then = nil // queued once
		u.open++
		u.s.tree.push(k)
		return
	}
	target := nd.completes() // a continuation completes the node it continues
	p := target.parent
	if p == nil {
		if nd.contOf != nil {
			u.rootOut = nd.output
			if u.rootOut == nil {
				u.rootOut = []byte{}
			}
		}
		return
	}
	if len(p.results) <= target.index {
		p.results = append(p.results, make([][]byte, target.index+1-len(p.results))...)
	}
	p.results[target.index] = nd.output
	p.pending--
	if p.pending == 0 {
		u.complete(p)
	}
}
