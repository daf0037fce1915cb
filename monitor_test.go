package worksteal

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/worksteal/worksteal/internal/machine"
	"github.com/worksteal/worksteal/internal/policyrt"
	"github.com/worksteal/worksteal/internal/testdeadline"
)

// untilDeadline returns a channel closed shortly before the test's own
// deadline (go test -timeout; testdeadline.Left), so that a wait that never
// ends fails the test with a diagnosis instead of a hang: no fixed short
// timeout, which a loaded machine could exceed.
func untilDeadline(t *testing.T) <-chan struct{} {
	return testdeadline.Context(t).Done()
}

// belowEager runs f on w at Join depth policyrt.EagerDepth, under trivial
// Joins: a Join there is latent (its half waits for a poll point), as a
// Join deep in a computation is; nearer the root, Joins push their halves
// at once (join.go, eager depths).
func belowEager(w *Worker, f func(w *Worker)) { nestJoins(w, policyrt.EagerDepth, f) }

func nestJoins(w *Worker, k int, f func(w *Worker)) {
	if k == 0 {
		f(w)
		return
	}
	Join(w, func(w *Worker) int { nestJoins(w, k-1, f); return 0 }, func(*Worker) int { return 0 })
}

// holdAWorker keeps one worker of p busy (spinning, without polling) until
// free is called, and returns its ID: a Join forked meanwhile on another
// worker finds nobody idle, so its second half stays latent.
func holdAWorker(t *testing.T, p *Pool) (id int, free func()) {
	var hold atomic.Bool
	hold.Store(true)
	busy := make(chan int, 1)
	mustSubmit(t, p, func(w *Worker) {
		busy <- w.ID()
		for hold.Load() {
			runtime.Gosched()
		}
	})
	return <-busy, func() { hold.Store(false) }
}

// A first half that waits for its own second half without polling: on a
// fresh 2-worker pool whose other worker was busy at the Join (so the
// half stayed latent) and went idle afterwards, nothing can hand the half
// over. The pool must not hang silently: the monitor reports the stalled
// worker, with its stack. The test then releases the first half itself.
//
// The Join is the latent frame (below the eager depths), or, one level
// deeper, a plain call (PROTOCOL.md "Join"), whose second half no poll
// point can ever offer: Join's doc forbids the wait; the monitor reports it.
func TestStallReportedForSelfWaitingHalf(t *testing.T) {
	spin := func(fbRan, released *atomic.Bool, _, _ <-chan struct{}) {
		for !fbRan.Load() && !released.Load() { // no poll point
			runtime.Gosched()
		}
	}
	t.Run("spinning", func(t *testing.T) {
		testSelfWaitReported(t, false, policyrt.EagerDepth, spin)
	})
	t.Run("blocked on a channel", func(t *testing.T) {
		testSelfWaitReported(t, true, policyrt.EagerDepth, func(_, _ *atomic.Bool, fbDone, release <-chan struct{}) {
			select { // no Blocking
			case <-fbDone:
			case <-release:
			}
		})
	})
	t.Run("spinning in a plain call", func(t *testing.T) {
		testSelfWaitReported(t, false, policyrt.EagerDepth+1, spin)
	})
}

