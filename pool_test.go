package worksteal

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log"
	"os"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/worksteal/worksteal/internal/testdeadline"
	"github.com/worksteal/worksteal/policy"
)

func TestConfig(t *testing.T) {
	defer watchdog(t)()
	// Every invalid Config is refused with an error that names the field.
	invalid := []struct {
		name  string
		cfg   Config
		field string // must appear in the error
	}{
		{"negative Workers", Config{Workers: -1}, "Config.Workers"},
		{"too many Workers", Config{Workers: 1<<16 + 1}, "Config.Workers"},
		{"unknown Victim", Config{Victim: policy.Locality + 1}, "Config.Victim"},
		{"unknown Steal", Config{Steal: policy.StealOne + 1}, "Config.Steal"},
		{"Idle jitter above 1", Config{Idle: policy.Idle{Jitter: 1.5}}, "Config.Idle"},
		{"negative Idle jitter", Config{Idle: policy.Idle{Jitter: -0.1}}, "Config.Idle"},
		{"negative Idle base", Config{Idle: policy.Idle{Base: -time.Microsecond}}, "Config.Idle"},
		{"Idle cap below base", Config{Idle: policy.Idle{Base: time.Millisecond, Cap: time.Microsecond}}, "Config.Idle"},
	}
	if !pinSupported {
		invalid = append(invalid, struct {
			name  string
			cfg   Config
			field string
		}{"Pin where unsupported", Config{Pin: true}, "Config.Pin"})
	}
	for _, tc := range invalid {
		t.Run(tc.name, func(t *testing.T) {
			p, err := New(tc.cfg)
			if err == nil {
				p.Close()
				t.Fatalf("New(%+v) = nil error; want one naming %s", tc.cfg, tc.field)
			}
			if p != nil {
				t.Errorf("New(%+v) returned a pool with error %v", tc.cfg, err)
			}
			if msg := err.Error(); !strings.Contains(msg, tc.field) || !strings.HasPrefix(msg, "worksteal: ") {
				t.Errorf("New(%+v) error %q; want the prefix \"worksteal: \" and the field %s", tc.cfg, msg, tc.field)
			}
		})
	}

	t.Run("Workers 0 means GOMAXPROCS", func(t *testing.T) {
		p := newTestPool(t, Config{})
		if got, want := p.Workers(), runtime.GOMAXPROCS(0); got != want {
			t.Errorf("Workers() = %d; want GOMAXPROCS = %d", got, want)
		}
		if got := p.Config().Workers; got != p.Workers() {
			t.Errorf("Config().Workers = %d; want %d", got, p.Workers())
		}
	})

	t.Run("defaults are filled in", func(t *testing.T) {
		p := newTestPool(t, Config{Workers: 3})
		c := p.Config()
		if c.Idle != policy.DefaultIdle {
			t.Errorf("Config().Idle = %+v; want policy.DefaultIdle %+v", c.Idle, policy.DefaultIdle)
		}
		if c.MaxBlocking != 256 {
			t.Errorf("Config().MaxBlocking = %d; want 256 (the default for up to 64 workers)", c.MaxBlocking)
		}
		if c.StallAfter != DefaultStallAfter || c.StallReport != DefaultStallReport {
			t.Errorf("Config().StallAfter, StallReport = %v, %v; want the defaults %v, %v", c.StallAfter, c.StallReport, DefaultStallAfter, DefaultStallReport)
		}
		if c.Seed == 0 {
			t.Errorf("Config().Seed = 0; want the default seed filled in")
		}
	})
}

// New(p.Config()) makes a pool with the same settings: Config() returns
// every field so that it means the same again (a negative MaxBlocking,
// "compensation off", stays negative; 0 would mean the default).
func TestConfigRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  Config
	}{
		{"defaults", Config{Workers: 2}},
		{"policies", Config{Workers: 2, MaxBlocking: 5, Steal: policy.StealHalf, Victim: policy.Locality, Groups: policy.EvenGroups(2, 1)}},
		{"negative Idle rounds", Config{Workers: 2, Idle: policy.Idle{Rounds: -1}}},
		{"compensation off", Config{Workers: 2, MaxBlocking: -1}},
		{"monitor off", Config{Workers: 2, StallAfter: -1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := tc.cfg
			p1 := newTestPool(t, cfg)
			p2 := newTestPool(t, p1.Config())
			if c1, c2 := p1.Config(), p2.Config(); !reflect.DeepEqual(c1, c2) {
				t.Errorf("New(p.Config()).Config() = %+v; want p.Config() = %+v (New(%+v))", c2, c1, cfg)
			}
		})
	}
}

