package worksteal

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/worksteal/worksteal/internal/policyrt"
	"github.com/worksteal/worksteal/internal/testdeadline"
)

// TestHeartbeatLeavesPlainCalls checks [P4] (beat in join.go) on one
// worker, where nobody is ever idle and only the heartbeat promotes:
//
//   - after the heartbeat promoted the latent frame F of an outer Join, the
//     rest of F's first half keeps making plain calls: no Join of it opens
//     a frame (red when beat moves gate up with lo, as other promotions
//     do: the next Join then opens a frame);
//   - a task that w runs inside that first half (a Scope's wait) starts
//     as any job: its first Join opens a frame (red without the reset of
//     gate in execute);
//   - once F's first half returned and F was popped back, its second half
//     opens latent frames again, and the heartbeat promotes one of them
//     (red without the reset of gate in joinPopPromoted: the second half
//     then runs as plain calls, with nothing to promote).
func TestHeartbeatLeavesPlainCalls(t *testing.T) {
	if policyrt.LatentFrames != 1 {
		t.Skip("the test holds one latent frame open")
	}
	p := newTestPool(t, Config{Workers: 1})
	zero := func(*Worker) int { return 0 }
	// joins runs n Joins in a loop at w's current depth and reports how
	// many opened a frame (their first half ran one level deeper), not
	// counting the heartbeat's own Joins (a beat is a frame Join), and how
	// many frames were promoted in all.
	joins := func(w *Worker, n int) (frames, promoted uint64) {
		d, p0 := w.depth, w.st.promoted
		for range n {
			var deeper bool
			Join(w, func(w *Worker) int { deeper = w.depth > d; return 0 }, zero)
			if deeper && w.beatLeft != policyrt.HeartbeatJoins { // not a beat's Join (pollJoin reset the count)
				frames++
			}
		}
		return frames, w.st.promoted - p0
	}
	var (
		framesA, promotedA uint64 // F's first half, after the first beat
		firstB             bool   // the first Join of F's second half (G) opened a frame
		promotedB          uint64 // promotions during F's second half
		jobFrame           bool   // a task run in F's first half after the beat opened a frame
	)
	_, err := Run(p, func(w *Worker) int {
		var nest func(w *Worker, k int) int
		nest = func(w *Worker, k int) int {
			if k > 0 { // below the eager Joins at the top
				a, _ := Join(w, func(w *Worker) int { return nest(w, k-1) }, zero)
				return a
			}
			// F: a Join that opens the latent frame.
			Join(w, func(w *Worker) int {
				// Up to the first beat, then as many Joins again.
				for promotedA == 0 {
					_, promotedA = joins(w, 64)
				}
				framesA, _ = joins(w, 2*policyrt.HeartbeatJoins)
				// A task that w runs here (its Scope's wait pops it)
				// starts as any job: its first Join opens a frame.
				err := w.Scope(context.Background(), func(w *Worker, s *Scope) error {
					s.Spawn(w, func(w *Worker) {
						d := w.depth
						Join(w, func(w *Worker) int { jobFrame = w.depth > d; return 0 }, zero)
					})
					return nil
				})
				if err != nil {
					t.Error(err)
				}
				return 0
			}, func(w *Worker) int {
				// G: its Joins are plain calls, and a beat promotes G.
				d := w.depth
				Join(w, func(w *Worker) int {
					firstB = w.depth > d
					_, promotedB = joins(w, 2*policyrt.HeartbeatJoins)
					return 0
				}, zero)
				return 0
			})
			return 0
		}
		return nest(w, policyrt.EagerDepth)
	})
	if err != nil {
		t.Fatal(err)
	}
	if promotedA == 0 {
		t.Fatal("no heartbeat promoted F")
	}
	if framesA != 0 {
		t.Errorf("after the heartbeat promoted F, %d of %d Joins of its first half opened a frame; want plain calls only", framesA, 2*policyrt.HeartbeatJoins)
	}
	if !jobFrame {
		t.Error("a task run in F's first half after the heartbeat made a plain call at its first Join; want a latent frame, as any job")
	}
	if !firstB {
		t.Error("the first Join of F's second half (F popped back) was a plain call; want a latent frame")
	}
	if promotedB == 0 {
		t.Errorf("no heartbeat promoted a frame in %d Joins of F's second half", 2*policyrt.HeartbeatJoins)
	}
}

// TestHeartbeatHoldEndsWhenTaken: the plain calls a beat leaves ([P4])
// end at a later beat that finds w's deque empty — the promoted half was
// taken by a thief — so w keeps a latent frame for the next idle worker
// and the next beat, instead of offering only the Join that polls. Two
// workers, the monitor off (no spare may go idle): B is kept busy while
// A's first half of a Join F runs until a beat promotes F's second half
// X; then B takes X and runs it, busy again, while A makes 2 ×
// policyrt.HeartbeatJoins more Joins. Red when beatHeld does not release
// the hold (none of those Joins opens a frame).
func TestHeartbeatHoldEndsWhenTaken(t *testing.T) {
	if policyrt.LatentFrames != 1 {
		t.Skip("the test holds one latent frame open")
	}
	p := newTestPool(t, Config{Workers: 2, StallAfter: -1})
	zero := func(*Worker) int { return 0 }
	var busyB, releaseB, startedX, releaseX atomic.Bool
	var promoted, frames uint64
	var waitFailed atomic.Bool
	wait := func(cond func() bool) {
		if !testdeadline.Wait(t, 20*time.Microsecond, cond) {
			waitFailed.Store(true)
		}
	}
	_, err := Run(p, func(w *Worker) int {
		defer releaseB.Store(true)
		defer releaseX.Store(true)
		err := w.Scope(context.Background(), func(w *Worker, s *Scope) error {
			s.Spawn(w, func(*Worker) { busyB.Store(true); wait(releaseB.Load) })
			wait(busyB.Load) // B took the task: nobody is idle from here
			for range eagerJoins {
				Join(w, zero, zero) // spend the job's eager Joins
			}
			Join(w, func(w *Worker) int { // F: opens the latent frame
				p0 := w.st.promoted
				for w.st.promoted == p0 && !waitFailed.Load() {
					Join(w, zero, zero)
				}
				promoted = w.st.promoted - p0
				releaseB.Store(true)
				wait(startedX.Load) // B took X from A's deque and runs it
				d := w.depth
				for range 2 * policyrt.HeartbeatJoins {
					var deeper bool
					Join(w, func(w *Worker) int { deeper = w.depth > d; return 0 }, zero)
					if deeper && w.beatLeft != policyrt.HeartbeatJoins {
						frames++
					}
				}
				releaseX.Store(true)
				return 0
			}, func(*Worker) int { // X
				startedX.Store(true)
				wait(releaseX.Load)
				return 0
			})
			return nil
		})
		if err != nil {
			t.Error(err)
		}
		return 0
	})
	if err != nil {
		t.Fatal(err)
	}
	if waitFailed.Load() {
		t.Fatal("a wait of the test did not end by its deadline")
	}
	if promoted != 1 {
		t.Fatalf("%d frames promoted in F's first half before B was released; want the one beat's", promoted)
	}
	if frames == 0 {
		t.Errorf("after B took the half the beat promoted, none of %d Joins opened a frame; want latent frames again after the next beat", 2*policyrt.HeartbeatJoins)
	}
}