func testSelfWaitReported(t *testing.T, blocked bool, depth int, wait func(fbRan, released *atomic.Bool, fbDone, release <-chan struct{})) {
	reports := make(chan Stall, 4)
	p := newTestPool(t, Config{Workers: 2, StallReport: 20 * time.Millisecond, OnStall: func(s Stall) {
		select {
		case reports <- s:
		default:
		}
	}})
	deadline := untilDeadline(t)

	// Keep one worker busy while the other forks, so the Join's poll finds
	// nobody idle and fb stays latent.
	var released, fbRan atomic.Bool
	other, free := holdAWorker(t, p)

	inA := make(chan int, 1)
	done := make(chan error, 1)
	fbDone, release := make(chan struct{}), make(chan struct{})
	go func() {
		_, err := Run(p, func(w *Worker) int {
			nestJoins(w, depth, func(w *Worker) {
				if plain := w.depth >= w.gate; plain != (depth > policyrt.EagerDepth) {
					t.Errorf("at depth %d the Join is a plain call: %v; want %v", depth, plain, depth > policyrt.EagerDepth)
				}
				Join(w, func(w *Worker) int {
					inA <- w.ID()
					wait(&fbRan, &released, fbDone, release) // waits for its own second half
					return 0
				}, func(*Worker) int { fbRan.Store(true); close(fbDone); return 0 })
			})
			return 0
		})
		done <- err
	}()
	var owner int
	select {
	case owner = <-inA:
	case <-deadline:
		dieHung("the first half never started")
	}
	if owner == other {
		t.Fatalf("the first half runs on worker %d, the one held busy", owner)
	}
	free() // the other worker goes idle; fb is latent on owner

	select {
	case s := <-reports:
		if !fbRan.Load() {
			if s.Worker != owner {
				t.Errorf("Stall.Worker = %d; want %d, the worker waiting in the first half", s.Worker, owner)
			}
			if s.Idle == 0 {
				t.Errorf("Stall.Idle = 0; want the idle worker counted")
			}
			if !strings.Contains(s.Stack, "testSelfWaitReported") {
				t.Errorf("Stall.Stack does not show the first half:\n%s", s.Stack)
			}
			if blockedState(s.State) != blocked {
				t.Errorf("Stall.State = %q; want blocked = %v", s.State, blocked)
			}
			if s.Since.IsZero() || s.For <= 0 || !strings.Contains(s.String(), fmt.Sprintf("worker %d ", owner)) {
				t.Errorf("Stall = %+v; want since, for and the worker in its text", s)
			}
		}
	case <-fbDone:
		t.Errorf("the second half ran elsewhere: the test's Join was not latent (depth %d)", policyrt.EagerDepth)
	case <-deadline:
		dieHung("the first half waits for its latent second half and the pool reported nothing")
	}
	released.Store(true)
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if !fbRan.Load() {
		t.Error("the second half never ran")
	}
}

// Tasks that block without Blocking (here on a channel, as on I/O) hold
// every worker; the tasks queued behind them must still run, on spares the
// monitor starts, while the blockers wait.
func TestBlockedWorkersGetSpares(t *testing.T) {
	p := newTestPool(t, Config{Workers: 2})
	deadline := untilDeadline(t)
	release := make(chan struct{})
	defer close(release)
	var entered sync.WaitGroup
	entered.Add(p.Workers())
	for range p.Workers() { // each blocks a distinct worker: a blocked one takes nothing more
		mustSubmit(t, p, func(*Worker) { entered.Done(); <-release })
	}
	entered.Wait()
	const quick = 50
	var ran sync.WaitGroup
	ran.Add(quick)
	for range quick {
		mustSubmit(t, p, func(*Worker) { ran.Done() })
	}
	allRan := make(chan struct{})
	go func() { ran.Wait(); close(allRan) }()
	select {
	case <-allRan:
	case <-deadline:
		dieHung("queued tasks never ran while every worker blocked outside Blocking")
	}
	if got := len(p.Stats().Workers); got <= p.Workers() {
		t.Errorf("len(Stats().Workers) = %d; want spares beyond the %d workers", got, p.Workers())
	}
}

