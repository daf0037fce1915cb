package par

import (
	"bytes"
	"runtime/pprof"
	"testing"
	"time"

	"github.com/worksteal/worksteal"
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
// within d: a deadlock or lost wake-up shows up as a failure, not a hang.
// d is a floor: on a loaded machine the watchdog waits until shortly
// before the test binary's own deadline (go test -timeout) if that is
// later, so only a hang, not slowness, fails the test.
func watchdog(t testing.TB, d time.Duration) (stop func()) {
	t.Helper()
	if dt, ok := t.(interface{ Deadline() (time.Time, bool) }); ok {
		if dl, ok := dt.Deadline(); ok {
			d = max(d, time.Until(dl)*9/10)
		}
	}
	done := make(chan struct{})
	go func() {
		select {
		case <-done:
		case <-time.After(d):
			var buf bytes.Buffer
			pprof.Lookup("goroutine").WriteTo(&buf, 2)
			panic("watchdog: test still running after " + d.String() + "\n" + buf.String())
		}
	}()
	return func() { close(done) }
}
