package worksteal

import (
	"errors"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/worksteal/worksteal/policy"
)

// TestJoinFastPathPanicsRecoveredInTask: Join's panic contract as code
// inside the task meets it — a recover in the function that called Join —
// for Joins on the fast path (a latent frame below policy.EagerDepth, no
// worker idle at the Join), whose deferred handler is joinUnwindAt:
//
//   - fa panics, fb still latent: fb runs before the recover sees anything;
//   - fa returns, fb (latent, run inline) panics: the recover sees a
//     *PanicError, not the raw value, and depth is restored;
//   - fa panics after a thief took fb: the recover sees the panic only
//     after the thief has finished fb (fb is still running when fa
//     panics, and finishes 20 ms later).
//
// After each, the worker's frame state is what it was before the Join
// and a fib on the same worker is right. Red when joinUnwindAt skips the
// frame's unwind (the stolen half is not waited for, the latent one never
// runs) or drops the wrap of an inline second half's panic.
func TestJoinFastPathPanicsRecoveredInTask(t *testing.T) {
	defer watchdog(t)()
	// No spares (StallAfter < 0): on a loaded machine the stall monitor
	// would start one beside the two busy workers, and a spare searching
	// is a worker idle, which sends the Joins to joinFull.
	p := newTestPool(t, Config{Workers: 2, StallAfter: -1})
	for rep := 0; rep < 5; rep++ {
		var release, busy atomic.Bool
		_, err := Run(p, func(w *Worker) int {
			// Keep the other worker busy while the fast-path Joins run
			// (an idle worker would send them to joinFull): the depth-0
			// Join is eager, so its second half is public at once.
			w.Join(func(w *Worker) {
				for !busy.Load() {
					runtime.Gosched()
				}
				nestJoins(w, policy.EagerDepth+1, func(w *Worker) { fastPathPanics(t, w, &release) })
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

func fastPathPanics(t *testing.T, w *Worker, release *atomic.Bool) {
	defer release.Store(true) // whatever happens, free the other worker
	d0, lo0 := w.depth, w.lo
	one := func(*Worker) int { return 1 }
	join := func(fa, fb func(*Worker) int) (r any) {
		defer func() { r = recover() }()
		// The Join is to take the fast path: a frame of its type at this
		// depth (a warm-up Join makes it), nobody idle, no heartbeat due.
		Join(w, one, one)
		if f, ok := w.fast[w.depth].(*frame[func(*Worker) int, int]); !ok || f == nil || w.idle.Load() != 0 ||
			w.beatLeft == 1 {
			t.Errorf("depth %d: the Join would not take the fast path (idle %x, %d fast frames, %T)", w.depth, w.idle.Load(), len(w.fast), w.frames[w.depth])
		}
		Join(w, fa, fb)
		return nil
	}
	check := func(what string, r any, want string) {
		t.Helper()
		pe, ok := r.(*PanicError)
		var ep errPanic
		if !ok || !errors.As(pe, &ep) || ep.s != want {
			t.Errorf("%s: recover() in Join's caller saw %T %v; want a *PanicError of errPanic{%s}", what, r, r, want)
		}
		if w.depth != d0 || w.lo > w.depth {
			t.Errorf("%s: after the recover depth %d, lo %d; want depth %d, lo <= depth (lo was %d)", what, w.depth, w.lo, d0, lo0)
		}
		if got := fibJoin(w, 15); got != 610 {
			t.Errorf("%s: fib(15) after the recover = %d", what, got)
		}
	}

	// fa panics, fb latent.
	var ranB bool
	r := join(panicky("A"), func(*Worker) int { ranB = true; return 2 })
	if !ranB {
		t.Errorf("fa panicked with fb latent: fb had not run when recover() saw the panic")
	}
	check("fa panics, fb latent", r, "A")

	// fb, run inline, panics.
	r = join(one, panicky("B"))
	check("fb panics inline", r, "B")

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
	check("fa panics, fb stolen", r, "A")
}
