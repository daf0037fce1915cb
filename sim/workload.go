package sim

import (
	"crypto/sha1"
	"encoding/binary"
	"math"
	"sort"
	"time"

	"github.com/worksteal/worksteal/internal/fibtree"
	"github.com/worksteal/worksteal/internal/xrand"
)

// A task is one node of the workload's DAG. Its work is split at its spawn
// point: work[0] runs before the children are created, work[1] after (on
// the same worker for a plain spawn; as the continuation after the join for
// fork-join). Everything about a task's shape (durations, children) is drawn
// from its own seed, never from a shared generator, so the DAG is the same
// whatever the schedule, and T1 and T∞ are properties of the workload.
//
// Tasks hold no pointers, so a million of them cost the garbage collector
// nothing to scan.
type task struct {
	seed   uint64
	work   [2]time.Duration
	span   time.Duration // earliest start with unlimited workers (critical path so far)
	parent int32         // fork-join parent waiting for this task, or -1
	join   int32         // fork-join parents: index of its joinState, else -1
	nkids  int16         // children created at the spawn point (at most 1000)
	depth  int16         // generation (0 for roots): under UTS join binary, forks from the root
	arg    int16         // fib: n; UTS join binary: the first child of the range this task joins
	hi     int16         // UTS join binary: the end of that range
	phase  uint8         // next piece: 0 up to the spawn point, 1 after it, 2 continuation, 3 done
	flags  uint8
	starts uint16 // times a piece of this task was started (re-executions included)
	aborts uint16 // pieces lost with a worker and run again
}

// joinState is the extra state of a fork-join parent, kept aside so that
// the common task stays small (a million tasks are walked in random order).
type joinState struct {
	start    time.Duration // first start
	joinAt   time.Duration // when it reached the join; once resumed, the wait there
	joinSpan time.Duration // max(span at fork, children's finish spans)
	pending  int32         // children not yet finished
	owner    int32         // the worker that forked it (policy.join_wait stack: its continuation's worker)
}

const (
	fJoin    = 1 << iota // fork-join: suspend at the spawn point
	fSpawned             // children already created (not again on re-execution)
	fDone                // finished
	fStarted             // began executing at least once
	fSpan                // UTS join binary: a range of a node's children, no node of its own
)

// sampler draws durations from a [Dist].
type sampler struct {
	d Dist
}

// sample returns one duration in seconds.
func (s *sampler) sample(r *xrand.Rand) float64 {
	d := &s.d
	switch d.Dist {
	case distUniform:
		return float64(d.Min) + float64(d.Max-d.Min)*r.Float64()
	case distExponential:
		return -float64(d.Mean) * math.Log(1-r.Float64())
	case distLognormal:
		mu := math.Log(float64(d.Mean)) - d.Sigma*d.Sigma/2
		return math.Exp(mu + d.Sigma*normal(r))
	case distPareto:
		x := float64(d.Min) / math.Pow(1-r.Float64(), 1/d.Alpha)
		if d.Max > 0 && x > float64(d.Max) {
			x = float64(d.Max)
		}
		return x
	case distBimodal:
		if r.Float64() < d.LongFrac {
			return float64(d.Long)
		}
		return float64(d.Short)
	}
	return float64(d.Value)
}

// normal returns a standard normal deviate (Box–Muller, one of the pair).
func normal(r *xrand.Rand) float64 {
	u1 := 1 - r.Float64() // (0, 1]
	u2 := r.Float64()
	return math.Sqrt(-2*math.Log(u1)) * math.Cos(2*math.Pi*u2)
}

func secs(x float64) time.Duration {
	if !(x > 0) {
		return 0
	}
	if x > 1e9 {
		x = 1e9 // about 31 years: far beyond any sensible task
	}
	return time.Duration(math.Round(x * 1e9))
}

// rootSeed derives the seed of root task i from the scenario seed.
func rootSeed(seed uint64, i int) uint64 {
	return xrand.SplitMix64(seed ^ 0x5eed5eed ^ uint64(i)*0x9e3779b97f4a7c15)
}

