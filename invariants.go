package worksteal

import "fmt"

// Self-checks of the idle protocol's bookkeeping, compiled in only when
// invariants is true (-race builds, or -tags worksteal_invariants): each
// failed check panics with what broke, instead of a counter silently
// borrowing from its neighbour in the packed state word.

// checkSleepLocked checks, under s.mu, that the sleepers count equals the
// idle list's length and that every listed worker knows its index.
func (s *sleepState) checkSleepLocked() {
	sleepers, searching := counts(s.state.Load())
	if int(sleepers) != len(s.idle) {
		panic(fmt.Sprintf("worksteal: invariant broken: sleepers = %d but the idle list holds %d workers (searching %d)", sleepers, len(s.idle), searching))
	}
	for i, w := range s.idle {
		if w.idleIdx != i {
			panic(fmt.Sprintf("worksteal: invariant broken: worker %d is at idle[%d] but its idleIdx is %d", w.id, i, w.idleIdx))
		}
	}
}

// checkSearchers panics if a change of the searching count wrapped: st is
// the word after the change, delta what was added to searching.
func checkSearchers(st uint64, delta int) {
	_, searching := counts(st)
	if delta < 0 && searching == ^uint32(0) || delta > 0 && searching == 0 {
		panic(fmt.Sprintf("worksteal: invariant broken: the searching count wrapped (state %#x after adding %d)", st, delta))
	}
}

// checkFloor checks that floor, the fast path's folded test, says what
// depth and gate say (worker.go, setFloor): a stale floor would make a
// Join that must open a frame a plain call, or the reverse.
func (w *Worker) checkFloor() {
	if want := w.depth < w.gate; (w.floor != 0) != want {
		panic(fmt.Sprintf("worksteal: invariant broken: floor %d with depth %d, gate %d", w.floor, w.depth, w.gate))
	}
}