// The state parser of the monitor reads the runtime's dump format.
func TestGoroutineStackParse(t *testing.T) {
	dump := []byte("goroutine 1 [running]:\nmain.f()\n\ngoroutine 12 [chan receive, 3 minutes]:\nmain.g()\n\ngoroutine 123 [sleep]:\nmain.h()\n")
	for _, tc := range []struct {
		id    uint64
		state string
	}{{1, "running"}, {12, "chan receive"}, {123, "sleep"}, {2, ""}} {
		st, stack := goroutineStack(dump, tc.id)
		if st != tc.state {
			t.Errorf("goroutineStack(%d) state = %q; want %q", tc.id, st, tc.state)
		}
		if tc.state != "" && !strings.HasPrefix(stack, fmt.Sprintf("goroutine %d [", tc.id)) {
			t.Errorf("goroutineStack(%d) stack = %q", tc.id, stack)
		}
	}
	if blockedState("running") || blockedState("runnable") || !blockedState("chan receive") || !blockedState("IO wait") {
		t.Error("blockedState misreads running/runnable/chan receive/IO wait")
	}
	// The compensation rule: waits for the runtime are not blocked.
	for _, tc := range []struct {
		stack string
		want  bool
	}{
		{"goroutine 7 [IO wait]:\ninternal/poll.runtime_pollWait(0x7f, 0x72)\n", true},
		{"goroutine 7 [semacquire]:\ninternal/poll.runtime_Semacquire(0xc0000a0)\n", true},
		{"goroutine 7 [semacquire]:\nsync.runtime_Semacquire(0xc0000a0)\n", true},
		{"goroutine 7 [semacquire]:\nmain.fib(0xc000283408, 0x3)\n", false}, // a GC start held up by a stop of the world
		{"goroutine 7 [GC assist wait]:\nmain.fib(0xc000283408, 0x3)\n", false},
		{"goroutine 7 [sync.Mutex.Lock]:\nsync.runtime_SemacquireMutex(0xc0000a0, 0x0, 0x1)\n", true},
		// The pool's own locks are held for a few instructions: a worker
		// waiting for one waits for a peer that is descheduled, not blocked.
		{"goroutine 7 [sync.Mutex.Lock]:\ninternal/sync.runtime_SemacquireMutex(0x1f?, 0x3?, 0x80?)\n\t/usr/local/go/src/runtime/sema.go:95 +0x25\n" +
			"internal/sync.(*Mutex).lockSlow(0xc00011a210)\n\t/usr/local/go/src/internal/sync/mutex.go:149 +0x1f3\n" +
			"sync.(*Mutex).Lock(0xc000164068?)\n\t/usr/local/go/src/sync/mutex.go:46 +0x15\n" +
			poolMethod + "sleepState).wakeOne(0xc00011a108)\n\t/src/park.go:106 +0x3c\n", false},
		{"goroutine 7 [sync.RWMutex.RLock]:\nsync.runtime_SemacquireRWMutexR(0xc0000a0, 0x0, 0x0)\n\t/go/src/runtime/sema.go:100 +0x25\n" +
			"sync.(*RWMutex).RLock(...)\n\t/go/src/sync/rwmutex.go:74\n" +
			poolMethod + "Pool).inject(0xc0000a0, 0x0, 0x0)\n\t/src/pool.go:190 +0x3c\n", false},
		// A task's own lock, even one taken by a closure of this package.
		{"goroutine 7 [sync.Mutex.Lock]:\ninternal/sync.runtime_SemacquireMutex(0x1f?, 0x3?, 0x80?)\n\t/usr/local/go/src/runtime/sema.go:95 +0x25\n" +
			"sync.(*Mutex).Lock(0xc000164068?)\n\t/usr/local/go/src/sync/mutex.go:46 +0x15\n" +
			"main.task(0xc00011a108)\n\t/src/main.go:10 +0x3c\n", true},
		{"goroutine 7 [sync.Mutex.Lock]:\nsync.(*Mutex).Lock(0xc000164068?)\n\t/usr/local/go/src/sync/mutex.go:46 +0x15\n" +
			strings.TrimSuffix(poolMethod, "(*") + "TestX.func1()\n\t/src/x_test.go:10 +0x3c\n", true},
		{"goroutine 7 [runnable]:\nmain.fib(0xc000283408, 0x3)\n", false},
	} {
		st, stack := goroutineStack([]byte(tc.stack+"\n"), 7)
		if got := blocked(st, stack); got != tc.want {
			t.Errorf("blocked(%q, stack %q) = %v; want %v", st, stack, got, tc.want)
		}
	}
}

