package worksteal

import (
	"bytes"
	"runtime"
	"runtime/pprof"
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
