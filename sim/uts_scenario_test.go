package sim

import (
	"context"
	"os"
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
	if p.LatentFrames != runtimeLatentFrames || p.HungryFrames != runtimeHungryFrames || p.Heartbeat != runtimeHeartbeat || p.EagerDepth != policyrt.EagerDepth {
		t.Fatalf("latent_frames %d, hungry_frames %d, heartbeat %d, eager_depth %d; want the runtime's %d, %d, %d, %d",
			p.LatentFrames, p.HungryFrames, p.Heartbeat, p.EagerDepth, runtimeLatentFrames, runtimeHungryFrames, runtimeHeartbeat, policyrt.EagerDepth)
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