// childSeed derives the seed of a task's child i.
func childSeed(parent uint64, i int) uint64 {
	return xrand.SplitMix64(parent + uint64(i+1)*0xbf58476d1ce4e5b9)
}

// shape fills a new task's work, children and join flag from its seed,
// depth and argument, according to the workload.
func (e *engine) shape(t *task, uts *[20]byte) {
	wl := &e.s.Workload
	switch wl.Kind {
	case kindFib:
		f := &wl.Fib
		n := int(t.arg)
		if n < f.Cutoff {
			t.work[0] = time.Duration(fibtree.Calls(n)) * f.Leaf.Duration()
			return
		}
		t.work[0], t.work[1] = f.Split.Duration(), f.Join.Duration()
		t.nkids, t.flags = 2, t.flags|fJoin
	case kindTree:
		if int(t.depth) < wl.Tree.Depth {
			t.work[0] = wl.Tree.Node.Duration()
			t.nkids, t.flags = 2, t.flags|fJoin
			return
		}
		var r xrand.Rand
		r.Seed(t.seed)
		t.work[0] = secs(e.dist.sample(&r))
	case kindUTS:
		u := &wl.UTS
		if u.Join != utsJoinBinary {
			t.work[0] = u.Node.Duration()
			t.nkids = int16(u.children(uts, int(t.depth)))
			return
		}
		// Fork-join over ranges of a node's children, as the runtime's
		// utsWSSpan: the node (or a span) joins the two halves of its
		// range; a half of one child is that child's node.
		if t.flags&fSpan == 0 {
			// depth counts forks here (policy.eager_depth's levels, as
			// the runtime's Join depth): a binomial tree's shape needs
			// only whether the node is the root.
			t.work[0] = u.Node.Duration()
			t.arg, t.hi = 0, int16(u.children(uts, min(int(t.depth), 1)))
		}
		if t.hi > t.arg {
			t.nkids, t.flags = min(2, t.hi-t.arg), t.flags|fJoin
		}
	default:
		var rs xrand.Rand
		rs.Seed(t.seed)
		r := &rs
		dist := &e.dist
		switch {
		case t.depth > 0:
			dist = &e.child
		case e.rootDst != nil:
			dist = e.rootDst
		}
		d := secs(dist.sample(r))
		sp := &wl.Spawn
		if sp.Prob > 0 && int(t.depth) < sp.Depth && r.Float64() < sp.Prob {
			t.nkids = int16(sp.Min + r.Intn(sp.Max-sp.Min+1))
			at := sp.At
			if at == 0 {
				at = 0.25 + 0.5*r.Float64()
			}
			t.work[0] = time.Duration(math.Round(float64(d) * at))
			t.work[1] = d - t.work[0]
			if sp.Join {
				t.flags |= fJoin
			}
			return
		}
		t.work[0] = d
	}
}

// newTask appends a task and returns its id.
func (e *engine) newTask(parent int32, seed uint64, depth, arg int16, span time.Duration, uts *[20]byte) int32 {
	return e.newTaskOf(task{seed: seed, parent: parent, join: -1, depth: depth, arg: arg, span: span}, uts)
}

// newTaskOf appends t (its seed, parent, depth, argument, span and flags
// set), shaped, and returns its id.
func (e *engine) newTaskOf(t0 task, uts *[20]byte) int32 {
	id := int32(len(e.tasks))
	e.tasks = append(e.tasks, t0)
	t := &e.tasks[id]
	if e.s.Workload.Kind == kindUTS {
		e.uts = append(e.uts, *uts)
	}
	e.shape(t, uts)
	if t.flags&fJoin != 0 {
		t.join = int32(len(e.joins))
		e.joins = append(e.joins, joinState{})
	}
	e.created++
	e.outstanding++
	return id
}