// TestEveryEntryPointReturnsErrClosedAfterClose: every entry point returns ErrClosed after Close.
func TestEveryEntryPointReturnsErrClosedAfterClose(t *testing.T) {
	defer watchdog(t)()
	p, err := New(Config{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Close(); err != nil {
		t.Fatalf("Close = %v", err)
	}
	noop := func(*Worker) {}
	if _, err := Run(p, func(*Worker) int { t.Error("Run after Close ran f"); return 0 }); !errors.Is(err, ErrClosed) {
		t.Errorf("Run after Close = %v; want ErrClosed", err)
	}
	err = p.Scope(context.Background(), func(*Worker, *Scope) error { t.Error("Scope after Close ran body"); return nil })
	if !errors.Is(err, ErrClosed) {
		t.Errorf("Scope after Close = %v; want ErrClosed", err)
	}
	if err := p.Submit(noop); !errors.Is(err, ErrClosed) {
		t.Errorf("Submit after Close = %v; want ErrClosed", err)
	}
	if err := p.SubmitTo(1, noop); !errors.Is(err, ErrClosed) {
		t.Errorf("SubmitTo after Close = %v; want ErrClosed", err)
	}
	if err := p.SubmitSpread(noop); !errors.Is(err, ErrClosed) {
		t.Errorf("SubmitSpread after Close = %v; want ErrClosed", err)
	}
}

// TestRunReturnsTheResult: Run returns the result.
func TestRunReturnsTheResult(t *testing.T) {
	defer watchdog(t)()
	p := newTestPool(t, Config{Workers: 2})
	got, err := Run(p, func(w *Worker) string { return fmt.Sprint(fibJoin(w, 12)) })
	if err != nil || got != "144" {
		t.Fatalf("Run = %q, %v; want \"144\", nil", got, err)
	}
}

// TestSubmitRunsEveryTaskExactlyOnce: Submit, SubmitTo and SubmitSpread,
// from one and from four goroutines; each task counts its own runs: every
// task must run exactly once.
func TestSubmitRunsEveryTaskExactlyOnce(t *testing.T) {
	defer watchdog(t)()
	n := 20000
	if testing.Short() {
		n = 2000
	}
	entries := []struct {
		name   string
		submit func(p *Pool, i int, f func(*Worker)) error
	}{
		{"Submit", func(p *Pool, _ int, f func(*Worker)) error { return p.Submit(f) }},
		{"SubmitTo", func(p *Pool, i int, f func(*Worker)) error { return p.SubmitTo(i%p.Workers(), f) }},
		{"SubmitSpread", func(p *Pool, _ int, f func(*Worker)) error { return p.SubmitSpread(f) }},
	}
	for _, e := range entries {
		for _, submitters := range []int{1, 4} {
			t.Run(fmt.Sprintf("%s runs every task exactly once/submitters=%d", e.name, submitters), func(t *testing.T) {
				p := newTestPool(t, Config{Workers: 3})
				runs := make([]atomic.Int32, n)
				var wg sync.WaitGroup
				wg.Add(n)
				var submit sync.WaitGroup
				for g := range submitters {
					submit.Add(1)
					go func() {
						defer submit.Done()
						for i := g; i < n; i += submitters {
							if err := e.submit(p, i, func(*Worker) { runs[i].Add(1); wg.Done() }); err != nil {
								t.Errorf("%s(task %d) = %v", e.name, i, err)
								wg.Done()
							}
						}
					}()
				}
				submit.Wait()
				wg.Wait()
				for i := range runs {
					if got := runs[i].Load(); got != 1 {
						t.Fatalf("task %d ran %d times; want 1", i, got)
					}
				}
			})
		}
	}
}

// TestSubmitSpreadSpreadsOverTheInboxes: SubmitSpread spreads over the inboxes.
func TestSubmitSpreadSpreadsOverTheInboxes(t *testing.T) {
	defer watchdog(t)()
	p := newTestPool(t, Config{Workers: 4})
	// Hold every worker so that the tasks stay in the inboxes.
	release := make(chan struct{})
	var held sync.WaitGroup
	held.Add(4)
	for range 4 {
		mustSubmit(t, p, func(*Worker) { held.Done(); <-release })
	}
	held.Wait()
	var done sync.WaitGroup
	done.Add(8)
	for range 8 {
		if err := p.SubmitSpread(func(*Worker) { done.Done() }); err != nil {
			t.Fatal(err)
		}
	}
	for i, w := range p.workers {
		if got := w.inbox.len(); got != 2 {
			t.Errorf("worker %d inbox holds %d tasks after 8 SubmitSpread on 4 workers; want 2", i, got)
		}
	}
	close(release)
	done.Wait()
}

// TestSubmitToRefusesWorkerOutOfRange: SubmitTo refuses a worker out of range.
func TestSubmitToRefusesWorkerOutOfRange(t *testing.T) {
	defer watchdog(t)()
	p := newTestPool(t, Config{Workers: 2})
	for _, i := range []int{-1, 2, 100} {
		err := p.SubmitTo(i, func(*Worker) { t.Errorf("SubmitTo(%d) ran the task", i) })
		if err == nil || errors.Is(err, ErrClosed) {
			t.Errorf("SubmitTo(%d) = %v; want an out-of-range error", i, err)
		}
	}
	if err := p.SubmitTo(0, nil); err == nil {
		t.Errorf("SubmitTo(0, nil) = nil; want an error")
	}
	if err := p.Submit(nil); err == nil {
		t.Errorf("Submit(nil) = nil; want an error")
	}
}

// TestOnPanicReceivesSubmittedPanics: OnPanic receives submitted panics.
func TestOnPanicReceivesSubmittedPanics(t *testing.T) {
	defer watchdog(t)()
	var mu sync.Mutex
	got := map[any]*PanicError{}
	var handled sync.WaitGroup
	const k = 10
	handled.Add(k)
	p, err := New(Config{Workers: 2, OnPanic: func(pe *PanicError) {
		mu.Lock()
		got[pe.Value] = pe
		mu.Unlock()
		handled.Done()
	}})
	if err != nil {
		t.Fatal(err)
	}
	for i := range k {
		mustSubmit(t, p, func(*Worker) { submittedTaskPanics(i) })
	}
	handled.Wait()
	if err := p.Close(); err != nil {
		t.Errorf("Close = %v; want nil: OnPanic took every panic", err)
	}
	for i := range k {
		pe := got[i]
		if pe == nil {
			t.Errorf("OnPanic never received panic %d", i)
			continue
		}
		if !strings.Contains(string(pe.Stack), "submittedTaskPanics") {
			t.Errorf("panic %d: stack lacks the panicking function:\n%s", i, pe.Stack)
		}
	}
}

// TestCloseReturnsFirstPanicWithoutOnPanic: without OnPanic Close returns the first panic.
func TestCloseReturnsFirstPanicWithoutOnPanic(t *testing.T) {
	defer watchdog(t)()
	// One worker takes the injector in FIFO order: "first" panics first.
	p, err := New(Config{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	var logged bytes.Buffer
	log.SetOutput(&logged)
	defer log.SetOutput(os.Stderr)
	mustSubmit(t, p, func(*Worker) { submittedTaskPanics("first") })
	mustSubmit(t, p, func(*Worker) { submittedTaskPanics("second") })
	err = p.Close()
	var pe *PanicError
	if !errors.As(err, &pe) || pe.Value != "first" {
		t.Fatalf("Close = %v; want *PanicError with Value \"first\"", err)
	}
	// Each panic is also logged, with its stack, for callers that drop
	// Close's result.
	for _, want := range []string{"panicked (set Config.OnPanic to handle it): worksteal: task panicked: first", "task panicked: second", "submittedTaskPanics"} {
		if !strings.Contains(logged.String(), want) {
			t.Errorf("log lacks %q:\n%s", want, logged.String())
		}
	}
	if err := p.Close(); err != nil {
		t.Errorf("second Close = %v; want nil", err)
	}
}

// TestCloseWaitsForQueuedWorkAndWhatItSpawns: Close waits for queued work and what it spawns.
func TestCloseWaitsForQueuedWorkAndWhatItSpawns(t *testing.T) {
	defer watchdog(t)()
	n := 10000
	if testing.Short() {
		n = 2000
	}
	p, err := New(Config{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	var ran, spawned atomic.Int64
	for i := range n {
		mustSubmit(t, p, func(w *Worker) {
			ran.Add(1)
			if i%100 == 0 { // some tasks fork more work
				_ = w.Scope(context.Background(), func(w *Worker, s *Scope) error {
					for range 10 {
						s.Spawn(w, func(w *Worker) { fibJoin(w, 8); spawned.Add(1) })
					}
					return nil
				})
			}
		})
	}
	if err := p.Close(); err != nil {
		t.Fatalf("Close = %v", err)
	}
	if got := ran.Load(); got != int64(n) {
		t.Errorf("after Close %d of %d submitted tasks ran", got, n)
	}
	if got, want := spawned.Load(), int64(n/100*10); got != want {
		t.Errorf("after Close %d of %d spawned tasks ran", got, want)
	}
	if err := p.Close(); err != nil {
		t.Errorf("second Close = %v; want nil", err)
	}
}

// TestCloseFromManyGoroutines: Close from many goroutines.
func TestCloseFromManyGoroutines(t *testing.T) {
	defer watchdog(t)()
	p, err := New(Config{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	const n = 1000
	var ran atomic.Int64
	for range n {
		mustSubmit(t, p, func(*Worker) { ran.Add(1) })
	}
	var closers sync.WaitGroup
	for g := range 16 {
		closers.Add(1)
		go func() {
			defer closers.Done()
			if err := p.Close(); err != nil {
				t.Errorf("Close (goroutine %d) = %v", g, err)
			}
			// Whichever Close returns, the pool has drained.
			if got := ran.Load(); got != n {
				t.Errorf("Close (goroutine %d) returned after %d of %d tasks ran", g, got, n)
			}
		}()
	}
	closers.Wait()
}

// TestPanicNeverKillsWorker: a panic never kills a worker.
func TestPanicNeverKillsWorker(t *testing.T) {
	defer watchdog(t)()
	const workers = 4
	var handled atomic.Int64
	// StallAfter < 0: the barrier below blocks every worker outside
	// Blocking, and the monitor would start a spare to stand in for one.
	p := newTestPool(t, Config{Workers: workers, StallAfter: -1, OnPanic: func(*PanicError) { handled.Add(1) }})
	// Panics by every route: submitted tasks, Run, Join halves, scope tasks.
	const k = 50
	for i := range k {
		mustSubmit(t, p, func(*Worker) { panic(i) })
	}
	for range k {
		catchPanic(func() {
			Run(p, func(w *Worker) int {
				a, b := Join(w,
					func(w *Worker) int { return fibJoin(w, 8) },
					func(*Worker) int { panic("b") })
				return a + b
			})
		})
		catchPanic(func() {
			p.Scope(context.Background(), func(w *Worker, s *Scope) error {
				s.Spawn(w, func(*Worker) { panic("task") })
				return nil
			})
		})
	}
	waitUntil(t, "OnPanic took every submitted panic", func() bool { return handled.Load() == k })
	// Now all workers must be alive: a barrier that needs one task on
	// each of them at once (no Blocking, so no spare can stand in).
	ids := onEveryWorker(t, p)
	for id := range workers {
		if !ids[id] {
			t.Errorf("worker %d ran none of the barrier tasks (ids %v)", id, ids)
		}
	}
	if got, _ := Run(p, func(w *Worker) int { return fibJoin(w, 15) }); got != 610 {
		t.Errorf("after panics fib(15) = %d; want 610", got)
	}
}

// TestRunReraisesPanicsAsPanicError: Run re-raises panics as *PanicError.
func TestRunReraisesPanicsAsPanicError(t *testing.T) {
	defer watchdog(t)()
	p := newTestPool(t, Config{Workers: 2})
	sentinel := fs.ErrNotExist
	cases := []struct {
		name string
		f    func(w *Worker) int
		site string // function name the stack must show
		is   error  // errors.Is target, if any
	}{
		{"panic in f", func(w *Worker) int { runPanics("boom"); return 0 }, "runPanics", nil},
		{"panic with an error value", func(w *Worker) int { runPanics(sentinel); return 0 }, "runPanics", sentinel},
		{"panic with a wrapped error", func(w *Worker) int { runPanics(fmt.Errorf("open: %w", sentinel)); return 0 }, "runPanics", sentinel},
		{"panic in a joined half", func(w *Worker) int {
			a, b := Join(w,
				func(w *Worker) int { return fibJoin(w, 10) },
				func(w *Worker) int { runPanics("half"); return 0 })
			return a + b
		}, "runPanics", nil},
		{"panic in a nested scope task", func(w *Worker) int {
			w.Scope(context.Background(), func(w *Worker, s *Scope) error {
				s.Spawn(w, func(w *Worker) { runPanics(&customErr{code: 7}) })
				return nil
			})
			return 0
		}, "runPanics", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := catchPanic(func() { Run(p, tc.f) })
			pe, ok := r.(*PanicError)
			if !ok {
				t.Fatalf("Run panicked with %T %v; want *PanicError", r, r)
			}
			if !strings.Contains(string(pe.Stack), tc.site) {
				t.Errorf("stack lacks %s:\n%s", tc.site, pe.Stack)
			}
			if !strings.Contains(pe.Error(), fmt.Sprint(pe.Value)) {
				t.Errorf("Error() = %q; want it to show the value %v", pe.Error(), pe.Value)
			}
			if tc.is != nil && !errors.Is(pe, tc.is) {
				t.Errorf("errors.Is(%v, %v) = false; want true through Unwrap", pe.Value, tc.is)
			}
			if _, isErr := pe.Value.(error); !isErr && pe.Unwrap() != nil {
				t.Errorf("Unwrap() = %v for a non-error value; want nil", pe.Unwrap())
			}
		})
	}
	t.Run("errors.As finds a custom error type", func(t *testing.T) {
		r := catchPanic(func() { Run(p, cases[4].f) })
		var ce *customErr
		if err, _ := r.(error); !errors.As(err, &ce) || ce.code != 7 {
			t.Fatalf("errors.As(%v, *customErr) failed; want code 7", r)
		}
	})
	// The pool survives all of it.
	if got, _ := Run(p, func(w *Worker) int { return fibJoin(w, 12) }); got != 144 {
		t.Errorf("after panics fib(12) = %d; want 144", got)
	}
}

// A submission that races Close either returns ErrClosed or its task runs
// before Close returns: Submit, SubmitTo and Run never accept a task that
// nobody will run. The test stops the call exactly between its acceptance
// and its push (it holds the queue's lock, and sees the call counted in
// flight), starts Close, waits until Close is blocked behind the pending
// push (a writer waits on submitMu: TryRLock fails), then lets the push
// finish.
func TestSubmitRacingCloseNeverStrandsTask(t *testing.T) {
	defer watchdog(t)()
	cases := []struct {
		name  string
		queue func(p *Pool) *queue
		call  func(p *Pool, ran *atomic.Bool) error
	}{
		{"Submit", func(p *Pool) *queue { return &p.injector },
			func(p *Pool, ran *atomic.Bool) error { return p.Submit(func(*Worker) { ran.Store(true) }) }},
		{"SubmitTo", func(p *Pool) *queue { return &p.workers[1].inbox },
			func(p *Pool, ran *atomic.Bool) error { return p.SubmitTo(1, func(*Worker) { ran.Store(true) }) }},
		{"Run", func(p *Pool) *queue { return &p.injector },
			func(p *Pool, ran *atomic.Bool) error {
				_, err := Run(p, func(*Worker) int { ran.Store(true); return 0 })
				return err
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p, err := New(Config{Workers: 2})
			if err != nil {
				t.Fatal(err)
			}
			q := tc.queue(p)
			q.mu.Lock()
			var ran atomic.Bool
			called := make(chan error, 1)
			go func() { called <- tc.call(p, &ran) }()
			for p.inflight.Load() == 0 { // accepted, now waiting to push
				runtime.Gosched()
			}
			closed := make(chan error, 1)
			go func() { closed <- p.Close() }()
			for p.submitMu.TryRLock() { // until Close waits for the pending push
				p.submitMu.RUnlock()
				runtime.Gosched()
			}
			q.mu.Unlock()
			if err := <-closed; err != nil {
				t.Fatalf("Close = %v", err)
			}
			if !ran.Load() {
				t.Errorf("Close returned before the task %s accepted had run", tc.name)
			}
			if err := <-called; err != nil {
				t.Errorf("%s = %v; want nil: it was accepted before Close", tc.name, err)
			}
		})
	}
}

// A task that calls runtime.Goexit (as t.FailNow, t.Fatal and t.SkipNow
// do) — the function of a Run, a submitted task, or a stolen Join half —
// is reported as failed (never as success), nobody waiting for it hangs,
// and the pool keeps all its workers: Goexit cannot be recovered, so the
// worker's goroutine exits and a replacement takes over the worker.
func TestGoexitInTaskIsReportedAndWorkerReplaced(t *testing.T) {
	cases := []struct {
		name    string
		workers int
		run     func(p *Pool) (panicked any, err error)
	}{
		{"Run's f calls Goexit", 1, func(p *Pool) (any, error) {
			var err error
			r := catchPanic(func() { _, err = Run(p, func(*Worker) int { runtime.Goexit(); return 1 }) })
			return r, err
		}},
		{"a submitted task calls Goexit", 1, func(p *Pool) (any, error) { // reported to OnPanic (set below)
			ran := make(chan struct{})
			if err := p.Submit(func(*Worker) { close(ran); runtime.Goexit() }); err != nil {
				return nil, err
			}
			<-ran
			return "submitted", nil // nothing to report to; the pool must survive
		}},
		{"a stolen Join half calls Goexit", 2, func(p *Pool) (any, error) {
			var err error
			r := catchPanic(func() {
				_, err = Run(p, func(w *Worker) int {
					var stolen atomic.Bool
					a, b := Join(w,
						func(w *Worker) int {
							for !stolen.Load() { // fb can only start on the other worker
								w.Poll() // fb is offered at poll points
								runtime.Gosched()
							}
							return 1
						},
						func(*Worker) int { stolen.Store(true); runtime.Goexit(); return 2 })
					return a + b
				})
			})
			return r, err
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p, err := New(Config{Workers: tc.workers, StallAfter: -1, OnPanic: func(*PanicError) {}}) // no spare in the barrier
			if err != nil {
				t.Fatal(err)
			}
			var r any
			if !within(t, func() { r, err = tc.run(p) }) {
				t.Fatalf("the call did not return before the test's deadline (its goroutine and the pool stay blocked)")
			}
			if r == nil && err == nil {
				t.Errorf("Run returned a nil error without panicking: Goexit in f looks like success")
			}
			// The pool must still have all its workers.
			var ids map[int]bool
			if !within(t, func() { ids = onEveryWorkerNoFatal(p) }) || len(ids) != tc.workers {
				t.Fatalf("after Goexit the pool no longer runs a task on each of its %d workers (got %v): a worker goroutine died", tc.workers, ids)
			}
			if !within(t, func() { err = p.Close() }) {
				t.Fatalf("Close did not return before the test's deadline")
			}
		})
	}
}

// within runs f on a new goroutine and reports whether it returned before
// the test's deadline nears (testdeadline.Left); if not, the goroutine is
// left running.
func within(t testing.TB, f func()) bool {
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
		return true
	case <-time.After(testdeadline.Left(t)):
		return false
	}
}

// onEveryWorkerNoFatal is onEveryWorker for use off the test goroutine: it
// blocks until one task has run on each worker at once (a barrier), and
// returns their ids.
func onEveryWorkerNoFatal(p *Pool) map[int]bool {
	n := p.Workers()
	var arrived atomic.Int32
	all := make(chan struct{})
	ids := make(chan int, n)
	for range n {
		if p.Submit(func(w *Worker) {
			if arrived.Add(1) == int32(n) {
				close(all)
			}
			<-all
			ids <- w.ID()
		}) != nil {
			return nil
		}
	}
	got := map[int]bool{}
	for range n {
		got[<-ids] = true
	}
	return got
}

type customErr struct{ code int }

func (e *customErr) Error() string { return fmt.Sprintf("custom error %d", e.code) }

// runPanics and submittedTaskPanics are named so that a test can find the
// panic site in a PanicError's stack.
func runPanics(v any) { panic(v) }

func submittedTaskPanics(v any) { panic(v) }

// catchPanic runs f and returns what it panicked with, or nil.
func catchPanic(f func()) (r any) {
	defer func() { r = recover() }()
	f()
	return nil
}

// onEveryWorker submits one task per worker that waits until all of them
// run at once (a barrier), and returns the ids of the workers that ran them.
// It fails the test if the barrier is not reached before the test's deadline nears, as happens
// when a worker has died.
func onEveryWorker(t testing.TB, p *Pool) map[int]bool {
	t.Helper()
	n := p.Workers()
	var arrived atomic.Int32
	all := make(chan struct{})
	timeout := make(chan struct{})
	timer := time.AfterFunc(testdeadline.Left(t), func() { close(timeout) })
	defer timer.Stop()
	ids := make(chan int, n)
	for range n {
		mustSubmit(t, p, func(w *Worker) {
			if arrived.Add(1) == int32(n) {
				close(all)
			}
			select {
			case <-all:
				ids <- w.ID()
			case <-timeout:
				ids <- -1
			}
		})
	}
	got := map[int]bool{}
	for range n {
		id := <-ids
		if id < 0 {
			t.Fatalf("only %d of %d workers took a barrier task before the test's deadline", arrived.Load(), n)
		}
		got[id] = true
	}
	return got
}
