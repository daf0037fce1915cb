package worksteal

import (
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/worksteal/worksteal/internal/policyrt"
	"github.com/worksteal/worksteal/internal/testdeadline"
)

// TestEagerJoinsNearTheRoot: a Join within policyrt.EagerDepth levels of the
// root of a worker's stack never keeps its second half private. Its first
// half here is a leaf that never polls and does not return until the
// second half has started — on another worker, the only one that can run
// it then. Red when the eager depths are latent (joinPushSlow's promoteTo
// removed, or policyrt.EagerDepth 0): the other worker, idle, waits for a
// poll point the first half never reaches, and the wait runs out.
func TestEagerJoinsNearTheRoot(t *testing.T) {
	for _, depth := range []int{0, policyrt.EagerDepth - 1} {
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
			t.Errorf("a Join at depth %d (< policyrt.EagerDepth %d) kept its second half from the idle worker while its first half ran (%v)",
				depth, policyrt.EagerDepth, err)
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

// TestEagerJoinsInAJobTakenDuringAWait: the eager levels count from the
// start of the job a worker runs, also when it took that job while it
// waited at a Join deep in its stack. Worker A nests policyrt.EagerDepth
// Joins and then a Join (J1) whose half B takes; A's first half ends, so A
// waits for B at depth EagerDepth+1 and, helping, takes X, the half of a
// Join B made (J2) whose first half spins until X has started. X's first
// Join (J3), made while B still spins (nobody idle, no heartbeat due), has
// a first half that never polls and does not return until J3's second half
// has started — on B, the only other worker, once its spin ends and it
// waits at J2. So J3's half must be public from the moment J3 is made: it
// is at level 0 of X. Red when execute leaves eagerBase at the root of the
// worker's stack (the levels counted from depth 0): J3, at depth
// EagerDepth+1, keeps its half latent, B waits for a poll point A never
// reaches, and the first half's wait runs out.
func TestEagerJoinsInAJobTakenDuringAWait(t *testing.T) {
	p := newTestPool(t, Config{Workers: 2})
	end := time.Now().Add(testdeadline.Left(t))
	// until spins (yielding) until f is set or the test's deadline passes;
	// poll, if set, is called each time round (a first half that polls).
	until := func(f *atomic.Bool, poll func()) bool {
		for !f.Load() {
			if time.Now().After(end) {
				return false
			}
			if poll != nil {
				poll()
			}
			runtime.Gosched()
		}
		return true
	}
	var b1Started, xStarted, b3Started atomic.Bool
	var xWorker, xDepth, b3Worker, aWorker int
	x := func(w *Worker) bool { // J2's second half, taken by A while it waits at J1
		xWorker, xDepth = w.ID(), w.depth
		ok, _ := Join(w, func(w *Worker) bool {
			xStarted.Store(true) // B's spin in J2 ends: B waits at J2 and helps
			return until(&b3Started, nil)
		}, func(w *Worker) bool {
			b3Worker = w.ID()
			b3Started.Store(true)
			return true
		})
		return ok
	}
	b1 := func(w *Worker) bool { // J1's second half, on B
		b1Started.Store(true)
		a, b := Join(w, func(w *Worker) bool { return until(&xStarted, nil) }, x)
		return a && b
	}
	var nest func(w *Worker, k int) bool
	nest = func(w *Worker, k int) bool {
		if k > 0 {
			ok, _ := Join(w, func(w *Worker) bool { return nest(w, k-1) }, func(*Worker) bool { return true })
			return ok
		}
		aWorker = w.ID()
		a, b := Join(w, func(w *Worker) bool { return until(&b1Started, w.Poll) }, b1)
		return a && b
	}
	ok, err := Run(p, func(w *Worker) bool { return nest(w, policyrt.EagerDepth) })
	if err != nil || !ok {
		t.Fatalf("the first Join of a job taken during a wait at depth %d kept its second half from the idle worker (%v)", policyrt.EagerDepth+1, err)
	}
	if xWorker != aWorker || xDepth <= policyrt.EagerDepth || b3Worker == aWorker {
		t.Fatalf("schedule: X ran on worker %d at depth %d (want worker %d, depth > %d); J3's half on worker %d (want the other)",
			xWorker, xDepth, aWorker, policyrt.EagerDepth, b3Worker)
	}
}

// TestEagerJoinsShowProgress: a tree of leaves that never poll, within the
// eager levels, moves the worker's progress word (the stall monitor's
// sample) between every two leaves — when the worker pops a second half
// back (or, stolen, runs another job meanwhile) — so a worker that runs coarse
// leaves one after another is never taken for stalled once a leaf is
// shorter than StallAfter (the monitor would stop the world for a stack
// dump). One worker: every half is popped back. Red without the bump in
// joinPopPromoted (a second leaf starts with the first one's word).
func TestEagerJoinsShowProgress(t *testing.T) {
	p := newTestPool(t, Config{Workers: 1})
	const levels = 3 // < policyrt.EagerDepth
	var words []uint64
	var tree func(w *Worker, k int) int
	tree = func(w *Worker, k int) int {
		if k == 0 {
			words = append(words, w.mon.Load()) // a leaf's start
			return 1
		}
		a, b := Join(w, func(w *Worker) int { return tree(w, k-1) }, func(w *Worker) int { return tree(w, k-1) })
		return a + b
	}
	n, err := Run(p, func(w *Worker) int { return tree(w, levels) })
	if err != nil || n != 1<<levels {
		t.Fatalf("tree: %d leaves, %v", n, err)
	}
	for i := 1; i < len(words); i++ {
		if words[i] == words[i-1] {
			t.Errorf("leaves %d and %d started with the same progress word %#x: no progress recorded between them", i-1, i, words[i])
		}
	}
}
