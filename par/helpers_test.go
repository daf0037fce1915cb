package par

import (
	"bytes"
	"runtime/pprof"
	"testing"
	"time"

	"github.com/worksteal/worksteal"
	"github.com/worksteal/worksteal/internal/testdeadline"
)

// newTestPool makes a pool and closes it when the test ends.
func newTestPool(t testing.TB, cfg worksteal.Config) *worksteal.Pool {
	t.Helper()
	p, err := worksteal.New(cfg)
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
// -timeout, not a fixed time): a deadlock or lost wake-up shows up as a
// failure with every stack, not as go test's bare timeout.
func watchdog(t testing.TB) (stop func()) {
	t.Helper()
	d := testdeadline.Left(t)
	done := make(chan struct{})
	go func() {
		select {
		case <-done:
		case <-time.After(d):
			var buf bytes.Buffer
			pprof.Lookup("goroutine").WriteTo(&buf, 2)
			panic("watchdog: test still running near its deadline (" + d.String() + " after it began to wait)\n" + buf.String())
		}
	}()
	return func() { close(done) }
}
