package worksteal

import (
	"bytes"
	"runtime"
	"runtime/pprof"
	"sync/atomic"
	"testing"
	"time"

	"github.com/worksteal/worksteal/internal/testdeadline"
)

// newTestPool makes a pool and closes it when the test ends.
func newTestPool(t testing.TB, cfg Config) *Pool {
	t.Helper()
	p, err := New(cfg)
	if err != nil {
		t.Fatalf("New(%+v): %v", cfg, err)
	}
	t.Cleanup(func() {
		if err := p.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return p
}

// watchdog fails the test with a goroutine dump if stop is not called
// before the test's own deadline nears (testdeadline.Left: go test's
// -timeout, not a fixed time, so a loaded machine only makes it slower): a
// deadlock or lost wake-up shows up as a failure with every stack, not as
// go test's bare timeout.
func watchdog(t testing.TB) (stop func()) {
	t.Helper()
	d := testdeadline.Left(t)
	done := make(chan struct{})
	go func() {
		select {
		case <-done:
		case <-time.After(d):
			panic("watchdog: test still running near its deadline (" + d.String() + " after it began to wait)\n" + goroutineStacks())
		}
	}()
	return func() { close(done) }
}

// dieHung ends the test binary with msg and every goroutine's stack. Call it
// when a test finds a goroutine or a pool stuck: t.Fatal would run the
// test's cleanup, whose Close waits on the same stuck work, and the
// diagnosis would never print (the failure would show as go test's
// timeout). It panics on a goroutine of its own, which no recover stops.
func dieHung(msg string) {
	stacks := goroutineStacks()
	go func() { panic(msg + "\n" + stacks) }()
	select {}
}

func goroutineStacks() string {
	var buf bytes.Buffer
	pprof.Lookup("goroutine").WriteTo(&buf, 2)
	return buf.String()
}

func fibSeq(n int) int {
	if n < 2 {
		return n
	}
	return fibSeq(n-1) + fibSeq(n-2)
}

// fibJoin forks fib(n-1) (the bigger half, offered to thieves) and runs
// fib(n-2) inline, with a join at every call.
func fibJoin(w *Worker, n int) int {
	if n < 2 {
		return n
	}
	a, b := JoinFunc(w, fibJoin, n-2, fibJoin, n-1)
	return a + b
}

// awaitPolling waits, inside a first half, for something only the Join's
// second half does, the way a user must (Worker.Poll): a second half is
// offered to idle workers at poll points only, so a first half that blocks
// on it without polling may wait for itself.
func awaitPolling(w *Worker, ch <-chan struct{}) {
	for {
		select {
		case <-ch:
			return
		default:
			w.Poll()
			runtime.Gosched()
		}
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