// A pool whose workers progress whenever they get a CPU, on two Ps beside
// 32 CPU-bound goroutines of the same process: each worker waits about
// 16 scheduling slices (~160 ms) for a CPU between runs, far past
// StallReport, with work queued. It is runnable, not stalled by its own
// doing, and the monitor must not report it (it did, before it charged a
// runnable worker only the CPU time it can have had).
func TestNoStallReportedWhenDescheduled(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	var reports atomic.Int64
	var first atomic.Pointer[Stall]
	p := newTestPool(t, Config{Workers: 2, StallReport: 50 * time.Millisecond, OnStall: func(s Stall) {
		reports.Add(1)
		first.CompareAndSwap(nil, &s)
	}})
	var stop atomic.Bool
	var neighbours sync.WaitGroup
	for range 32 {
		neighbours.Go(func() {
			x := uint64(1)
			for !stop.Load() {
				x = xorshift(x, 1<<12) // CPU-bound: only preemption takes its P
			}
			sinkU.Store(x)
		})
	}
	defer neighbours.Wait()
	defer stop.Store(true)
	// Rounds of 400 tasks of about 20 × 10 µs of CPU each, polling between
	// steps: whenever a worker runs it progresses within microseconds. The
	// rounds go on until some worker has waited 3 × StallReport between
	// two steps (what a wall-clock monitor would report), bounded by the
	// test's deadline.
	var longest atomic.Int64 // ns: the longest wait of a worker between two of its steps
	deadline := untilDeadline(t)
	for longest.Load() < int64(150*time.Millisecond) {
		select {
		case <-deadline:
			t.Fatalf("no worker waited %v for a CPU beside the neighbours (longest %v): the test shows nothing", 150*time.Millisecond, time.Duration(longest.Load()))
		default:
		}
		var last [2]atomic.Int64
		err := p.Scope(t.Context(), func(w *Worker, s *Scope) error {
			for range 400 {
				s.Go(w, func(w *Worker) error {
					x := uint64(1)
					for range 20 {
						x = xorshift(x, 1<<10)
						w.Poll()
						now := time.Now().UnixNano()
						if prev := last[w.ID()%2].Swap(now); prev != 0 {
							for gap := now - prev; gap > longest.Load(); {
								if longest.CompareAndSwap(longest.Load(), gap) {
									break
								}
							}
						}
					}
					sinkU.Store(x)
					return nil
				})
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if n := reports.Load(); n > 0 {
		s := first.Load()
		t.Errorf("%d stall reports for workers that were only waiting for a CPU; the first:\n%v", n, s)
	}
}

var sinkU atomic.Uint64

// xorshift runs n steps of Marsaglia's xorshift from x: CPU-bound work
// without memory traffic (so no -race instrumentation), that only
// preemption can take off its P.
func xorshift(x uint64, n int) uint64 {
	for range n {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
	}
	return x
}

// A pool with more Ps than CPUs (GOMAXPROCS and the workers at 16 per CPU,
// as in a container that sees more CPUs than it may use) runs CPU-bound
// tasks that poll between steps of microseconds: whenever a worker runs,
// it progresses at once, and between two of its steps it only waits for a
// CPU, often for several times StallAfter. The monitor must not stop the
// world (a stack dump) to look at such workers: each dump costs tens of
// milliseconds with this many Ps on so few CPUs (the UTS benchmark took
// 17–25 % longer with them, BenchmarkStallMonitorOversubscribed). The
// rounds go on until the workers have waited at least 3 × StallAfter
// between two steps 200 times (each a stall for a monitor that counts
// wall time), bounded by the test's deadline; the monitor may have dumped
// for at most a tenth as many (with the wall-clock rule, stalledFor's
// before this test, it dumped for 44 and 49 of about 200).
func TestNoDumpsForWorkersWaitingForACPU(t *testing.T) {
	procs := 16 * runtime.NumCPU()
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
	const after = defaultStallAfter
	p := newTestPool(t, Config{Workers: procs, StallAfter: after, StallReport: time.Hour})
	const want = 200
	var waits atomic.Int64 // waits of 3 × after or more between two steps of one task
	deadline := untilDeadline(t)
	for round := 0; waits.Load() < want; round++ {
		select {
		case <-deadline:
			t.Fatalf("after %d rounds the workers had waited 3 × StallAfter between two steps %d times (want %d): the test shows nothing", round, waits.Load(), want)
		default:
		}
		err := p.Scope(t.Context(), func(w *Worker, s *Scope) error {
			for range 8 * procs {
				s.Go(w, func(w *Worker) error {
					x := uint64(1)
					prev := time.Now()
					for range 40 {
						x = xorshift(x, 1<<12)
						w.Poll()
						now := time.Now()
						if now.Sub(prev) >= 3*after {
							waits.Add(1)
						}
						prev = now
					}
					sinkU.Store(x)
					return nil
				})
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	d, n := MonitorDumps(p), waits.Load()
	t.Logf("%d waits of 3 × StallAfter or more between two steps; %d stack dumps", n, d)
	if d*10 > n {
		t.Errorf("the monitor stopped the world %d times for workers that waited for a CPU %d times (at most a tenth as many dumps)", d, n)
	}
}

// The share of a CPU the monitor charges a runnable worker: the process's
// CPU time over the interval, divided among the goroutines competing for
// it (less the monitor), at most one CPU each.
func TestShareOf(t *testing.T) {
	const dt = 100 * time.Millisecond
	for _, tc := range []struct {
		name              string
		dcpu              time.Duration
		running, runnable uint64
		want              float64
	}{
		{"quiet: a spinning worker has its CPU", dt, 2, 0, 1},
		{"two Ps, 32 CPU-bound neighbours", 2 * dt, 2, 32, 2.0 / 33},
		{"an overloaded machine gave the process a tenth of a CPU", dt / 10, 2, 0, 0.1},
		{"two busy workers on an overloaded machine", dt / 2, 3, 0, 0.25},
		{"more CPU than Ps (GC threads): still one CPU at most", 3 * dt, 2, 0, 1},
		{"every worker waits (I/O): nobody competes with the monitor", dt / 100, 1, 0, 1},
		{"16 busy workers on 16 Ps and 2 CPUs", 2 * dt, 17, 0, 2.0 / 16},
	} {
		if got := shareOf(tc.dcpu, dt, tc.running+tc.runnable); math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("%s: shareOf(%v, %v, %d running + %d runnable) = %v; want %v", tc.name, tc.dcpu, dt, tc.running, tc.runnable, got, tc.want)
		}
	}
}

// The share of a CPU a goroutine holding a P can have: a whole one while
// the running goroutines (less the monitor) are no more than the CPUs,
// the CPUs shared out among them beyond (GOMAXPROCS above the CPUs).
func TestOSShare(t *testing.T) {
	for _, tc := range []struct {
		name    string
		running uint64
		cpus    int
		want    float64
	}{
		{"nothing but the monitor", 1, 2, 1},
		{"a P per CPU, all busy", 3, 2, 1},
		{"16 workers on 16 Ps and 2 CPUs", 17, 2, 2.0 / 16},
		{"64 Ps on 16 CPUs", 65, 16, 0.25},
		{"one more running goroutine than CPUs", 4, 2, 2.0 / 3},
	} {
		if got := osShare(tc.running, tc.cpus); math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("%s: osShare(%d, %d) = %v; want %v", tc.name, tc.running, tc.cpus, got, tc.want)
		}
	}
}

// The CPUs a process may run on: NumCPU, or its cgroup's CPU quota
// rounded up where that is fewer (read from a fake machine).
func TestUsableCPUs(t *testing.T) {
	n := runtime.NumCPU()
	for _, tc := range []struct {
		name   string
		cpuMax string // "" : no cgroup files at all
		want   int
	}{
		{"no cgroup to read", "", n},
		{"no quota", "max 100000\n", n},
		{"a quota of one CPU", "100000 100000\n", 1},
		{"a quota of 1.5 CPUs", "150000 100000\n", min(n, 2)},
		{"a quota above the machine", "6400000 100000\n", n},
	} {
		root := t.TempDir()
		if tc.cpuMax != "" {
			for p, s := range map[string]string{"proc/self/cgroup": "0::/job\n", "sys/fs/cgroup/job/cpu.max": tc.cpuMax} {
				full := filepath.Join(root, p)
				if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(full, []byte(s), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}
		if got := usableCPUs(machine.FS{Root: root}); got != tc.want {
			t.Errorf("%s: usableCPUs = %d; want %d", tc.name, got, tc.want)
		}
	}
}

// Workers blocked outside Blocking beside CPU-bound goroutines that keep
// every P busy: the monitor's dumps back off while the Ps are saturated,
// but the tasks queued behind the blocked workers must still get spares
// and run (they would wait for the blockers for ever if saturation
// stopped the monitor from looking).
func TestBlockedWorkersGetSparesBesideCPUBoundGoroutines(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	// No report within the test (its dump would find the blocked workers
	// too): only the search for blocked workers may start the spares.
	p := newTestPool(t, Config{Workers: 2, StallReport: time.Hour, OnStall: func(Stall) {}})
	deadline := untilDeadline(t)
	var stop atomic.Bool
	var neighbours sync.WaitGroup
	defer neighbours.Wait()
	defer stop.Store(true)
	for range 8 {
		neighbours.Go(func() {
			x := uint64(1)
			for !stop.Load() {
				x = xorshift(x, 1<<12)
			}
			sinkU.Store(x)
		})
	}
	release := make(chan struct{})
	defer close(release)
	var entered sync.WaitGroup
	entered.Add(p.Workers())
	for range p.Workers() {
		mustSubmit(t, p, func(*Worker) { entered.Done(); <-release })
	}
	entered.Wait()
	const quick = 20
	var ran sync.WaitGroup
	ran.Add(quick)
	for range quick {
		mustSubmit(t, p, func(*Worker) { ran.Done() })
	}
	allRan := make(chan struct{})
	go func() { ran.Wait(); close(allRan) }()
	select {
	case <-allRan:
	case <-deadline:
		dieHung("queued tasks never ran while every worker blocked outside Blocking beside CPU-bound goroutines")
	}
}

// A CPU-bound pool oversubscribed on its Ps (4 workers on GOMAXPROCS 2, the
// dashboard example's fib on a 2-core machine, slowest under -race) whose
// leaves allocate, so that the garbage collector runs all the time: its
// workers are only ever running, runnable or waiting for the runtime (a GC
// assist, a GC start held up by the monitor's own stop-the-world dump).
// The monitor looks at them often (StallAfter 1 ms: each is descheduled
// for longer than that with work queued); it must never take a wait for
// the runtime for a blocked task and start a spare. The rounds go on until
// the monitor has found stalled workers in such waits, bounded by the
// test's deadline.
func TestNoSparesForAnOversubscribedCPUBoundPool(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	p := newTestPool(t, Config{Workers: 4, StallAfter: time.Millisecond, StallReport: 20 * time.Millisecond, OnStall: func(Stall) {}})
	deadline := untilDeadline(t)
	const seen = 3
	for round := 0; p.mon.runtimeWaits.Load() < seen; round++ {
		select {
		case <-deadline:
			t.Fatalf("after %d rounds the monitor had found %d stalled workers waiting for the runtime (want %d): the test shows nothing", round, p.mon.runtimeWaits.Load(), seen)
		default:
		}
		if n, _ := Run(p, func(w *Worker) int { return allocFib(w, 20) }); n != 6765 {
			t.Fatalf("allocFib(20) = %d", n)
		}
		if p.spares.active() {
			t.Fatalf("round %d: the monitor started a spare for a CPU-bound pool (Stats lists %d workers; %d stalled workers found waiting for the runtime so far)",
				round, len(p.Stats().Workers), p.mon.runtimeWaits.Load())
		}
	}
}

// allocFib is fib whose leaves allocate (garbage for the collector).
func allocFib(w *Worker, n int) int {
	if n < 2 {
		sinkAlloc.Store(new([256]byte))
		return n
	}
	a, b := Join(w, func(w *Worker) int { return allocFib(w, n-1) }, func(w *Worker) int { return allocFib(w, n-2) })
	return a + b
}

var sinkAlloc atomic.Pointer[[256]byte]

// BenchmarkStallMonitorCost: what the stall monitor costs a pool whose one
// worker runs a long leaf without progress (par.SortFunc at 1 worker is
// such a leaf: slices.SortFunc on a worker, issue 30). The leaf is a fixed
// CPU-bound spin of about 100 ms, run on a plain goroutine, on a 1-worker
// pool, and on one without the monitor (StallAfter -1); cpu-ms/op is the
// process's CPU time per leaf (monitor included), ms/op the wall time.
//
//	go test -run '^$' -bench StallMonitorCost -count 5 .
func BenchmarkStallMonitorCost(b *testing.B) {
	const iters = 100_000_000
	leaf := func() {
		x := uint64(1)
		x = xorshift(x, iters)
		sinkU.Store(x)
	}
	run := func(b *testing.B, f func()) {
		var cpu time.Duration
		cpuOK := true
		for b.Loop() {
			c0, ok0 := processCPU()
			f()
			c1, ok1 := processCPU()
			cpu += c1 - c0
			cpuOK = cpuOK && ok0 && ok1
		}
		b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/op")
		if cpuOK {
			b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/op")
		}
	}
	b.Run("on=goroutine", func(b *testing.B) {
		run(b, func() {
			done := make(chan struct{})
			go func() { leaf(); close(done) }()
			<-done
		})
	})
	for _, c := range []struct {
		name  string
		after time.Duration
	}{{"on=pool", 0}, {"on=pool-no-monitor", -1}} {
		b.Run(c.name, func(b *testing.B) {
			p := newTestPool(b, Config{Workers: 1, StallAfter: c.after})
			run(b, func() { p.Do(func(*Worker) { leaf() }) })
		})
	}
}
