// Package testdeadline bounds a test's waits by the test's own deadline
// (go test's -timeout, as testing.T.Deadline reports it), never by a fixed
// few seconds: on a machine loaded by twice its cores a wait that takes 50 ms
// when quiet can take a minute, and a fixed bound would turn slowness into a
// failure. A wait that is still unmet when the deadline nears fails with a
// message naming what it waited for, a little before go test's own timeout
// would end the binary with less to say.
//
// Only tests import it.
package testdeadline

import (
	"context"
	"testing"
	"time"
)

// noDeadline is what Left gives a test run with -timeout 0 (or a benchmark):
// as good as no bound at all.
const noDeadline = 24 * time.Hour

// deadliner is *testing.T (and any other testing.TB with a deadline).
type deadliner interface {
	Deadline() (time.Time, bool)
}

// Left returns how long t may still wait: the time to its deadline less a
// margin kept for reporting the failure and running cleanups (a tenth of
// what is left, at least 2 s and at most 30 s). A test without a deadline
// (-timeout 0, or a benchmark) gets a day.
func Left(t testing.TB) time.Duration {
	d, ok := t.(deadliner)
	if !ok {
		return noDeadline
	}
	end, ok := d.Deadline()
	if !ok {
		return noDeadline
	}
	left := time.Until(end)
	margin := min(max(left/10, 2*time.Second), 30*time.Second)
	if left <= margin {
		return left / 2
	}
	return left - margin
}

// Context returns a context that ends Left(t) from now, and is cancelled when
// the test ends.
func Context(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), Left(t))
	t.Cleanup(cancel)
	return ctx
}

// Until polls cond every interval until it holds, and fails the test naming
// what it waited for if it still does not hold at Left(t). It must be called
// from the test's goroutine.
func Until(t testing.TB, what string, interval time.Duration, cond func() bool) {
	t.Helper()
	if !Wait(t, interval, cond) {
		t.Fatalf("%s: still not so at the test's deadline", what)
	}
}

// Wait polls cond every interval until it holds (true) or Left(t) has passed
// (false). Unlike Until it may be called from any goroutine.
func Wait(t testing.TB, interval time.Duration, cond func() bool) bool {
	end := time.Now().Add(Left(t))
	for !cond() {
		if time.Now().After(end) {
			return cond()
		}
		time.Sleep(interval)
	}
	return true
}
