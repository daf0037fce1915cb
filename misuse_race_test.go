//go:build race

package worksteal

import (
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// Under -race, a *Worker used outside its task is reported: kept after Run
// returned, or captured by a closure that runs on another worker.
func TestForeignWorkerIsReported(t *testing.T) {
	defer watchdog(t, time.Minute)()
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
