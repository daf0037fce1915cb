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
