package traceview

import (
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/worksteal/worksteal"
)

// Workloads to record and profile. They are the fork-join shapes of package
// bench, written again here on worksteal.JoinFunc because bench builds its
// own pools (with no way to pass a Config with Trace): fib and uts compute
// the same results as bench's "fib" and "uts" at the same sizes. tree is a
// balanced binary tree of spinning leaves, whose work and span are known
// (T1 = 2^depth × leaf, T∞ = leaf, plus the joins), for checking the
// work/span analyzer and the simulator's prediction against.

// ErrWorkload is returned (wrapped) for an unknown workload or a bad size.
var ErrWorkload = errors.New("traceview: bad workload")

// WorkloadSpec names a workload and its size.
type WorkloadSpec struct {
	Name   string        // fib, uts or tree
	Size   int           // fib: n; uts: root children b0; tree: depth
	Cutoff int           // fib: run serially below this n (0: fork at every call n >= 2)
	Leaf   time.Duration // tree: busy-wait of each leaf (0: 100µs)
}

// WorkloadNames lists the workloads, with what their size means.
func WorkloadNames() []string {
	return []string{"fib (size n)", "uts (size: root children b0)", "tree (size: depth; --leaf per leaf)"}
}

// Workload is a prepared workload: Run runs it on a worker of a pool (as
// the body of worksteal.Run or worksteal.Profile).
type Workload struct {
	Spec WorkloadSpec
	run  func(w *worksteal.Worker) uint64
}

// NewWorkload checks spec and returns the workload.
func NewWorkload(spec WorkloadSpec) (*Workload, error) {
	wl := &Workload{Spec: spec}
	switch spec.Name {
	case "fib":
		if spec.Size < 0 || spec.Size > 60 {
			return nil, fmt.Errorf("%w: fib size must be in [0, 60], got %d", ErrWorkload, spec.Size)
		}
		if spec.Cutoff < 0 {
			return nil, fmt.Errorf("%w: negative cutoff %d", ErrWorkload, spec.Cutoff)
		}
		n, cut := spec.Size, max(spec.Cutoff, 2)
		wl.run = func(w *worksteal.Worker) uint64 { return fibJoin(w, fibArgs{n, cut}) }
	case "uts":
		if spec.Size < 0 || spec.Size > 1<<20 {
			return nil, fmt.Errorf("%w: uts size (root children) must be in [0, %d], got %d", ErrWorkload, 1<<20, spec.Size)
		}
		b0 := spec.Size
		wl.run = func(w *worksteal.Worker) uint64 { return utsNode(w, 0, 0, b0) }
	case "tree":
		if spec.Size < 0 || spec.Size > 24 {
			return nil, fmt.Errorf("%w: tree depth must be in [0, 24], got %d", ErrWorkload, spec.Size)
		}
		if spec.Leaf < 0 {
			return nil, fmt.Errorf("%w: negative leaf time %v", ErrWorkload, spec.Leaf)
		}
		if spec.Leaf == 0 {
			wl.Spec.Leaf = 100 * time.Microsecond
		}
		a := treeArgs{depth: spec.Size, leaf: wl.Spec.Leaf}
		wl.run = func(w *worksteal.Worker) uint64 { return tree(w, a) }
	default:
		return nil, fmt.Errorf("%w: unknown workload %q (want fib, uts or tree)", ErrWorkload, spec.Name)
	}
	return wl, nil
}

// String describes the workload: "fib 30", "fib 30 cutoff 15", "tree 6 leaf 100µs".
func (wl *Workload) String() string {
	s := wl.Spec.Name + " " + strconv.Itoa(wl.Spec.Size)
	switch {
	case wl.Spec.Name == "fib" && wl.Spec.Cutoff > 2:
		s += " cutoff " + strconv.Itoa(wl.Spec.Cutoff)
	case wl.Spec.Name == "tree":
		s += " leaf " + wl.Spec.Leaf.String()
	}
	return s
}

// Run runs the workload on w and returns its result: fib(n), the number of
// UTS nodes, or the number of tree leaves.
func (wl *Workload) Run(w *worksteal.Worker) uint64 { return wl.run(w) }