// spawnChildren creates the children of task id at its spawn point and
// returns their ids in ids (reused).
func (e *engine) spawnChildren(id int32, ids []int32) []int32 {
	ids = ids[:0]
	t := &e.tasks[id]
	n := int(t.nkids)
	span := t.span + t.work[0]
	parent := int32(-1)
	if t.flags&fJoin != 0 {
		parent = id
		j := &e.joins[t.join]
		j.pending, j.joinSpan = int32(n), span
	}
	depth, seed, arg := t.depth+1, t.seed, t.arg
	var ps [20]byte
	if e.s.Workload.Kind == kindUTS {
		ps = e.uts[id]
		if e.s.Workload.UTS.Join == utsJoinBinary {
			return e.splitChildren(id, parent, span, &ps, ids)
		}
	}
	for i := 0; i < n; i++ {
		a := arg
		if e.s.Workload.Kind == kindFib {
			a = arg - 1 - int16(i)
		}
		var cs [20]byte
		if e.s.Workload.Kind == kindUTS {
			cs = e.s.Workload.UTS.child(&ps, i)
		}
		ids = append(ids, e.newTask(parent, childSeed(seed, i), depth, a, span, &cs))
	}
	e.tasks[id].flags |= fSpawned
	return ids
}

// splitChildren creates the children of UTS node or span id under join
// binary: the two halves of its range of the node's children (ps), each a
// span of that node, or the child's own node where a half holds one.
//
// The upper half comes first, so that a fork's last child, the one its
// worker runs inline, is the lower half, and the upper half is the one
// offered: the runtime's benchmark (internal/bench's utsWSSpan) joins
// JoinFunc(lower, upper), running the lower half on its worker, as
// rayon::join runs its first closure. In the other order the model's
// steals on the b0 = 6000 tree at 2 workers were 508 a run, against 1,453
// in this one and 7,872–9,870 in the runtime (sim/README.md).
func (e *engine) splitChildren(id, parent int32, span time.Duration, ps *[20]byte, ids []int32) []int32 {
	t := e.tasks[id]
	u := &e.s.Workload.UTS
	lo, hi := t.arg, t.hi
	mid := lo + (hi-lo)/2
	halves := [2][2]int16{{mid, hi}, {lo, mid}}
	if t.nkids == 1 { // a range of one child (hi = lo + 1, mid = lo)
		halves[1] = [2]int16{lo, hi}
	}
	for k, h := range halves[2-t.nkids:] {
		seed := childSeed(t.seed, k)
		if h[1]-h[0] == 1 {
			cs := u.child(ps, int(h[0]))
			ids = append(ids, e.newTask(parent, seed, t.depth+1, 0, span, &cs))
			continue
		}
		ids = append(ids, e.newTaskOf(task{seed: seed, parent: parent, join: -1, depth: t.depth + 1, arg: h[0], hi: h[1], span: span, flags: fSpan}, ps))
	}
	e.tasks[id].flags |= fSpawned
	return ids
}

// sortLPT orders task ids by decreasing total work (ties by id), the order
// in which LPT places them.
func (e *engine) sortLPT(ids []int32) {
	sort.SliceStable(ids, func(i, j int) bool {
		a, b := &e.tasks[ids[i]], &e.tasks[ids[j]]
		return a.work[0]+a.work[1] > b.work[0]+b.work[1]
	})
}

// UTS: the reference generator (Olivier et al., LCPC 2006) with SHA-1
// splittable states, as defined in WORKLOADS.md.

// root returns the state of the root with seed r. A splitmix node's
// state is its hash (splitmixState), computed once when the node is made.
func (u *UTS) root(r int) [20]byte {
	if u.Type == utsSplitmix {
		return splitmixState(uint64(r))
	}
	return utsRoot(r)
}

// child returns the state of child i of the node with state parent.
func (u *UTS) child(parent *[20]byte, i int) [20]byte {
	if u.Type == utsSplitmix {
		h := binary.LittleEndian.Uint64(parent[:])
		return splitmixState(xrand.Mix64(h + uint64(i+1)*0x9e3779b97f4a7c15))
	}
	return utsChild(parent, i)
}

