package worksteal

import (
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/worksteal/worksteal/internal/policyrt"
)

// TestHungryThiefGetsEveryHalfOfTheNextStretch: the promise of the hungry
// window (PROTOCOL.md "Hungry thieves") as a thief meets it. Once a thief
// has emptied its owner's deque and asked again, the halves of the Joins
// the owner makes next are all offered at its next poll, not only the
// oldest: here a chain of 16 nested Joins, made while the thief is busy
// (so nobody idle sends them to joinFull), whose innermost first half
// polls until the thief has run all 16 second halves. With a one-frame
// window only the chain's first Join opens a frame, the other 15 are
// plain calls that no thief can take, and the test hangs until the
// watchdog fails it (red with offer's widening removed).
//
// Then the window narrows once nobody asks for policyrt.QuietBeats beats
// in a row: with the thief kept busy, the owner's window is still wide
// after the beat that clears the offer's mark and QuietBeats−1 quiet ones
// (red when that beat narrows too, or with QuietBeats 64 when narrow
// counts one quiet beat as enough), and back to latentBase after one
// more, its next Joins plain calls (red with narrow removed).
func TestHungryThiefGetsEveryHalfOfTheNextStretch(t *testing.T) {
	defer watchdog(t)()
	const chain = 16
	p := newTestPool(t, Config{Workers: 2, StallAfter: -1}) // no spares: the thief is the other worker
	for rep := 0; rep < 5; rep++ {
		var busy, phase1, decoyTaken, phase2 atomic.Bool
		var stolen atomic.Int32
		var owner int
		_, err := Run(p, func(w *Worker) int {
			owner = w.ID()
			// A window widened in an earlier rep may still be open on
			// this worker: it narrows after quiet beats or a park, not
			// when a job ends. Close it, so that the offer below is what
			// widens it.
			w.reset()
			// The depth-0 Join is eager: its second half keeps the other
			// worker busy until phase1.
			w.Join(func(w *Worker) {
				for !busy.Load() {
					runtime.Gosched()
				}
				nestJoins(w, policyrt.EagerDepth-1, func(w *Worker) {
					// The depth-0 Join found the other worker idle and,
					// eager, widened the window (policyrt.EagerWidens,
					// TestEagerJoinWidensForIdleThieves). Close it, so that
					// the offer below is what widens it here.
					w.reset()
					if w.latentFrames != w.latentBase {
						t.Errorf("rep %d: window %d before any offer; want latentBase %d", rep, w.latentFrames, w.latentBase)
					}
					// The decoy's Join opens the latent frame.
					JoinFunc(w, func(w *Worker, _ int) int {
						d := w.depth - 1 // the decoy's frame
						phase1.Store(true)
						// Poll once the other worker has taken the eager
						// halves and asks again; again if it was between
						// two states at that instant. w.polls is set so
						// that no such Poll is a beat: a beat's promotion
						// is no offer.
						for w.lo <= d {
							for w.idle.Load() == 0 || w.dq.Len() != 0 {
								runtime.Gosched()
							}
							w.polls = 1
							w.Poll() // the offer: it promotes the decoy
						}
						if w.latentFrames != policyrt.HungryLatentFrames {
							t.Errorf("rep %d: window %d after an offer to a hungry thief; want %d", rep, w.latentFrames, policyrt.HungryLatentFrames)
						}
						for !decoyTaken.Load() {
							runtime.Gosched() // no poll: no beat may narrow the window yet
						}
						chainJoins(w, chain, &stolen, owner, func(w *Worker) {
							phase2.Store(true) // the decoy ends: the thief asks again
							for stolen.Load() < chain {
								w.Poll()
							}
						})
						return 0
					}, 0, func(w *Worker, _ int) int {
						decoyTaken.Store(true)
						for !phase2.Load() {
							runtime.Gosched()
						}
						return 0
					}, 0)
				})
			}, func(*Worker) {
				busy.Store(true)
				for !phase1.Load() {
					runtime.Gosched()
				}
			})
			return 0
		})
		if err != nil {
			t.Fatal(err)
		}
		if got := stolen.Load(); got != chain {
			t.Fatalf("the thief ran %d of the chain's %d second halves", got, chain)
		}
	}

	// Narrowing: keep the other worker busy, widen by hand as an offer
	// does, then make beats' worth of Joins with nobody asking. Each
	// HeartbeatJoins Joins make exactly one beat: the first clears the
	// offer's mark, the next QuietBeats are quiet.
	id, free := holdAWorker(t, p)
	defer free()
	_, err := Run(p, func(w *Worker) int {
		if w.ID() == id {
			t.Fatalf("ran on the held worker %d", id)
		}
		nestJoins(w, policyrt.EagerDepth, func(w *Worker) {
			w.hungry, w.latentFrames = true, policyrt.HungryLatentFrames
			w.setLo(w.lo)
			joins := func(n int) {
				for range n {
					JoinFunc(w, one, 0, one, 0)
				}
			}
			joins(policyrt.QuietBeats * policyrt.HeartbeatJoins)
			if w.latentFrames != policyrt.HungryLatentFrames {
				t.Errorf("after %d quiet beats: window %d; want it still %d", policyrt.QuietBeats-1, w.latentFrames, policyrt.HungryLatentFrames)
			}
			joins(policyrt.HeartbeatJoins)
			if w.latentFrames != w.latentBase || w.gate > w.lo+w.latentBase {
				t.Errorf("after %d beats with nobody asking: window %d, gate %d, lo %d; want window %d, gate <= lo+%d", policyrt.QuietBeats, w.latentFrames, w.gate, w.lo, w.latentBase, w.latentBase)
			}
		})
		return 0
	})
	if err != nil {
		t.Fatal(err)
	}
}

