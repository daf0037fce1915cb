package bench

import (
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/worksteal/worksteal"
)

// UTS as tasks that spawn tasks (the cluster tier's uts-sha1 cell, worksteal
// bench cell cluster): a node above the split depth is a task that spawns
// its children as tasks; a node at the split depth counts its subtree on
// the worker's pool, forking every child (as the ws cell does). Each task
// contributes the count of what it counted, "nodes leaves depth", and the
// counts combine by adding nodes and leaves and taking the deeper depth
// (UTSCombine), so the job's reduction is the tree's count whatever ran
// where. This file knows nothing of the cluster: the caller passes the
// spawn function and the pool.

// utsTask is a node as a task's payload: "tree|split|depth|state (hex)".
type utsTask struct {
	tree  *UTSTree
	spec  string
	split int
	depth int
	state utsState
}

var utsTrees sync.Map // spec -> *UTSTree, parsed once per process

// UTSRootTask is the payload of the root task of tree (a standard tree's
// name or parameters, as ParseUTSTree takes) split into tasks down to
// depth split.
func UTSRootTask(tree string, split int) ([]byte, error) {
	t, err := ParseUTSTree(tree)
	if err != nil {
		return nil, err
	}
	if split < 0 {
		return nil, fmt.Errorf("uts split depth %d: want 0 or more", split)
	}
	s := utsRoot(t.R)
	return fmt.Appendf(nil, "%s|%d|0|%x", tree, split, s[:]), nil
}

func parseUTSTask(p []byte) (utsTask, error) {
	f := strings.Split(string(p), "|")
	var u utsTask
	if len(f) != 4 {
		return u, fmt.Errorf("uts task %q: want tree|split|depth|state", p)
	}
	u.spec = f[0]
	var err1, err2 error
	u.split, err1 = strconv.Atoi(f[1])
	u.depth, err2 = strconv.Atoi(f[2])
	st, err3 := hex.DecodeString(f[3])
	if err1 != nil || err2 != nil || err3 != nil || len(st) != len(u.state) {
		return u, fmt.Errorf("uts task %q: malformed", p)
	}
	copy(u.state[:], st)
	if t, ok := utsTrees.Load(u.spec); ok {
		u.tree = t.(*UTSTree)
		return u, nil
	}
	t, err := ParseUTSTree(u.spec)
	if err != nil {
		return u, err
	}
	u.tree = &t
	utsTrees.Store(u.spec, u.tree)
	return u, nil
}

// UTSTaskRun runs the task of payload p: above the split depth it calls
// spawn with each child's payload and counts the node itself; at the split
// depth it counts the node's subtree on pool. It returns the task's count
// as UTSCombine reads it.
func UTSTaskRun(pool *worksteal.Pool, p []byte, spawn func(payload []byte) error) ([]byte, error) {
	u, err := parseUTSTask(p)
	if err != nil {
		return nil, err
	}
	if u.depth >= u.split {
		r := newShaWS(u.tree)
		c, err := worksteal.Run(pool, func(w *worksteal.Worker) shaCount { return r.node(w, u.state, u.depth) })
		if err != nil {
			return nil, err
		}
		return c.appendText(nil), nil
	}
	k := u.tree.numChildren(&u.state, u.depth)
	if k <= 0 {
		return shaLeaf(u.depth).appendText(nil), nil
	}
	for i := range k {
		c := u.state.child(i)
		if err := spawn(fmt.Appendf(nil, "%s|%d|%d|%x", u.spec, u.split, u.depth+1, c[:])); err != nil {
			return nil, err
		}
	}
	return shaCount{nodes: 1, depth: uint64(u.depth)}.appendText(nil), nil
}

func (c shaCount) appendText(b []byte) []byte {
	b = strconv.AppendUint(b, c.nodes, 10)
	b = append(b, ' ')
	b = strconv.AppendUint(b, c.leaves, 10)
	b = append(b, ' ')
	return strconv.AppendUint(b, c.depth, 10)
}

func parseCount(b []byte) (shaCount, error) {
	f := strings.Fields(string(b))
	var c shaCount
	if len(f) != 3 {
		return c, fmt.Errorf("uts count %q: want nodes leaves depth", b)
	}
	var err [3]error
	c.nodes, err[0] = strconv.ParseUint(f[0], 10, 64)
	c.leaves, err[1] = strconv.ParseUint(f[1], 10, 64)
	c.depth, err[2] = strconv.ParseUint(f[2], 10, 64)
	for _, e := range err {
		if e != nil {
			return c, fmt.Errorf("uts count %q: %w", b, e)
		}
	}
	return c, nil
}

// UTSCombine adds two counts (nodes, leaves; the deeper depth).
func UTSCombine(a, b []byte) ([]byte, error) {
	x, err := parseCount(a)
	if err != nil {
		return nil, err
	}
	y, err := parseCount(b)
	if err != nil {
		return nil, err
	}
	x.add(y)
	return x.appendText(nil), nil
}

// UTSCount reads a combined count as a Result (nodes as Value).
func UTSCount(v []byte) (Result, error) {
	c, err := parseCount(v)
	return c.result(), err
}
