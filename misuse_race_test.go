//go:build race

package worksteal

import (
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
)

// Under -race, a *Worker used outside its task is reported: kept after Run
// returned, or captured by a closure that runs on another worker.
func TestForeignWorkerIsReported(t *testing.T) {
	defer watchdog(t)()
	saved := ownerSample
	ownerSample = 1 // check every fork: the sampled check is the same test
	defer func() { ownerSample = saved }()
	p := newTestPool(t, Config{Workers: 2})

	kept, _ := Run(p, func(w *Worker) *Worker { return w })
	msg := panicMessage(func() { Join(kept, func(*Worker) int { return 1 }, func(*Worker) int { return 2 }) })
	if !strings.Contains(msg, "used on a goroutine that is not running its task") {
		t.Errorf("Join through a handle kept after Run: panic %q", msg)
	}

	// The outer task's w, used inside the second half, which the other
	// worker runs (the first half waits until it has started).
	var started atomic.Bool
	msg = panicMessage(func() {
		Run(p, func(w *Worker) int {
			a, b := Join(w, func(w *Worker) int {
				for !started.Load() {
					w.Poll() // fb is offered at poll points
				}
				return 1
			}, func(*Worker) int {
				started.Store(true)
				x, _ := Join(w, func(*Worker) int { return 1 }, func(*Worker) int { return 2 }) // w: the enclosing task's
				return x
			})
			return a + b
		})
	})
	if !strings.Contains(msg, "used on a goroutine that is not running its task") {
		t.Errorf("Join through the enclosing task's handle: panic %q", msg)
	}
}

// The check holds after a task called runtime.Goexit: the goroutine that
// replaces the exited one runs no task, so every fork through a kept
// handle is caught, not only the sampled ones (the exited goroutine never
// left the task it was running, and its count used to stay up for ever).
func TestForeignWorkerIsReportedAfterGoexit(t *testing.T) {
	defer watchdog(t)()
	p := newTestPool(t, Config{Workers: 1, MaxBlocking: -1})
	kept, _ := Run(p, func(w *Worker) *Worker { return w })
	if r := catchPanic(func() { Run(p, func(*Worker) int { runtime.Goexit(); return 0 }) }); r == nil {
		t.Fatalf("Run of a task that called Goexit did not panic")
	}
	onEveryWorker(t, p) // the replacement goroutine runs
	// onEveryWorker returns once its task sent the worker's id, which can
	// be before the worker left that task: wait until it runs none, or
	// the forks below pass the check as forks from inside a task.
	for kept.owner.tasks.Load() != 0 {
		runtime.Gosched()
	}
	for i := range 3 { // Blocking: a fork that does nothing else without spares
		msg := panicMessage(func() { kept.Blocking(func() {}) })
		if !strings.Contains(msg, "used on a goroutine that is not running its task") {
			t.Errorf("fork %d through a handle kept across a Goexit: panic %q; want the foreign-handle message", i, msg)
		}
	}
}
