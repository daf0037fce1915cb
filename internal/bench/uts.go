package bench

import (
	"sync"
	"sync/atomic"
)

// uts: the anchor suite's UTS-like binomial tree over splitmix64 (UTS "T3"
// shape with cheap hashing). A node (id, depth) does utsRounds rounds of
// mix64 over its id (about 250 ns of work); the root has b0 children, any
// other node has utsM children with probability utsQ32/2^32 (q·M ≈ 0.999,
// near-critical, so the tree is very unbalanced: for b0 = 6000 one root
// child holds more than half of the nodes, about 1,400 levels deep).
// Result = number of nodes.

const (
	utsM      = 8         // children of an interior non-root node
	utsQ32    = 536334041 // P(interior) = utsQ32 / 2^32
	utsRounds = 64        // mix64 rounds per node
	utsRootID = 0
	// utsCutoffDepth: WGCutoff forks only at depth < utsCutoffDepth (both UTS workloads).
	utsCutoffDepth = 2
)

// utsRefs: node counts printed by the anchors' Go program (go-seq), and the
// fork counts of its "stats" command, for the sizes we test.
var utsRefs = map[int]struct{ nodes, joins int64 }{
	0:    {1, 0},
	10:   {11, 9},
	30:   {2535, 2220},
	60:   {3477, 3048},
	100:  {4101, 3599},
	200:  {89945, 78725},
	600:  {100409, 87931},
	1000: {135449, 118641},
	2000: {959561, 839864},
	3000: {1675257, 1466223},
	6000: {4317473, 3778537},
}

func init() {
	register(&workload{
		name:       "uts",
		doc:        "anchor-suite binomial UTS-like tree (splitmix64, M=8, q≈0.124875, 64 mix64 rounds per node), every child a task; size = root children b0",
		sizes:      []string{"6000"},
		quickSizes: []string{"2000"},
		parse:      parseUTS,
	})
}

func parseUTS(size string) (*problem, error) {
	b0, err := atoiIn("uts", size, 0, 1<<20)
	if err != nil {
		return nil, err
	}
	ref, hasRef := utsRefs[b0]
	return &problem{
		seq:      func() Result { return Result{Value: utsSeq(utsRootID, 0, b0)} },
		wg:       func() Result { return Result{Value: utsWG(utsRootID, 0, b0, 1<<30)} },
		wgCutoff: func() Result { return Result{Value: utsWG(utsRootID, 0, b0, utsCutoffDepth)} },
		ref:      Result{Value: uint64(ref.nodes)},
		hasRef:   hasRef,
		joins: func() int64 {
			if hasRef {
				return ref.joins
			}
			return utsCountJoins(utsRootID, 0, b0)
		},
		param: b0,
	}, nil
}

// utsWork is a node's work: utsRounds rounds of mix64 over its id. The
// result decides the number of children and seeds their ids.
func utsWork(id uint64) uint64 {
	h := id
	for range utsRounds {
		h = mix64(h)
	}
	return h
}

// utsKids is the number of children of a node with work hash h at depth.
func utsKids(h uint64, depth, b0 int) int {
	switch {
	case depth == 0:
		return b0
	case h>>32 < utsQ32:
		return utsM
	}
	return 0
}

// utsChild is the id of child i of the node with work hash h.
func utsChild(h uint64, i int) uint64 { return mix64(h + uint64(i+1)*golden) }

func utsSeq(id uint64, depth, b0 int) uint64 {
	h := utsWork(id)
	n := uint64(1)
	for i := range utsKids(h, depth, b0) {
		n += utsSeq(utsChild(h, i), depth+1, b0)
	}
	return n
}

// utsWG forks every child but the last as a goroutine and runs the last one
// inline, while depth < cutoff; below that it runs sequentially.
func utsWG(id uint64, depth, b0, cutoff int) uint64 {
	if depth >= cutoff {
		return utsSeq(id, depth, b0)
	}
	h := utsWork(id)
	k := utsKids(h, depth, b0)
	if k == 0 {
		return 1
	}
	var sum atomic.Uint64
	var wg sync.WaitGroup
	wg.Add(k - 1)
	for i := range k - 1 {
		go func(child uint64) {
			sum.Add(utsWG(child, depth+1, b0, cutoff))
			wg.Done()
		}(utsChild(h, i))
	}
	last := utsWG(utsChild(h, k-1), depth+1, b0, cutoff)
	wg.Wait()
	return 1 + last + sum.Load()
}

// utsCountJoins walks the tree: a node with k children adds k−1 joins.
func utsCountJoins(id uint64, depth, b0 int) int64 {
	h := utsWork(id)
	k := utsKids(h, depth, b0)
	var j int64
	if k > 1 {
		j = int64(k - 1)
	}
	for i := range k {
		j += utsCountJoins(utsChild(h, i), depth+1, b0)
	}
	return j
}
