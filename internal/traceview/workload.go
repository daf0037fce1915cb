package traceview

import (
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/worksteal/worksteal"
	"github.com/worksteal/worksteal/internal/bench"
)

// Workloads to record and profile. uts is bench's "uts" (bench.Body, run on
// the caller's pool, so tracing and profiling apply); fib is written here
// because it takes a sequential cutoff, which bench's does not; tree is a
// balanced binary tree of spinning leaves. tree is a
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
		body, err := bench.Body("uts", strconv.Itoa(spec.Size))
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrWorkload, err)
		}
		wl.run = func(w *worksteal.Worker) uint64 { return body(w).Value }
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
		in, err := bench.Prepare("uts", strconv.Itoa(wl.Spec.Size), bench.Seq, 1)
		if err != nil {
			return 0
		}
		defer in.Close()
		it, err := in.Run()
		if err != nil {
			return 0
		}
		return it.Result.Value
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
