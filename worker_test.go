package worksteal

import (
	"testing"
	"time"
)

// PeersIdle turns true once another worker has nothing to do, and stays
// false on a pool whose only worker is the caller.
func TestWorkerPeersIdle(t *testing.T) {
	defer watchdog(t)()
	alone := newTestPool(t, Config{Workers: 1})
	if idle, _ := Run(alone, func(w *Worker) bool { return w.PeersIdle() }); idle {
		t.Error("PeersIdle() = true on a one-worker pool")
	}
	pair := newTestPool(t, Config{Workers: 2})
	Run(pair, func(w *Worker) bool {
		for !w.PeersIdle() { // the other worker finds no work and searches or parks
			time.Sleep(100 * time.Microsecond)
		}
		return true
	})
}

// HasPendingTasks sees exactly the work the running task queued and nobody
// took: the second half of a Join while the first half runs.
func TestWorkerHasPendingTasks(t *testing.T) {
	p := newTestPool(t, Config{Workers: 1})
	var before, during, after, inB bool
	Run(p, func(w *Worker) int {
		before = w.HasPendingTasks()
		Join(w,
			func(w *Worker) int { during = w.HasPendingTasks(); return 0 },
			func(w *Worker) int { inB = w.HasPendingTasks(); return 0 })
		after = w.HasPendingTasks()
		return 0
	})
	if before || !during || inB || after {
		t.Errorf("HasPendingTasks before, in a, in b, after Join = %v, %v, %v, %v; want false, true, false, false", before, during, inB, after)
	}
}
