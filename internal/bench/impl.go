package bench

import (
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"time"
)

// Impl names one implementation of a workload. The names follow the anchor
// suite's, so that lines printed by "worksteal bench cell" sit in the same
// tables as the anchors' own Go, Rust, C++ and Java lines.
type Impl string

// The implementations every workload offers.
const (
	// Seq is plain sequential Go; it runs at one worker only.
	Seq Impl = "go-seq"
	// WG spawns a goroutine per fork and waits with a sync.WaitGroup.
	WG Impl = "go-wg"
	// WGCutoff is WG with a hand-tuned sequential cutoff.
	WGCutoff Impl = "go-wg-cutoff"
	// WS forks through worksteal.JoinFunc at every fork point.
	WS Impl = "ws"
	// WSClosure forks through the closure form worksteal.Join.
	WSClosure Impl = "ws-closure"
)

// Counter is the baseline with no scheduler at all: GOMAXPROCS goroutines
// take the pieces (coarse's leaves, mandel's rows) from an atomic counter,
// in index order. It measures what Go itself costs on the workload at
// several threads, apart from any scheduler; only "coarse", "coarse-poll",
// "mandel" and "mandel-unrolled" offer it, and it is in no plan:
// "worksteal bench cell go-counter WORKLOAD SIZE THREADS" runs it.
const Counter Impl = "go-counter"

// Errors returned by Prepare and ParseImpl.
var (
	// ErrUnknownWorkload: the workload name is not one of Workloads().
	ErrUnknownWorkload = errors.New("bench: unknown workload")
	// ErrUnknownImpl: the implementation name is not one of Impls().
	ErrUnknownImpl = errors.New("bench: unknown implementation")
	// ErrBadSize: the size does not parse or is out of range for the workload.
	ErrBadSize = errors.New("bench: bad size")
	// ErrBadWorkers: the worker count is below 1 or above MaxWorkers.
	ErrBadWorkers = errors.New("bench: bad worker count")
	// ErrUnavailable: the implementation is not built into this binary.
	ErrUnavailable = errors.New("bench: implementation not available")
)

// allImpls lists the implementations in table order.
var allImpls = []Impl{Seq, WG, WGCutoff, WS, WSClosure}

// Impls returns the implementations built into this binary, in table order.
func Impls() []Impl {
	var out []Impl
	for _, im := range allImpls {
		if Available(im) {
			out = append(out, im)
		}
	}
	return out
}

// Available reports whether impl is built into this binary (the worksteal
// implementations need the runtime package).
func Available(impl Impl) bool {
	switch impl {
	case Seq, WG, WGCutoff, Counter:
		return true
	case WS, WSClosure:
		return wsBackend != nil
	}
	return false
}

// ParseImpl turns a name into an Impl. Besides the names of the constants it
// accepts "go-ws" and "go-ws-closure" for WS and WSClosure: under those names
// the anchors' report pairs the worksteal lines with sequential Go ("go-seq")
// when it computes per-fork overheads.
func ParseImpl(s string) (Impl, error) {
	switch s {
	case "go-ws":
		return WS, nil
	case "go-ws-closure":
		return WSClosure, nil
	}
	if slices.Contains(allImpls, Impl(s)) || Impl(s) == Counter {
		return Impl(s), nil
	}
	return "", fmt.Errorf("%w %q (want one of %v or %s)", ErrUnknownImpl, s, allImpls, Counter)
}

// Result is what one iteration of a workload computes.
type Result struct {
	// Value is the workload's answer: fib(n), the number of n-queens
	// solutions, or the number of tree nodes (both UTS workloads).
	Value uint64 `json:"value"`
	// Leaves and Depth are the leaf count and maximum node depth (the root
	// has depth 0); only "uts-sha1" fills them in.
	Leaves uint64 `json:"leaves,omitempty"` // leaf nodes
	Depth  uint64 `json:"depth,omitempty"`  // maximum node depth
}

// String formats the result as the anchors do (the value alone), followed by
// leaves and depth when they are set.
func (r Result) String() string {
	if r.Leaves == 0 && r.Depth == 0 {
		return strconv.FormatUint(r.Value, 10)
	}
	return fmt.Sprintf("%d leaves=%d depth=%d", r.Value, r.Leaves, r.Depth)
}

