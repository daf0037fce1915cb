package sim

import (
	"context"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/worksteal/worksteal/internal/policyrt"
	"github.com/worksteal/worksteal/policy"
)

// TestUTSSplitmixScenarioIsTheRuntimes: testdata/uts-splitmix.yaml, which
// sim/README.md sets beside the runtime's UTS benchmark, describes that
// benchmark's tree and forks, and after normalization the runtime's
// protocol (join latent, steal half, its window, hungry window, heartbeat
// and eager depth), so the comparison cannot drift from what the runtime
// does; and it runs (at b0 = 30 here: the file's 6000 takes seconds).
func TestUTSSplitmixScenarioIsTheRuntimes(t *testing.T) {
	s := scenarioFile(t, "testdata/uts-splitmix.yaml")
	u := s.Workload.UTS
	if s.Workload.Kind != kindUTS || u.Type != utsSplitmix || u.Join != utsJoinBinary || u.B0 != 6000 {
		t.Fatalf("workload %q, uts type %q, join %q, b0 %v; want the runtime's benchmark: uts, splitmix, binary, 6000", s.Workload.Kind, u.Type, u.Join, u.B0)
	}
	n, err := s.Normalize()
	if err != nil {
		t.Fatal(err)
	}
	p := n.Policy
	if want := policy.Amount(0).String(); p.Join != joinLatent || p.Amount != want {
		t.Fatalf("policy join %q amount %q; want latent and the runtime's default %q", p.Join, p.Amount, want)
	}
	if want := map[bool]int{true: 1, false: -1}[policyrt.EagerWidens]; p.EagerWidens != want {
		t.Fatalf("policy eager_widens %d; want the runtime's policyrt.EagerWidens (%d)", p.EagerWidens, want)
	}
	if p.JoinWait != joinWaitStack {
		t.Fatalf("policy join_wait %q; want the runtime's join, %q", p.JoinWait, joinWaitStack)
	}
	if p.LatentFrames != runtimeLatentFrames || p.HungryFrames != runtimeHungryFrames || p.QuietBeats != runtimeQuietBeats || p.Heartbeat != runtimeHeartbeat || p.EagerDepth != policyrt.EagerDepth {
		t.Fatalf("latent_frames %d, hungry_frames %d, quiet_beats %d, heartbeat %d, eager_depth %d; want the runtime's %d, %d, %d, %d, %d",
			p.LatentFrames, p.HungryFrames, p.QuietBeats, p.Heartbeat, p.EagerDepth, runtimeLatentFrames, runtimeHungryFrames, runtimeQuietBeats, runtimeHeartbeat, policyrt.EagerDepth)
	}
	s.Workload.UTS.B0 = 30
	s.Workers = Workers{Count: 2}
	r, err := Run(context.Background(), *s, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if tot := r.Report.Totals; tot.Completed != tot.Tasks || tot.Tasks == 0 {
		t.Fatalf("b0=30: %d of %d tasks completed", tot.Completed, tot.Tasks)
	}
}

// scenarioFile parses the scenario file at path (testdata/...).
func scenarioFile(t *testing.T, path string) *Scenario {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s, err := ParseScenario(data)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return s
}

// TestUTSBinaryOffersTheUpperHalf: under join binary a UTS node's fork
// runs the lower half of its children on its worker and offers the upper
// half, as the runtime's benchmark does (internal/bench's utsWSSpan joins
// JoinFunc(lower, upper); rayon::join runs its first closure itself). So
// at 2 workers the thief's first steal is the upper half of the root's
// children. In the other order the model's thieves took three times fewer
// pieces than with the runtime's (sim/README.md).
func TestUTSBinaryOffersTheUpperHalf(t *testing.T) {
	s := anchorUTS(30, 2)
	if err := s.normalize(); err != nil {
		t.Fatal(err)
	}
	var log strings.Builder
	e, err := newEngine(&s, Options{Log: &log})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.run(context.Background()); err != nil {
		t.Fatal(err)
	}
	first := regexp.MustCompile(`worker 1: stole T(\d+) from worker 0`).FindStringSubmatch(log.String())
	if first == nil {
		t.Fatalf("worker 1 never stole; log:\n%s", log.String())
	}
	id, _ := strconv.Atoi(first[1])
	if tk := e.tasks[id]; tk.flags&fSpan == 0 || tk.arg != 15 || tk.hi != 30 {
		t.Fatalf("the first steal took T%d, children [%d, %d) (span %v); want the root's upper half, children [15, 30) of 30",
			id, tk.arg, tk.hi, tk.flags&fSpan != 0)
	}
}

// utsRun runs the runtime's UTS scenario (testdata/uts-splitmix.yaml) at
// b0 and p workers with its policy changed by pol.
func utsRun(t *testing.T, b0 float64, p int, pol func(*Policy)) Totals {
	t.Helper()
	s := scenarioFile(t, "testdata/uts-splitmix.yaml")
	s.Workload.UTS.B0 = b0
	s.Workers = Workers{Count: p}
	pol(&s.Policy)
	r, err := Run(context.Background(), *s, Options{})
	if err != nil {
		t.Fatal(err)
	}
	tot := r.Report.Totals
	if tot.Completed != tot.Tasks || tot.Tasks == 0 {
		t.Fatalf("b0=%v, %d workers: %d of %d tasks completed", b0, p, tot.Completed, tot.Tasks)
	}
	return tot
}

// runtimeUTS2000Steals is what the runtime's thieves took per run on the
// same tree at 2 workers: `worksteal bench --entry uts=2000 --impls
// go-seq,ws --reps 5`, its steals column (the median run), on the 2-core
// Intel development VM, 29 Nov 2026 18:18 UTC, load 0.01 (2,747 at 18:29;
// b0 = 6000 in the same runs: 8,959 and 7,778). sim/README.md ("UTS") has
// the comparison.
const runtimeUTS2000Steals = 2744

// TestUTSStealsLikeTheRuntime: with the runtime's join (policy.join_wait
// stack: a worker waits at a fork whose half was stolen, holding the
// plain calls' halves below it on its stack), the model's thieves take as
// many pieces of the runtime's UTS tree at 2 workers as the runtime's own
// thieves do, within a factor of 1.5 (3,001 against 2,744). The greedy
// join (any), which resumes every fork wherever its last child ended and
// lets the owner run its older halves meanwhile, took 671: 4 times too
// few, the mismatch stops 42–51 chased (sim/README.md). Red with the
// greedy join, or with a wait that does not hold the stack.
func TestUTSStealsLikeTheRuntime(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("UTS b0=2000 at 2 workers, twice: full-size runs")
	}
	stack := utsRun(t, 2000, 2, func(p *Policy) {})
	greedy := utsRun(t, 2000, 2, func(p *Policy) { p.JoinWait = joinWaitAny })
	t.Logf("UTS b0=2000 at 2 workers: %d steals with the runtime's join, %d with the greedy join; the runtime measured %d",
		stack.Steals, greedy.Steals, runtimeUTS2000Steals)
	if r := float64(stack.Steals) / runtimeUTS2000Steals; r < 1/1.5 || r > 1.5 {
		t.Errorf("the model's thieves took %d pieces, the runtime's %d: %.2f times, want within 1.5", stack.Steals, runtimeUTS2000Steals, r)
	}
}

