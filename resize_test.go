package worksteal

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/worksteal/worksteal/internal/testdeadline"
	"github.com/worksteal/worksteal/internal/xrand"
	"github.com/worksteal/worksteal/policy"
)

// checkResize checks the invariants of resize.go: every retired worker is
// surplus, in no idle list, counted nowhere, with an empty deque.
func checkResize(t *testing.T, p *Pool) {
	t.Helper()
	p.resize.mu.Lock()
	defer p.resize.mu.Unlock()
	p.sleep.mu.Lock()
	defer p.sleep.mu.Unlock()
	active := int(p.resize.active.Load())
	seen := map[int]bool{}
	for _, w := range p.resize.retired {
		if seen[w.id] {
			t.Fatalf("worker %d is retired twice", w.id)
		}
		seen[w.id] = true
		if w.id < active {
			t.Fatalf("worker %d is retired but the active set is 0..%d", w.id, active-1)
		}
		if w.idleIdx >= 0 {
			t.Fatalf("retired worker %d is also in the idle list", w.id)
		}
		if n := w.dq.Len(); n != 0 {
			t.Fatalf("retired worker %d has %d jobs in its deque", w.id, n)
		}
	}
	if sleepers, _ := counts(p.sleep.state.Load()); int(sleepers) != len(p.sleep.idle) {
		t.Fatalf("sleepers = %d, idle list %d", sleepers, len(p.sleep.idle))
	}
}

// closeWithin closes p, failing the test if Close does not return (a
// parked worker that is never woken would hang it).
func closeWithin(t *testing.T, p *Pool) {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- p.Close() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Close: %v", err)
		}
	case <-time.After(testdeadline.Left(t)):
		t.Fatalf("Close did not return: a worker was left parked (retired %d)", p.retiredCount())
	}
}

func TestSetWorkersRange(t *testing.T) {
	p, err := New(Config{Workers: 3})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	for _, n := range []int{0, -1, 4} {
		if err := p.SetWorkers(n); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("SetWorkers(%d)", n)) {
			t.Errorf("SetWorkers(%d) = %v; want an error naming the value", n, err)
		}
	}
	if p.ActiveWorkers() != 3 {
		t.Errorf("ActiveWorkers() = %d after refused calls; want 3", p.ActiveWorkers())
	}
}

// TestSurplusWorkersTakeNoNewWork: once the computations running at a
// SetWorkers(2) have finished, the two surplus workers park for good and
// no later work runs on them — not Run, not Join halves, not Submit, not
// even SubmitTo naming them; raising the count wakes them.
func TestSurplusWorkersTakeNoNewWork(t *testing.T) {
	p, err := New(Config{Workers: 4})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Run(p, func(w *Worker) int { return fibJoin(w, 20) }); err != nil {
		t.Fatal(err)
	}
	if err := p.SetWorkers(2); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the two surplus workers to park for good", func() bool { return p.retiredCount() == 2 })
	checkResize(t, p)

	var mu sync.Mutex
	ran := map[int]int{}
	note := func(w *Worker) {
		mu.Lock()
		ran[w.ID()]++
		mu.Unlock()
	}
	var rec func(w *Worker, n int) int
	rec = func(w *Worker, n int) int {
		note(w)
		if n < 2 {
			return n
		}
		a, b := Join(w, func(w *Worker) int { return rec(w, n-1) }, func(w *Worker) int { return rec(w, n-2) })
		return a + b
	}
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if v, err := Run(p, func(w *Worker) int { return rec(w, 18) }); err != nil || v != 2584 {
				t.Errorf("fib 18 = %d, %v", v, err)
			}
		}()
		var done sync.WaitGroup
		done.Add(2)
		if err := p.Submit(func(w *Worker) { note(w); done.Done() }); err != nil {
			t.Fatal(err)
		}
		if err := p.SubmitTo(3-i%2, func(w *Worker) { note(w); done.Done() }); err != nil { // to a surplus worker's inbox
			t.Fatal(err)
		}
		done.Wait()
	}
	wg.Wait()
	for id, n := range ran {
		if id >= 2 && id < p.Workers() { // spares (the stall monitor's, if a task waited long on mu) are not surplus
			t.Errorf("surplus worker %d ran %d tasks after SetWorkers(2)", id, n)
		}
	}
	checkResize(t, p)

	if err := p.SetWorkers(4); err != nil {
		t.Fatal(err)
	}
	if n := p.retiredCount(); n != 0 {
		t.Errorf("%d workers still retired after SetWorkers(4)", n)
	}
	if p.ActiveWorkers() != 4 {
		t.Errorf("ActiveWorkers() = %d; want 4", p.ActiveWorkers())
	}
	closeWithin(t, p)
}