// Want returns the result Run must compute, computed sequentially (for uts
// this walks the tree, as long as one sequential run).
func (wl *Workload) Want() uint64 {
	switch wl.Spec.Name {
	case "fib":
		a, b := uint64(0), uint64(1)
		for range wl.Spec.Size {
			a, b = b, a+b
		}
		return a
	case "uts":
		return utsSeq(0, 0, wl.Spec.Size)
	}
	return 1 << wl.Spec.Size
}

type fibArgs struct{ n, cutoff int }

// fibJoin forks at every call n >= cutoff (bench's fibWS when cutoff is 2:
// fib(n−2) inline, fib(n−1) offered to thieves) and runs serially below.
func fibJoin(w *worksteal.Worker, a fibArgs) uint64 {
	if a.n < a.cutoff {
		return fibSeq(a.n)
	}
	x, y := worksteal.JoinFunc(w, fibJoin, fibArgs{a.n - 2, a.cutoff}, fibJoin, fibArgs{a.n - 1, a.cutoff})
	return x + y
}

func fibSeq(n int) uint64 {
	if n < 2 {
		return uint64(n)
	}
	return fibSeq(n-1) + fibSeq(n-2)
}

// uts: the anchor suite's binomial UTS-like tree over splitmix64, as in
// bench/uts.go: a node does 64 rounds of mix64 over its id (about 250 ns);
// the root has b0 children, any other node 8 children with probability
// q ≈ 0.124875. Children are split in balanced halves, k−1 joins for k.

const (
	utsM      = 8
	utsQ32    = 536334041
	utsRounds = 64
	golden    = 0x9e3779b97f4a7c15
)

func mix64(z uint64) uint64 {
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

func utsWork(id uint64) uint64 {
	h := id
	for range utsRounds {
		h = mix64(h)
	}
	return h
}

func utsKids(h uint64, depth, b0 int) int {
	switch {
	case depth == 0:
		return b0
	case h>>32 < utsQ32:
		return utsM
	}
	return 0
}

func utsChild(h uint64, i int) uint64 { return mix64(h + uint64(i+1)*golden) }

type utsSpan struct {
	h      uint64
	lo, hi int32
	depth  int32
	b0     int32
}

func utsNode(w *worksteal.Worker, id uint64, depth, b0 int) uint64 {
	h := utsWork(id)
	k := utsKids(h, depth, b0)
	if k == 0 {
		return 1
	}
	return 1 + utsHalves(w, utsSpan{h: h, lo: 0, hi: int32(k), depth: int32(depth + 1), b0: int32(b0)})
}

func utsHalves(w *worksteal.Worker, s utsSpan) uint64 {
	if s.hi-s.lo == 1 {
		return utsNode(w, utsChild(s.h, int(s.lo)), int(s.depth), int(s.b0))
	}
	mid := s.lo + (s.hi-s.lo)/2
	lo, hi := s, s
	lo.hi, hi.lo = mid, mid
	a, b := worksteal.JoinFunc(w, utsHalves, lo, utsHalves, hi)
	return a + b
}

func utsSeq(id uint64, depth, b0 int) uint64 {
	h := utsWork(id)
	n := uint64(1)
	for i := range utsKids(h, depth, b0) {
		n += utsSeq(utsChild(h, i), depth+1, b0)
	}
	return n
}

type treeArgs struct {
	depth int
	leaf  time.Duration
}

// tree is a balanced binary fork-join tree whose leaves busy-wait for leaf.
func tree(w *worksteal.Worker, a treeArgs) uint64 {
	if a.depth == 0 {
		spin(a.leaf)
		return 1
	}
	sub := treeArgs{a.depth - 1, a.leaf}
	x, y := worksteal.JoinFunc(w, tree, sub, tree, sub)
	return x + y
}

// spin busy-waits for d of wall time (a leaf of known work).
func spin(d time.Duration) {
	t0 := time.Now()
	for time.Since(t0) < d {
	}
}