// TestUTSOneFrameWindowLosesAt16: the loss stop 41 measured on a 16-core
// Xeon (UTS b0 = 6000 at 16 workers 524 ms with the one-frame window,
// 2.1× from one worker where rayon made 14×; 70.9 ms at b0 = 2000), which
// the greedy model could not show (every window within 1 % there), shows
// with the runtime's join: at b0 = 2000 and 16 workers the one-frame
// window (hungry_frames −1) takes over twice the eager protocol's
// makespan (42.3 against 16.2 ms), and the hungry window, the runtime's
// default since, is within 1.25× of eager (18.6 ms). Under the greedy join
// all three are within 2 % (16.0–16.1 ms). The 16-core machine's figures
// for the hungry window are still to be measured (scripts/runtime-16.sh);
// this is the model's prediction. Red with the greedy join.
func TestUTSOneFrameWindowLosesAt16(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("UTS b0=2000 at 16 workers, three times: full-size runs")
	}
	eager := utsRun(t, 2000, 16, func(p *Policy) { p.Join = joinEager })
	one := utsRun(t, 2000, 16, func(p *Policy) { p.HungryFrames = -1 })
	hungry := utsRun(t, 2000, 16, func(p *Policy) {})
	t.Logf("UTS b0=2000 at 16 workers: eager %.2f ms, one frame %.2f ms (%d steals), hungry window %.2f ms (%d steals)",
		1e3*eager.Makespan, 1e3*one.Makespan, one.Steals, 1e3*hungry.Makespan, hungry.Steals)
	if one.Makespan < 2*eager.Makespan {
		t.Errorf("the one-frame window took %.2f ms, eager %.2f: under twice", 1e3*one.Makespan, 1e3*eager.Makespan)
	}
	if hungry.Makespan > 1.25*eager.Makespan {
		t.Errorf("the hungry window took %.2f ms, eager %.2f: over 1.25 times", 1e3*hungry.Makespan, 1e3*eager.Makespan)
	}
}