// TestSetWorkersStress resizes a pool at random while computations of every
// kind run: every result is right, every submitted task runs once, the
// invariants hold at every check, and Close returns.
func TestSetWorkersStress(t *testing.T) {
	workers, rounds := 4, 600
	if raceEnabled || testing.Short() {
		rounds = 150
	}
	p, err := New(Config{Workers: workers})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	resizerDone := make(chan struct{})
	var resizes atomic.Int64
	go func() {
		defer close(resizerDone)
		rng := xrand.New(7)
		for ctx.Err() == nil {
			if err := p.SetWorkers(1 + int(rng.Uint64()%uint64(workers))); err != nil {
				t.Error(err)
				return
			}
			resizes.Add(1)
			if resizes.Load()%16 == 0 {
				checkResize(t, p)
			}
			time.Sleep(time.Duration(rng.Uint64()%200) * time.Microsecond)
		}
	}()

	var submitted, executed atomic.Int64
	var wg sync.WaitGroup
	for g := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range rounds {
				switch (g + r) % 3 {
				case 0:
					if v, err := Run(p, func(w *Worker) int { return fibJoin(w, 16) }); err != nil || v != 987 {
						t.Errorf("fib 16 = %d, %v", v, err)
					}
				case 1:
					var sum atomic.Int64
					err := p.Scope(context.Background(), func(w *Worker, s *Scope) error {
						for i := range 32 {
							s.Spawn(w, func(w *Worker) { sum.Add(int64(fibJoin(w, 10) + i)) })
						}
						return nil
					})
					if want := int64(32*55 + 31*32/2); err != nil || sum.Load() != want {
						t.Errorf("scope sum = %d, %v; want %d", sum.Load(), err, want)
					}
				case 2:
					for i := range 8 {
						submitted.Add(1)
						f := func(w *Worker) { fibJoin(w, 8); executed.Add(1) }
						var err error
						if i%2 == 0 {
							err = p.SubmitTo(i%workers, f)
						} else {
							err = p.Submit(f)
						}
						if err != nil {
							t.Error(err)
						}
					}
				}
			}
		}()
	}
	wg.Wait()
	cancel()
	<-resizerDone
	closeWithin(t, p)
	if submitted.Load() != executed.Load() {
		t.Errorf("%d tasks submitted, %d executed", submitted.Load(), executed.Load())
	}
	t.Logf("%d resizes", resizes.Load())
}

