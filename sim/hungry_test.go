package sim

import (
	"testing"

	"github.com/worksteal/worksteal/internal/policyrt"
)

// anchorUTS is the anchor suite's UTS-like tree (internal/bench's uts) at
// b0, forked as the runtime's bench code forks it.
func anchorUTS(b0 float64, workers int) Scenario {
	return Scenario{
		Name:     "anchor uts",
		Workers:  Workers{Count: workers},
		Workload: Workload{Kind: kindUTS, UTS: UTS{Type: utsSplitmix, Join: utsJoinBinary, B0: b0, Node: 250e-9}},
		Policy:   Policy{Amount: "half"},
		Costs:    Costs{Fork: 1e-9, Promote: 20e-9, Steal: 200e-9, Move: 500e-9, Failed: 100e-9, Wake: 10e-6},
	}
}

// TestUTSSplitmixIsTheAnchorTree: type splitmix is the tree the runtime
// benchmarks, node for node: the node counts the anchors' go-seq prints
// (internal/bench's utsRefs: 2,535 at b0 = 30, 959,561 at 2,000), and
// under join binary a task per node and per range of two or more
// children, k−1 forks of two for a node of k children, so 2·leaves − 1
// tasks and the anchors' fork count (2,220 at b0 = 30).
func TestUTSSplitmixIsTheAnchorTree(t *testing.T) {
	for _, tc := range []struct {
		b0    float64
		nodes int
		large bool
	}{{30, 2535, false}, {2000, 959561, true}} {
		if tc.large && (testing.Short() || raceEnabled) {
			continue
		}
		u := UTS{Type: utsSplitmix, B0: tc.b0, Q: 0.124875, M: 8}
		nodes, leaves, _ := utsCount(u)
		if nodes != tc.nodes {
			t.Errorf("b0=%v: %d nodes, want the anchors' %d", tc.b0, nodes, tc.nodes)
		}
		if tc.large {
			continue
		}
		e := runEngine(t, anchorUTS(tc.b0, 4))
		r := e.report()
		forks := 0
		for _, k := range e.tasks {
			if k.nkids == 2 {
				forks++
			}
		}
		if r.Totals.Tasks != int64(2*leaves-1) || r.Totals.Completed != r.Totals.Tasks || forks != 2220 {
			t.Errorf("b0=%v join binary: %d tasks, %d completed, %d forks; want %d, all, the anchors' 2,220", tc.b0, r.Totals.Tasks, r.Totals.Completed, forks, 2*leaves-1)
		}
		if want := float64(nodes) * 250e-9; r.DAG.T1 < want*0.999999 || r.DAG.T1 > want*1.000001 {
			t.Errorf("b0=%v join binary: T1 %v, want %d nodes' work %v", tc.b0, r.DAG.T1, nodes, want)
		}
	}
}

// TestHungryWindow: the simulator's hungry window follows the runtime's
// (PROTOCOL.md "Hungry thieves"). With one latent frame, a poll point that
// promotes widens the owner's window, so it keeps frames open through
// forks made while nobody is idle, which plain calls would otherwise
// run: more forks keep offerable frames than without the widening. On one
// worker nobody asks and nothing changes. policy.quiet_beats heartbeats
// in a row with no promotion narrow the window back, and so does a park.
// Red without the widening in poll (the first comparison), when the beat
// that clears the promotion's mark narrows too, without narrow's reset,
// and without block's (the last three).
func TestHungryWindow(t *testing.T) {
	run := func(workers, hungry, beat int) int64 {
		s := anchorUTS(100, workers)
		s.Policy.LatentFrames = 1
		s.Policy.HungryFrames = hungry
		s.Policy.Heartbeat = beat
		e := runEngine(t, s)
		if r := e.report(); r.Totals.Completed != r.Totals.Tasks {
			t.Fatalf("workers %d hungry %d: completed %d of %d tasks", workers, hungry, r.Totals.Completed, r.Totals.Tasks)
		}
		return e.frameForks
	}
	// A heartbeat every 64 poll points: the tree (4,101 nodes) is too
	// small for the runtime's 4,096 to narrow anything.
	const beat = 64
	none, hungry := run(4, -1, beat), run(4, 256, beat)
	t.Logf("forks that kept frames at 4 workers: %d with the hungry window, %d without", hungry, none)
	if hungry <= none {
		t.Errorf("forks that kept frames at 4 workers: %d with the hungry window, %d without; want more with it", hungry, none)
	}
	if a, b := run(1, -1, beat), run(1, 256, beat); a != b {
		t.Errorf("one worker: %d forks kept frames without the hungry window, %d with it; want the same (nobody asks)", a, b)
	}
	// Narrowing, on the engine's state as a beat finds it: a beat after
	// a promotion keeps the window wide, and so do quiet_beats − 1 more
	// with none between; the next narrows it back to latent_frames.
	s := anchorUTS(100, 4)
	s.Policy.LatentFrames = 1
	e := runEngine(t, s)
	if e.quietBeats != runtimeQuietBeats {
		t.Fatalf("quiet_beats %d by default, want the runtime's %d", e.quietBeats, runtimeQuietBeats)
	}
	w := &e.ws[0]
	w.wide, w.hungry = true, true
	for range e.quietBeats {
		e.narrow(w)
	}
	if got := e.window(w); got != 256 {
		t.Errorf("window after a beat that follows a promotion and %d quiet ones: %d, want 256", e.quietBeats-1, got)
	}
	e.narrow(w)
	if got := e.window(w); got != 1 {
		t.Errorf("window after %d beats with no promotion: %d, want latent_frames' 1", e.quietBeats, got)
	}
	// A park narrows at once (the runtime's reset before parking).
	w.wide, w.hungry = true, true
	e.block(w, policyrt.IdleStep{Kind: policyrt.IdlePark})
	if got := e.window(w); got != 1 {
		t.Errorf("window after a park: %d, want latent_frames' 1", got)
	}
}