// Iteration is the outcome of one timed run of an Instance.
type Iteration struct {
	Elapsed time.Duration // the computation only
	Result  Result        // what the iteration computed
	Steals  uint64        // tasks stolen during the run (worksteal impls; 0 otherwise)
}

// Instance is one prepared (workload, size, impl, workers) combination.
// While it is open it holds runtime.GOMAXPROCS at its worker count (as the
// anchors do: the worker count is the number of OS threads that run Go code)
// and, for the worksteal implementations, a pool of that many workers.
// Instances are not safe for concurrent use, and two open instances fight
// over GOMAXPROCS: run one at a time and Close each.
type Instance struct {
	Workload string // as given to Prepare
	Size     string // as given to Prepare
	Impl     Impl   // as given to Prepare
	Workers  int    // GOMAXPROCS and, for WS and WSClosure, pool workers

	run       runner
	prevProcs int
	closed    bool
}

// runner is what an implementation provides: one timed iteration (it times
// the computation itself, so that bookkeeping stays outside), and a close.
type runner interface {
	iterate() (r Result, elapsed time.Duration, steals uint64, err error)
	close() error
}

// funcRunner runs a plain-Go implementation.
type funcRunner func() Result

func (f funcRunner) iterate() (Result, time.Duration, uint64, error) {
	t0 := time.Now()
	r := f()
	return r, time.Since(t0), 0, nil
}

func (f funcRunner) close() error { return nil }

// untimedRunner calls reset before each iteration of runner and takes the
// iteration's result from result after it, both untimed: the sort workload
// sorts a fresh copy of its input every time and checks the order after,
// and neither is part of the measurement (anchors/WORKLOADS.md section 4).
type untimedRunner struct {
	runner
	reset  func()
	result func() Result
}

func (r untimedRunner) iterate() (Result, time.Duration, uint64, error) {
	r.reset()
	_, d, steals, err := r.runner.iterate()
	return r.result(), d, steals, err
}

// problem is one parsed (workload, size): the plain-Go implementations,
// the reference result when one is published, and how to count joins.
type problem struct {
	// seq, wg and wgCutoff are the plain-Go implementations; a loop
	// workload leaves out the ones it has no counterpart for (nil), and
	// Prepare says so with ErrUnavailable.
	seq, wg, wgCutoff func() Result
	// counter is the Counter baseline, for the workloads that offer it.
	counter func() Result
	ref     Result
	hasRef  bool
	// joins returns the number of binary fork-join points of the task tree;
	// it may walk the whole tree. Nil for the loop workloads, which have no
	// fixed tree.
	joins func() int64
	// reset and result, if set, run untimed before and after every
	// iteration, and result gives the iteration's Result (the sort
	// workload's fresh copy of its input, and its check).
	reset  func()
	result func() Result
	// param is the parsed size, handed to the worksteal implementations.
	param any
}

// workload describes one workload: its names, sizes and parser.
type workload struct {
	name       string
	doc        string
	sizes      []string // full suite
	quickSizes []string // --quick suite
	parse      func(size string) (*problem, error)
}

// workloads in table order; each workload file adds itself from init.
var workloads []*workload

func register(w *workload) { workloads = append(workloads, w) }

func lookup(name string) (*workload, error) {
	for _, w := range workloads {
		if w.name == name {
			return w, nil
		}
	}
	return nil, fmt.Errorf("%w %q (want one of %v)", ErrUnknownWorkload, name, Workloads())
}

// Workloads returns the workload names, in table order.
func Workloads() []string {
	var out []string
	for _, w := range workloads {
		out = append(out, w.name)
	}
	return out
}

// Describe returns a one-line description of a workload.
func Describe(workload string) (string, error) {
	w, err := lookup(workload)
	if err != nil {
		return "", err
	}
	return w.doc, nil
}

// ImplsOf returns the implementations, built into this binary, that
// workload offers at size, in table order: every one for the fork-join
// workloads, fewer for the loops (see the package doc).
func ImplsOf(workload, size string) ([]Impl, error) {
	p, err := parse(workload, size)
	if err != nil {
		return nil, err
	}
	var out []Impl
	for _, im := range Impls() {
		if p.offers(workload, im) == nil {
			out = append(out, im)
		}
	}
	return out, nil
}

// Reference returns the published result of workload at size, if there is one.
func Reference(workload, size string) (Result, bool, error) {
	p, err := parse(workload, size)
	if err != nil {
		return Result{}, false, err
	}
	return p.ref, p.hasRef, nil
}

