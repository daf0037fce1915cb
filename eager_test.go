package worksteal

import (
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/worksteal/worksteal/internal/testdeadline"
	"github.com/worksteal/worksteal/policy"
)

// TestEagerJoinsNearTheRoot: a Join within policy.EagerDepth levels of the
// root of a worker's stack never keeps its second half private. Its first
// half here is a leaf that never polls and does not return until the
// second half has started — on another worker, the only one that can run
// it then. Red when the eager depths are latent (joinPushSlow's promoteTo
// removed, or policy.EagerDepth 0): the other worker, idle, waits for a
// poll point the first half never reaches, and the wait runs out.
func TestEagerJoinsNearTheRoot(t *testing.T) {
	for _, depth := range []int{0, policy.EagerDepth - 1} {
		p := newTestPool(t, Config{Workers: 2})
		var nest func(w *Worker, k int) bool
		nest = func(w *Worker, k int) bool {
			if k > 0 {
				ok, _ := Join(w, func(w *Worker) bool { return nest(w, k-1) }, func(*Worker) bool { return true })
				return ok
			}
			var started atomic.Bool
			var owner, thief int
			handed, _ := Join(w, func(w *Worker) bool {
				owner = w.ID()
				end := time.Now().Add(testdeadline.Left(t))
				for !started.Load() { // a leaf without a poll point
					if time.Now().After(end) {
						return false
					}
					runtime.Gosched()
				}
				return true
			}, func(w *Worker) bool {
				thief = w.ID()
				started.Store(true)
				return true
			})
			if handed && owner == thief {
				t.Errorf("depth %d: the second half ran on its owner", depth)
			}
			return handed
		}
		ok, err := Run(p, func(w *Worker) bool { return nest(w, depth) })
		if err != nil || !ok {
			t.Errorf("a Join at depth %d (< policy.EagerDepth %d) kept its second half from the idle worker while its first half ran (%v)",
				depth, policy.EagerDepth, err)
		}
	}
}

// TestEagerJoinsBounded: a job that Joins in a loop at depth 0 pushes the
// second halves of its first eagerJoins Joins only; the rest stay latent
// (one worker: nobody idle, no heartbeat older than the Join's own frame).
// Red without the budget (eagerLeft): every one of them is pushed.
func TestEagerJoinsBounded(t *testing.T) {
	p := newTestPool(t, Config{Workers: 1})
	promoted, err := Run(p, func(w *Worker) uint64 {
		p0 := w.st.promoted
		for range 10 * eagerJoins {
			JoinFunc(w, fibJoin, 3, fibJoin, 3)
		}
		return w.st.promoted - p0
	})
	if err != nil {
		t.Fatal(err)
	}
	if promoted != eagerJoins {
		t.Fatalf("%d Joins in a loop at depth 0 pushed %d second halves; want the first %d", 10*eagerJoins, promoted, eagerJoins)
	}
}