// TestSetWorkersReachesAWorkerAboutToPark: a worker that checked the
// active count just before SetWorkers lowered it, and enters the idle list
// just after SetWorkers looked for it there, still retires (idle.go,
// recheck). The hook lowers the count at exactly that point, from the
// worker itself; without the surplus check in recheck the worker sleeps in
// the idle list and never retires.
func TestSetWorkersReachesAWorkerAboutToPark(t *testing.T) {
	p, err := New(Config{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	var fired atomic.Bool
	hook := func(w *Worker) {
		if w.pool == p && w.id == 1 && fired.CompareAndSwap(false, true) {
			if err := p.SetWorkers(1); err != nil {
				t.Error(err)
			}
		}
	}
	testBeforePark.Store(&hook)
	defer testBeforePark.Store(nil)
	done := make(chan struct{})
	if err := p.SubmitTo(1, func(*Worker) { close(done) }); err != nil {
		t.Fatal(err)
	}
	<-done
	waitUntil(t, "worker 1 to retire", func() bool { return p.retiredCount() == 1 })
	if !fired.Load() {
		t.Fatal("the hook never ran: worker 1 retired by another path")
	}
	checkResize(t, p)
	closeWithin(t, p)
}

// TestCloseWakesRetiredWorkers: a pool closed while some workers are
// parked for good closes (they exit), also when lowered again just before.
func TestCloseWakesRetiredWorkers(t *testing.T) {
	for _, n := range []int{1, 2, 3} {
		p, err := New(Config{Workers: 4})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Run(p, func(w *Worker) int { return fibJoin(w, 15) }); err != nil {
			t.Fatal(err)
		}
		p.SetWorkers(n)
		waitUntil(t, "the surplus workers to retire", func() bool { return p.retiredCount() == 4-n })
		closeWithin(t, p)
	}
}

// TestWakeUpReachesTheActiveSet: work submitted while a surplus worker is
// being retired runs. The retiring worker may be the one a Submit woke, or
// the searcher a Submit counted on; it passes the wake-up on as it stops
// searching, so an active worker always comes.
func TestWakeUpReachesTheActiveSet(t *testing.T) {
	iters := 1000
	if raceEnabled {
		iters = 300
	}
	p, err := New(Config{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	ran := make(chan struct{}, 1)
	task := func(*Worker) { ran <- struct{}{} }
	for i := range iters {
		if err := p.SetWorkers(2); err != nil {
			t.Fatal(err)
		}
		p.Submit(task)
		<-ran
		// Both workers parked: the lowering wakes worker 1 to retire it,
		// and the Submit below may see it counted as the searcher.
		waitUntil(t, "both workers to park", func() bool { s, _ := counts(p.sleep.state.Load()); return s == 2 })
		lowered := make(chan struct{})
		go func() { p.SetWorkers(1); close(lowered) }()
		if err := p.Submit(task); err != nil {
			t.Fatal(err)
		}
		select {
		case <-ran:
		case <-time.After(testdeadline.Left(t)):
			t.Fatalf("iteration %d: a task submitted as worker 1 retired never ran (retired %d)", i, p.retiredCount())
		}
		<-lowered
	}
	closeWithin(t, p)
}

// TestAdaptiveIdle: a pool with Idle.Adaptive computes right under bursts,
// and a pool that sits idle between bursts tunes its rounds down (parks
// that last far longer than the backoff budget).
func TestAdaptiveIdle(t *testing.T) {
	// One worker: with two, the second parks and is woken with work many
	// times inside each computation (promoted halves), and those quick
	// wake-ups rightly raise its rounds; only the idle gaps are the
	// subject here (failed 2 of ~6 CI runs with two workers).
	p, err := New(Config{Workers: 1, Idle: policy.Idle{Adaptive: true}})
	if err != nil {
		t.Fatal(err)
	}
	for range 12 {
		before := p.Stats().Workers
		if v, err := Run(p, func(w *Worker) int { return fibJoin(w, 15) }); err != nil || v != 610 {
			t.Fatalf("fib 15 = %d, %v", v, err)
		}
		// Idle: every worker parks (waited for, not assumed from a sleep:
		// on a loaded machine a worker may not run within 10 ms).
		time.Sleep(10 * time.Millisecond)
		for deadline := time.Now().Add(testdeadline.Left(t)); ; {
			parked := 0
			for i, ws := range p.Stats().Workers {
				if ws.Parks > before[i].Parks {
					parked++
				}
			}
			if parked == len(before) || time.Now().After(deadline) {
				break
			}
			time.Sleep(time.Millisecond)
		}
	}
	closeWithin(t, p)
	for _, w := range p.workers {
		if r := w.tuner.Rounds(); r >= 8 {
			t.Errorf("worker %d: %d rounds after 12 idle gaps of 10 ms; want fewer than the starting 8", w.id, r)
		}
	}
}

// A worker made surplus while its deque holds tasks it queued runs them
// before it retires (SetWorkers' doc: nothing queued is lost). Worker 1
// queues 64 tasks and lowers the pool to one worker; worker 0 spins
// without polling until they have run, so only worker 1 can run them: it
// must drain its deque before it parks for good. With a surplus worker
// retiring without popping its deque, they wait for ever (under -race
// the invariant check at the retirement panics first).
func TestSurplusWorkerRunsItsQueuedTasksBeforeRetiring(t *testing.T) {
	p := newTestPool(t, Config{Workers: 2, OnStall: func(Stall) {}})
	deadline := untilDeadline(t)
	const tasks = 64
	for {
		var ran, onOne atomic.Int64
		root := -1
		err := p.Scope(t.Context(), func(w *Worker, s *Scope) error {
			if root = w.ID(); root != 0 {
				return nil // the scenario needs the root on worker 0: again
			}
			var started atomic.Bool
			s.Spawn(w, func(w *Worker) { // stolen by worker 1: worker 0 spins below
				started.Store(true)
				for range tasks {
					s.Spawn(w, func(w *Worker) {
						if w.ID() == 1 {
							onOne.Add(1)
						}
						ran.Add(1)
					})
				}
				if err := p.SetWorkers(1); err != nil {
					t.Error(err)
				}
			})
			for !started.Load() || ran.Load() < tasks { // no poll point: worker 0 takes nothing
				select {
				case <-deadline:
					t.Errorf("%d of %d tasks queued by worker 1 ran after it became surplus: it retired without running its deque", ran.Load(), tasks)
					return nil // the scope's wait runs the rest
				default:
				}
				runtime.Gosched()
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if err := p.SetWorkers(2); err != nil {
			t.Fatal(err)
		}
		if root != 0 {
			select {
			case <-deadline:
				t.Fatal("the scope's root never ran on worker 0")
			default:
			}
			continue
		}
		if got := onOne.Load(); got != tasks && !t.Failed() {
			t.Errorf("worker 1 ran %d of the %d tasks it queued; want all (worker 0 took none)", got, tasks)
		}
		return
	}
}
