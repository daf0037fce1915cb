package worksteal

import (
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/worksteal/worksteal/internal/policyrt"
)

// TestJoinPanicsRecoveredInTask: Join's panic contract as code inside the
// task meets it — a recover in the function that called Join — on both
// paths (PROTOCOL.md "Panics"):
//
//   - a plain-call Join (policyrt.LatentFrames latent frames open, nobody
//     idle): fa panics — the recover sees the value as it is and fb never
//     ran; fb panics — the value as it is;
//   - a Join that opens a latent frame: fa panics — the value as it is, fb
//     never ran, and it never runs later: the frame is free, and a poll
//     with an idle worker, a heartbeat and later Joins at that depth do
//     not run it;
//   - fa panics after a thief took fb: the recover sees the panic only
//     after the thief has finished fb (fb is still running when fa
//     panics, and finishes 20 ms later);
//   - a recovered panic, repeated, leaves depth, lo and gate as they were.
//
// After each, a fib on the same worker is right. Red when joinUnwind skips
// the settling of a promoted frame (the recover sees the panic while the
// thief still runs fb), when it runs a latent fb (fb runs after fa
// panicked), or when it does not release the frame (depth stays high).
func TestJoinPanicsRecoveredInTask(t *testing.T) {
	defer watchdog(t)()
	// No spares (StallAfter < 0): on a loaded machine the stall monitor
	// would start one beside the two busy workers, and a spare searching
	// is a worker idle, which sends the Joins to joinFull.
	p := newTestPool(t, Config{Workers: 2, StallAfter: -1})
	for rep := 0; rep < 5; rep++ {
		var release, busy atomic.Bool
		_, err := Run(p, func(w *Worker) int {
			// Keep the other worker busy while the Joins run (an idle
			// worker would send them to joinFull): the depth-0 Join is
			// eager, so its second half is public at once.
			w.Join(func(w *Worker) {
				for !busy.Load() {
					runtime.Gosched()
				}
				// The outer Join is at depth 0: EagerDepth-1 more eager ones, and
				// the next Join opens the latent frame.
				nestJoins(w, policyrt.EagerDepth-1, func(w *Worker) { joinPanics(t, w, &release) })
			}, func(*Worker) {
				busy.Store(true)
				for !release.Load() {
					runtime.Gosched()
				}
			})
			return 0
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

func joinPanics(t *testing.T, w *Worker, release *atomic.Bool) {
	defer release.Store(true) // whatever happens, free the other worker
	if w.depth >= w.gate {
		t.Fatalf("below the eager depths: depth %d, gate %d; want a Join that opens a latent frame", w.depth, w.gate)
	}
	d0, lo0 := w.depth, w.lo
	one := func(*Worker) int { return 1 }
	join := func(fa, fb func(*Worker) int) (r any) {
		defer func() { r = recover() }()
		Join(w, fa, fb)
		return nil
	}
	check := func(what string, r any, want string) {
		t.Helper()
		if ep, ok := r.(errPanic); !ok || ep.s != want {
			t.Errorf("%s: recover() in Join's caller saw %T %v; want errPanic{%s}, as it was raised", what, r, r, want)
		}
		// A promotion while the panic passed (a worker went idle) may
		// move lo up, never past depth, and gate moves with it; an offer
		// may widen the latent window and a beat narrow it back (offer,
		// narrow), so gate is lo + the window, whichever it is.
		if w.depth != d0 || w.lo < lo0 || w.lo > w.depth || w.gate-w.lo != w.latentFrames ||
			(w.latentFrames != w.latentBase && w.latentFrames != policyrt.HungryLatentFrames) {
			t.Errorf("%s: after the recover depth %d, lo %d, gate %d (window %d); want depth %d, lo in [%d, depth], gate lo+%d or lo+%d", what, w.depth, w.lo, w.gate, w.latentFrames, d0, lo0, w.latentBase, policyrt.HungryLatentFrames)
		}
		if got := fibJoin(w, 15); got != 610 {
			t.Errorf("%s: fib(15) after the recover = %d", what, got)
		}
	}

	// A Join that opens a latent frame: fa panics, fb latent, dropped.
	var ranB atomic.Int32
	r := join(panicky("A"), func(*Worker) int { ranB.Add(1); return 2 })
	check("frame: fa panics, fb latent", r, "A")
	// Nothing may run the dropped half later: Joins at its depth, a poll
	// that finds a worker idle (the other worker's release makes one),
	// heartbeats.
	for i := 0; i < 3*policyrt.HeartbeatJoins; i++ {
		Join(w, one, one)
	}
	// fb, run inline, panics.
	r = join(one, panicky("B"))
	check("frame: fb panics inline", r, "B")

	// Plain-call Joins: inside a Join that holds the latent frame. An
	// offer since the other worker's release may have widened the window,
	// which policyrt.QuietBeats quiet beats would narrow: close it now.
	w.reset()
	Join(w, func(w *Worker) int {
		if w.depth < w.gate {
			t.Errorf("inside the latent Join: depth %d < gate %d; want plain calls", w.depth, w.gate)
		}
		d1, lo1, gate1 := w.depth, w.lo, w.gate
		for i := 0; i < 100; i++ {
			r := func() (r any) {
				defer func() { r = recover() }()
				Join(w, panicky("A"), func(*Worker) int { ranB.Add(1); return 2 })
				return nil
			}()
			if ep, ok := r.(errPanic); !ok || ep.s != "A" {
				t.Errorf("plain call: fa panics: recover() saw %T %v; want errPanic{A}", r, r)
			}
			r = func() (r any) {
				defer func() { r = recover() }()
				Join(w, one, panicky("B"))
				return nil
			}()
			if ep, ok := r.(errPanic); !ok || ep.s != "B" {
				t.Errorf("plain call: fb panics: recover() saw %T %v; want errPanic{B}", r, r)
			}
		}
		// The other worker is idle here, so a Join of the loop may find it
		// and promote the latent frame: lo and gate then move up together
		// (a CI run saw depth 7, lo 7, gate 8 from 7, 6, 7); depth may not.
		// A heartbeat in the loop promotes it too but leaves gate ([P4]):
		// gate in [lo, lo+LatentFrames], and at gate1 or above.
		if w.depth != d1 || w.lo < lo1 || w.lo > w.depth || w.gate < max(w.lo, gate1) || w.gate > w.lo+gate1-lo1 {
			t.Errorf("plain calls: after 200 recovered panics depth %d, lo %d, gate %d; want depth %d, lo in [%d, depth], gate in [max(lo, %d), lo+%d]", w.depth, w.lo, w.gate, d1, lo1, gate1, gate1-lo1)
		}
		return 0
	}, one)
	if n := ranB.Load(); n != 0 {
		t.Errorf("a second half whose first half panicked ran %d times; want never", n)
	}

	// fa panics after a thief took fb; fb is still running then.
	var startedB, aPanicked, finishedB atomic.Bool
	var bOn atomic.Int32
	r = join(func(w *Worker) int {
		release.Store(true) // the other worker goes idle; Poll offers fb
		for !startedB.Load() {
			w.Poll()
			runtime.Gosched()
		}
		aPanicked.Store(true)
		return panicky("A")(w)
	}, func(w *Worker) int {
		bOn.Store(int32(w.ID()))
		startedB.Store(true)
		for !aPanicked.Load() {
			runtime.Gosched()
		}
		time.Sleep(20 * time.Millisecond) // the handler must wait this out
		finishedB.Store(true)
		return 2
	})
	if int(bOn.Load()) == w.ID() {
		t.Errorf("fb ran on the joining worker; it was to be stolen")
	}
	if !finishedB.Load() {
		t.Errorf("fa panicked after fb was stolen: recover() saw the panic before the thief finished fb")
	}
	check("frame: fa panics, fb stolen", r, "A")
}