// Joins returns the number of binary fork-join points of the task tree of
// workload at size: a node with k children counts k−1. It is exact for every
// implementation that forks at every node (WG, WS, WSClosure). Sizes without a
// published count are computed by walking the tree sequentially, which takes
// about as long as one Seq iteration.
func Joins(workload, size string) (int64, error) {
	p, err := parse(workload, size)
	if err != nil {
		return 0, err
	}
	if p.joins == nil {
		return 0, fmt.Errorf("bench: %s is a loop, not a fork-join tree: it has no join count", workload)
	}
	return p.joins(), nil
}

func parse(workload, size string) (*problem, error) {
	w, err := lookup(workload)
	if err != nil {
		return nil, err
	}
	return w.parse(size)
}

// wsBackend builds the worksteal implementations; ws.go installs it. It is
// nil in a build without the worksteal runtime.
var wsBackend func(workload string, param any, impl Impl, workers int) (runner, error)

// MaxWorkers is the most workers a cell runs with. Each worker costs the
// Go runtime a P (GOMAXPROCS) and the pool a deque, about 70 KB in all
// (measured: 78 MB of memory at 1,024 workers, 290 MB at 4,096), and a
// benchmark gains nothing from more workers than cores.
const MaxWorkers = 1024

// Prepare builds the instance of workload at size, run by impl with the given
// number of workers (at least 1; Seq only runs with 1). It sets GOMAXPROCS to
// workers until Close.
func Prepare(workload, size string, impl Impl, workers int) (*Instance, error) {
	p, err := parse(workload, size)
	if err != nil {
		return nil, err
	}
	if workers < 1 || workers > MaxWorkers {
		return nil, fmt.Errorf("%w: %d workers (want 1..%d)", ErrBadWorkers, workers, MaxWorkers)
	}
	if impl == Seq && workers != 1 {
		return nil, fmt.Errorf("bench: %s runs with 1 worker only, got %d", impl, workers)
	}
	if err := p.offers(workload, impl); err != nil {
		return nil, err
	}
	in := &Instance{Workload: workload, Size: size, Impl: impl, Workers: workers}
	in.prevProcs = runtime.GOMAXPROCS(workers)
	switch impl {
	case Seq:
		in.run = funcRunner(p.seq)
	case WG:
		in.run = funcRunner(p.wg)
	case WGCutoff:
		in.run = funcRunner(p.wgCutoff)
	case Counter:
		in.run = funcRunner(p.counter)
	case WS, WSClosure:
		in.run, err = wsBackend(workload, p.param, impl, workers)
	}
	if err != nil {
		runtime.GOMAXPROCS(in.prevProcs)
		return nil, err
	}
	if p.reset != nil {
		in.run = untimedRunner{in.run, p.reset, p.result}
	}
	return in, nil
}

// offers checks that impl is a known implementation, built into this
// binary, that workload has.
func (p *problem) offers(workload string, impl Impl) error {
	var has bool
	switch impl {
	case Seq:
		has = p.seq != nil
	case WG:
		has = p.wg != nil
	case WGCutoff:
		has = p.wgCutoff != nil
	case Counter:
		has = p.counter != nil
	case WS, WSClosure:
		if wsBackend == nil {
			return fmt.Errorf("%w: %s (built without the worksteal runtime)", ErrUnavailable, impl)
		}
		has = wsBodies[workload] != nil && wsBodies[workload](p.param, impl) != nil
	default:
		_, err := ParseImpl(string(impl))
		return err
	}
	if !has {
		return fmt.Errorf("%w: %s has no %s implementation", ErrUnavailable, workload, impl)
	}
	return nil
}

// Run performs one iteration and times the computation only. An error comes
// from the worksteal pool (a task that panicked, a closed pool).
//
// Panics: if the instance is closed.
func (in *Instance) Run() (Iteration, error) {
	if in.closed {
		panic("bench: Run on a closed Instance")
	}
	r, elapsed, steals, err := in.run.iterate()
	return Iteration{Elapsed: elapsed, Result: r, Steals: steals}, err
}

// Close releases the instance's pool, if any, and restores GOMAXPROCS.
// Closing twice is a no-op.
func (in *Instance) Close() error {
	if in.closed {
		return nil
	}
	in.closed = true
	err := in.run.close()
	runtime.GOMAXPROCS(in.prevProcs)
	return err
}