// one is a Join half that does nothing.
func one(*Worker, int) int { return 1 }

// TestParkedWorkerStartsNarrow: a worker that parks forgets what its
// thieves asked for. Its window, wide from an offer, is latentBase again
// when it next runs a job, so a new computation's Joins are plain calls
// from the start instead of frame Joins until its first quiet beats (red
// without the reset before a park in idleWait.failed).
func TestParkedWorkerStartsNarrow(t *testing.T) {
	defer watchdog(t)()
	p := newTestPool(t, Config{Workers: 1, StallAfter: -1})
	for rep := 0; rep < 3; rep++ {
		parks := p.Stats().Total().Parks
		if _, err := Run(p, func(w *Worker) int {
			w.hungry, w.latentFrames = true, policyrt.HungryLatentFrames
			w.setLo(w.lo)
			return 0
		}); err != nil {
			t.Fatal(err)
		}
		// The worker parks once its idle schedule runs out; its count is
		// published after the reset (park, publish).
		for p.Stats().Total().Parks == parks {
			time.Sleep(100 * time.Microsecond)
		}
		if _, err := Run(p, func(w *Worker) int {
			if w.latentFrames != w.latentBase || w.gate > w.lo+w.latentBase {
				t.Errorf("rep %d: after a park, window %d, gate %d, lo %d; want window %d, gate <= lo+%d", rep, w.latentFrames, w.gate, w.lo, w.latentBase, w.latentBase)
			}
			return 0
		}); err != nil {
			t.Fatal(err)
		}
	}
}

// chainJoins nests n Joins on w, each second half counting itself in
// stolen when a worker other than owner runs it, with f innermost.
func chainJoins(w *Worker, n int, stolen *atomic.Int32, owner int, f func(w *Worker)) {
	if n == 0 {
		f(w)
		return
	}
	JoinFunc(w, func(w *Worker, _ int) int {
		chainJoins(w, n-1, stolen, owner, f)
		return 0
	}, 0, func(w *Worker, _ int) int {
		if w.ID() != owner {
			stolen.Add(1)
		}
		return 0
	}, 0)
}

// TestEagerJoinWidensForIdleThieves: with policyrt.EagerWidens on
// (Config.eagerWidens here: off by default), an eager Join (near the root
// of a job) that finds a worker idle widens its worker's window, as an
// offer that promotes does (PROTOCOL.md "Hungry thieves"): its own
// promotion fills the deque, so the poll points after it do not offer,
// and without this the owner's next Joins would be plain calls that no
// thief can take. The root job's first Join on a fresh 2-worker pool
// finds the other worker idle (searching or asleep: nothing else is
// public yet; the test waits for it to be), and inside its first half the
// window is wide; with the rule off, or on a 1-worker pool where nobody
// is idle, it stays latentBase. Red with the widening removed from
// joinPushSlow, or with Config.eagerWidens ignored.
func TestEagerJoinWidensForIdleThieves(t *testing.T) {
	defer watchdog(t)()
	for _, c := range []struct {
		workers int
		on      bool
	}{{1, true}, {2, true}, {2, policyrt.EagerWidens}} {
		p := newTestPool(t, Config{Workers: c.workers, StallAfter: -1, eagerWidens: c.on})
		for rep := 0; rep < 20; rep++ {
			var window, base int
			_, err := Run(p, func(w *Worker) int {
				w.reset()
				// The other worker may still be finishing the last rep's
				// half: wait until it is idle (nothing is public, so it
				// stays so until the Join below publishes).
				for c.workers > 1 && w.idle.Load() == 0 {
					runtime.Gosched()
				}
				w.Join(func(w *Worker) {
					window, base = w.latentFrames, w.latentBase
				}, func(w *Worker) {})
				return 0
			})
			if err != nil {
				t.Fatal(err)
			}
			want := base
			if c.workers > 1 && c.on {
				want = max(base, policyrt.HungryLatentFrames)
			}
			if window != want {
				t.Fatalf("%d workers, rule on %v, rep %d: window %d inside the eager Join's first half; want %d", c.workers, c.on, rep, window, want)
			}
		}
	}
}
