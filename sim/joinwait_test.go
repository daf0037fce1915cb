package sim

import (
	"context"
	"fmt"
	"testing"
)

// joinWaitScenarios are small fork-join runs of every shape the engine
// forks: fib's binary forks, UTS's binary spans over a node's children,
// the coarse tree, and the tutorial's fork-join preset (k-ary forks of
// spawned children), under the runtime's protocol and its variants.
func joinWaitScenarios(t *testing.T, jw string) []Scenario {
	t.Helper()
	pols := []Policy{
		{},                   // the runtime's: latent, eager levels, hungry window, heartbeat
		{LatentFrames: -1},   // every half offerable
		{HungryFrames: -1},   // the one-frame window
		{Join: joinEager},    // Chase–Lev
		{EagerDepth: -1},     // latent from the root
		{Amount: "one"},      // steal one
		{BatchForks: true},   // forks taken by half
		{Heartbeat: -1},      // no beat
		{QuietBeats: -1},     // a window that never narrows
		{LatentFrames: 64},   // a fixed window
		{MaxBatch: -1},       // no cap on steal-half
		{WakeBatch: true},    // batch wake-ups
		{EagerDepth: 2},      // shallow eager levels
		{HungryFrames: 4},    // a narrow hungry window
		{Join: joinLatent},   // explicit
		{Heartbeat: 16},      // frequent beats
		{LatentFrames: 1024}, // a wide window
		{EagerWidens: 1},     // eager forks widen for idle thieves
	}
	var out []Scenario
	for _, p := range []int{2, 5, 16, 64} {
		for i, pol := range pols {
			pol.JoinWait = jw
			if pol.Amount == "" {
				pol.Amount = "half"
			}
			seed := uint64(1 + i%3)
			costs := Costs{Steal: 2e-7, Failed: 1e-7, Move: 3e-7, Fork: 6e-9, Promote: 2e-8, Wake: 5e-6}
			out = append(out,
				Scenario{Name: fmt.Sprintf("fib %d %+v", p, pol), Seed: seed, Workers: Workers{Count: p}, Policy: pol, Costs: costs,
					Workload: Workload{Kind: kindFib, Fib: Fib{N: 22, Cutoff: 8, Leaf: 2e-9}}},
				Scenario{Name: fmt.Sprintf("uts %d %+v", p, pol), Seed: seed, Workers: Workers{Count: p}, Policy: pol, Costs: costs,
					Workload: Workload{Kind: kindUTS, UTS: UTS{Type: utsSplitmix, B0: 60, Node: 2.5e-7, Join: utsJoinBinary}}},
				coarseTree(t, p, 6, seed, pol))
			fj, err := lookupPreset("fork-join")
			if err != nil {
				t.Fatal(err)
			}
			fj.Name, fj.Seed, fj.Workers = fmt.Sprintf("fork-join %d %+v", p, pol), seed, Workers{Count: p}
			pol.Amount = ""
			fj.Policy.JoinWait, fj.Policy.Join = jw, pol.Join
			out = append(out, fj)
		}
	}
	return out
}

// continuationsElsewhere runs s with its schedule recorded, checks that
// every task completed, and counts the continuations (what follows a
// fork's join) that ran on another worker than the fork itself.
func continuationsElsewhere(t *testing.T, s Scenario) (elsewhere, all int) {
	t.Helper()
	s.Limit = 1000 // seconds of virtual time: a run that loses a task polls for ever
	r, err := Run(context.Background(), s, Options{record: true})
	if err != nil {
		t.Fatalf("%s: %v", s.Name, err)
	}
	if tot := r.Report.Totals; tot.Completed != tot.Tasks || tot.Tasks == 0 {
		t.Fatalf("%s: %d of %d tasks completed", s.Name, tot.Completed, tot.Tasks)
	}
	forked := map[int]int{} // task → the worker that ran its part up to the fork
	for _, sp := range r.schedule.Spans {
		if sp.Kind == spanRun {
			forked[sp.Task] = sp.Worker
		}
	}
	for _, sp := range r.schedule.Spans {
		if sp.Kind != spanContinuation {
			continue
		}
		all++
		if w, ok := forked[sp.Task]; !ok {
			t.Fatalf("%s: T%d continues after its join but never ran before it", s.Name, sp.Task)
		} else if w != sp.Worker {
			elsewhere++
		}
	}
	return elsewhere, all
}

// TestJoinWaitStackResumesOnTheForkingWorker: under policy.join_wait stack
// (the default, the runtime's Join and rayon's join), what follows a fork
// runs on the worker that forked it, whoever finished the fork's last
// child — the worker waited there, running other work nested on its stack
// — and every task of every shape completes (a wait that resumed in the
// wrong order, or a latent half run from below a wait, leaves tasks
// undone or runs a continuation elsewhere). Under join_wait any (greedy)
// continuations do run elsewhere in the same scenarios, so the check can
// fail: red when resumeHere resumes every done fork on the worker that
// finished it.
func TestJoinWaitStackResumesOnTheForkingWorker(t *testing.T) {
	var elsewhere, all int
	for _, s := range joinWaitScenarios(t, joinWaitStack) {
		e, a := continuationsElsewhere(t, s)
		if e > 0 {
			t.Errorf("%s: %d of %d continuations ran on another worker than their fork", s.Name, e, a)
		}
		all += a
	}
	if all == 0 {
		t.Fatal("no continuation ran: the scenarios fork nothing")
	}
	for _, s := range joinWaitScenarios(t, joinWaitAny) {
		e, _ := continuationsElsewhere(t, s)
		elsewhere += e
	}
	t.Logf("%d continuations under join_wait stack, all on their forking worker; %d elsewhere under any", all, elsewhere)
	if elsewhere == 0 {
		t.Error("join_wait any ran every continuation on its forking worker too: the check cannot tell the two apart")
	}
}

// A sweep of join_wait gives what the scenario with each join gives alone,
// and the two joins differ on the runtime's UTS tree (red if the sweep
// sets nothing: both rows would be the default's).
func TestSweepJoinWait(t *testing.T) {
	base := func(jw string) Scenario {
		s := scenarioFile(t, "testdata/uts-splitmix.yaml")
		s.Workload.UTS.B0, s.Workers, s.Policy.JoinWait = 150, Workers{Count: 4}, jw
		return *s
	}
	s := base("")
	s.sweep = &sweepSpec{Param: "join_wait", Values: []string{joinWaitStack, joinWaitAny}}
	res, err := runSweep(context.Background(), s, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i, jw := range []string{joinWaitStack, joinWaitAny} {
		r, err := Run(context.Background(), base(jw), Options{})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := res.Reports[i].Totals.Steals, r.Report.Totals.Steals; got != want {
			t.Errorf("sweep join_wait=%s: %d steals; want %d (the scenario with that join)", jw, got, want)
		}
	}
	if a, b := res.Reports[0].Totals.Steals, res.Reports[1].Totals.Steals; a == b {
		t.Errorf("join_wait stack and any both stole %d times on UTS b0=150 at 4 workers: the sweep changed nothing", a)
	}
}