// children returns how many children the node with state s at depth d has.
func (u *UTS) children(s *[20]byte, d int) int {
	if u.Type == utsSplitmix {
		switch {
		case d == 0:
			return int(u.B0)
		case binary.LittleEndian.Uint64(s[:])>>32 < uint64(math.Round(u.Q*(1<<32))):
			return u.M
		}
		return 0
	}
	return utsChildren(u, s, d)
}

// splitmixState is the state of the splitmix node with this id: its hash,
// the anchor suite's node work (internal/bench's utsWork), 64 rounds of
// splitmix64's mixer over the id, from which its children are drawn.
func splitmixState(id uint64) [20]byte {
	for range 64 {
		id = xrand.Mix64(id)
	}
	var b [20]byte
	binary.LittleEndian.PutUint64(b[:], id)
	return b
}

// utsRoot returns the state of the SHA-1 root with seed r.
func utsRoot(r int) [20]byte {
	var b [20]byte
	binary.BigEndian.PutUint32(b[16:], uint32(r))
	return sha1.Sum(b[:])
}

// utsChild returns the state of child i of a node.
func utsChild(parent *[20]byte, i int) [20]byte {
	var b [24]byte
	copy(b[:], parent[:])
	binary.BigEndian.PutUint32(b[20:], uint32(i))
	return sha1.Sum(b[:])
}

// utsRand is a node's random number in [0, 2^31).
func utsRand(s *[20]byte) uint32 { return binary.BigEndian.Uint32(s[16:]) & 0x7fffffff }

// utsChildren returns how many children the node with state s at depth d has.
func utsChildren(u *UTS, s *[20]byte, d int) int {
	kind := u.Type
	if kind == utsHybrid {
		kind = utsBinomial
		if float64(d) < 0.5*float64(u.Depth) {
			kind = utsGeometric
		}
	}
	var n int
	if kind == utsGeometric {
		b := u.B0
		if d > 0 {
			D := float64(u.Depth)
			switch u.Shape {
			case shapeExpDec:
				b = u.B0 * math.Pow(float64(d), -math.Log(u.B0)/math.Log(D))
			case shapeCyclic:
				if float64(d) > 5*D {
					b = 0
				} else {
					b = math.Pow(u.B0, math.Sin(2*math.Pi*float64(d)/D))
				}
			case shapeFixed:
				if d >= u.Depth {
					b = 0
				}
			default: // linear
				b = u.B0 * (1 - float64(d)/D)
			}
		}
		p := 1 / (1 + b)
		uu := float64(utsRand(s)) / 2147483648.0
		f := math.Floor(math.Log(1-uu) / math.Log(1-p))
		switch {
		case math.IsNaN(f) || f < 0:
			n = 0
		case f > 1e6:
			n = 1e6
		default:
			n = int(f)
		}
	} else {
		if d == 0 {
			n = int(math.Floor(u.B0))
		} else if float64(utsRand(s))/2147483648.0 < u.Q {
			n = u.M
		}
	}
	if d == 0 && u.Type == utsBinomial {
		if c := int(math.Ceil(u.B0)); n > c {
			n = c
		}
	} else if n > 100 {
		n = 100
	}
	return n
}

// utsCount walks the whole tree serially: nodes, leaves and maximum depth.
// It is the reference the simulated run is checked against.
func utsCount(u UTS) (nodes, leaves, depth int) {
	type item struct {
		s [20]byte
		d int
	}
	stack := []item{{u.root(u.Root), 0}}
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		nodes++
		depth = max(depth, it.d)
		k := u.children(&it.s, it.d)
		if k == 0 {
			leaves++
		}
		for i := 0; i < k; i++ {
			stack = append(stack, item{u.child(&it.s, i), it.d + 1})
		}
	}
	return
}
