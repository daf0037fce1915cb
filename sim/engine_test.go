package sim

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/worksteal/worksteal/internal/fibtree"
	"github.com/worksteal/worksteal/internal/xrand"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// runEngine runs s and returns the engine, so tests can inspect every task.
func runEngine(t testing.TB, s Scenario) *engine {
	t.Helper()
	if err := s.normalize(); err != nil {
		t.Fatalf("normalize: %v", err)
	}
	e, err := newEngine(&s, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.run(context.Background()); err != nil {
		t.Fatalf("run: %v", err)
	}
	return e
}

// pieces is how many pieces a finished task runs when nothing fails.
func pieces(tk *task) int {
	if tk.flags&fJoin != 0 {
		return 2
	}
	return 1
}

// checkOnce asserts that every task finished exactly once and was started
// once per piece plus once per abort; it returns the total aborts.
func checkOnce(t *testing.T, e *engine) int {
	t.Helper()
	aborts := 0
	for i := range e.tasks {
		tk := &e.tasks[i]
		if tk.flags&fDone == 0 {
			t.Fatalf("T%d never finished (phase %d)", i, tk.phase)
		}
		if got, want := int(tk.starts), pieces(tk)+int(tk.aborts); got != want {
			t.Fatalf("T%d started %d times; want %d (%d pieces, %d aborts)", i, got, want, pieces(tk), tk.aborts)
		}
		aborts += int(tk.aborts)
	}
	if e.completed != int64(len(e.tasks)) || e.outstanding != 0 {
		t.Fatalf("completed %d of %d, outstanding %d", e.completed, len(e.tasks), e.outstanding)
	}
	return aborts
}

func TestExactlyOnce(t *testing.T) {
	base := Scenario{Seed: 7, Workers: Workers{Count: 6, GroupSize: 2},
		Workload: Workload{Tasks: 300, Duration: Dist{Dist: distExponential, Mean: 0.01},
			Spawn: Spawn{Prob: 0.3, Min: 1, Max: 3, Depth: 3}, Arrival: Arrival{Target: targetRandom}},
		Costs: Costs{Steal: 1e-4, Failed: 5e-5, Task: 1e-5, Queue: 1e-6, Contention: 1e-6, Wake: 1e-5}}
	cases := []struct {
		name   string
		change func(s *Scenario)
	}{
		{"steal random one", func(s *Scenario) {}},
		{"steal half largest", func(s *Scenario) { s.Policy.Victim, s.Policy.Amount = "largest", "half" }},
		{"two-choices poll", func(s *Scenario) { s.Policy.Victim, s.Policy.Idle.Mode = "two-choices", idlePoll }},
		{"locality spin", func(s *Scenario) { s.Policy.Victim, s.Policy.Idle.Mode = "locality", idleSpin }},
		{"round-robin park", func(s *Scenario) { s.Policy.Victim, s.Policy.Idle.Mode = "round-robin", idlePark }},
		{"fork-join", func(s *Scenario) { s.Workload.Spawn.Join = true }},
		{"central", func(s *Scenario) { s.Policy.Scheduler = schedCentral }},
		{"central fork-join", func(s *Scenario) { s.Policy.Scheduler, s.Workload.Spawn.Join = schedCentral, true }},
		{"static", func(s *Scenario) { s.Policy.Scheduler = schedStatic }},
		{"round-robin", func(s *Scenario) { s.Policy.Scheduler = schedRoundRobin }},
		{"lpt", func(s *Scenario) { s.Policy.Scheduler = schedLPT }},
		{"poisson", func(s *Scenario) {
			s.Workload.Arrival = Arrival{Pattern: arrivePoisson, Rate: 500, Target: targetRoundRobin}
		}},
		{"fib", func(s *Scenario) { s.Workload = Workload{Kind: kindFib, Fib: Fib{N: 18, Cutoff: 8}} }},
		{"uts", func(s *Scenario) { s.Workload = Workload{Kind: kindUTS} }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := base
			tc.change(&s)
			e := runEngine(t, s)
			if a := checkOnce(t, e); a != 0 {
				t.Fatalf("%d aborts without faults", a)
			}
		})
	}
}

func TestFaultsReexecuteAndLoseNothing(t *testing.T) {
	for _, sched := range []string{schedSteal, schedCentral, schedStatic, schedRoundRobin, schedLPT} {
		for _, join := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s join=%v", sched, join), func(t *testing.T) {
				s := Scenario{Seed: 3, Workers: Workers{Count: 5},
					Workload: Workload{Tasks: 200, Duration: Dist{Dist: distUniform, Min: 0.005, Max: 0.02},
						Spawn: Spawn{Prob: 0.4, Depth: 2, Join: join}, Arrival: Arrival{Target: targetRoundRobin}},
					Policy: Policy{Scheduler: sched},
					Costs:  Costs{Steal: 1e-4, Failed: 1e-4, Queue: 1e-5},
					Faults: []Fault{
						{Kind: faultLose, Worker: 1, At: 0.05, Detect: 0.02},
						{Kind: faultLose, Worker: 3, At: 0.1013, Detect: 0},
						{Kind: faultSlow, Worker: 0, At: 0.01, Until: 0.2, Factor: 0.3},
						{Kind: faultSlow, Worker: 0, At: 0.05, Until: 0.1, Factor: 0.5},
					}}
				e := runEngine(t, s)
				aborts := checkOnce(t, e)
				if int64(aborts) != e.reexec {
					t.Fatalf("tasks count %d aborts, report says %d re-executed", aborts, e.reexec)
				}
				if aborts == 0 || e.requeued == 0 {
					t.Fatalf("expected losses to re-execute and re-queue work: aborts %d requeued %d", aborts, e.requeued)
				}
				r := e.report()
				if r.Faults == nil || r.Faults.Lost != 2 || r.Faults.ReExecuted != int64(aborts) {
					t.Fatalf("fault stats %+v", r.Faults)
				}
			})
		}
	}
}

func TestAllWorkersLostStopsIncomplete(t *testing.T) {
	s := Scenario{Workers: Workers{Count: 2}, Workload: Workload{Tasks: 10},
		Faults: []Fault{{Kind: faultLose, Worker: 0, At: 2.5}, {Kind: faultLose, Worker: 1, At: 2.5}}}
	r, err := Run(context.Background(), s, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if c := r.Report.Totals.completion; c >= 1 || c <= 0 {
		t.Fatalf("completion %v; want in (0, 1)", c)
	}
}

func TestOneWorkerMakespanIsT1(t *testing.T) {
	cases := []struct {
		name string
		wl   Workload
	}{
		{"independent", Workload{Tasks: 50, Duration: Dist{Dist: distLognormal, Mean: 0.01}}},
		{"spawn", Workload{Tasks: 20, Duration: Dist{Dist: distUniform, Min: 0.001, Max: 0.01}, Spawn: Spawn{Prob: 0.5}}},
		{"fork-join", Workload{Tasks: 5, Duration: Dist{Dist: distExponential, Mean: 0.01}, Spawn: Spawn{Prob: 0.8, Join: true, Depth: 3}}},
		{"fib", Workload{Kind: kindFib, Fib: Fib{N: 20, Cutoff: 6}}},
		{"uts", Workload{Kind: kindUTS}},
	}
	for _, tc := range cases {
		for _, sched := range []string{schedSteal, schedCentral, schedStatic, schedLPT} {
			t.Run(tc.name+"/"+sched, func(t *testing.T) {
				s := Scenario{Seed: 11, Workers: Workers{Count: 1}, Workload: tc.wl, Policy: Policy{Scheduler: sched}}
				r, err := Run(context.Background(), s, Options{})
				if err != nil {
					t.Fatal(err)
				}
				if d := r.Report.DAG; d.makespan != d.T1 || d.T1 == 0 {
					t.Fatalf("makespan %v; want T1 = %v", d.makespan, d.T1)
				}
			})
		}
	}
}

// randomScenario builds a small random scenario with zero costs.
func randomScenario(r *xrand.Rand) Scenario {
	s := Scenario{Seed: r.Uint64(), Workers: Workers{Count: 1 + r.Intn(12)}}
	dists := []Dist{
		{Dist: distConstant, Value: 0.01},
		{Dist: distUniform, Min: 0.001, Max: 0.02},
		{Dist: distExponential, Mean: 0.01},
		{Dist: distLognormal, Mean: 0.01, Sigma: 1.5},
		{Dist: distPareto, Min: 0.001, Alpha: 1.2, Max: 0.5},
		{Dist: distBimodal, Short: 0.001, Long: 0.05, LongFrac: 0.1},
	}
	wl := &s.Workload
	switch r.Intn(6) {
	case 0:
		wl.Kind, wl.Fib = kindFib, Fib{N: 8 + r.Intn(8), Cutoff: 2 + r.Intn(5), Leaf: 1e-6, Split: Seconds(r.Float64() * 1e-5), Join: Seconds(r.Float64() * 1e-5)}
	case 1:
		wl.Kind, wl.UTS = kindUTS, UTS{Type: []string{utsGeometric, utsBinomial}[r.Intn(2)], B0: 2 + 3*r.Float64(), Depth: 3 + r.Intn(3), Q: 0.2, M: 3, Root: r.Intn(100)}
	default:
		wl.Tasks = 1 + r.Intn(40)
		wl.Duration = dists[r.Intn(len(dists))]
		if r.Intn(2) == 0 {
			wl.Spawn = Spawn{Prob: r.Float64() * 0.6, Min: 1, Max: 1 + r.Intn(3), Depth: 1 + r.Intn(3), Join: r.Intn(2) == 0}
		}
		switch r.Intn(3) {
		case 1:
			wl.Arrival = Arrival{Pattern: arrivePoisson, Rate: 50 + 500*r.Float64(), Target: targetRandom}
		case 2:
			wl.Tasks = 0
			for k := 0; k < 1+r.Intn(3); k++ {
				wl.Arrival.Pattern = arriveBursts
				wl.Arrival.Bursts = append(wl.Arrival.Bursts, Burst{At: Seconds(r.Float64() * 0.05), Tasks: 1 + r.Intn(10), Worker: r.Intn(s.Workers.Count)})
			}
		}
	}
	return s
}

func TestWorkSpanBounds(t *testing.T) {
	n := 3000
	if testing.Short() || raceEnabled {
		n = 300
	}
	seed := uint64(time.Now().UnixNano())
	if v := os.Getenv("SIM_SEED"); v != "" {
		fmt.Sscan(v, &seed)
	}
	t.Logf("seed %d (SIM_SEED=%d to replay)", seed, seed)
	r := xrand.New(seed)
	policies := []Policy{
		{Scheduler: schedSteal}, {Scheduler: schedSteal, Victim: "largest", Amount: "half"},
		{Scheduler: schedSteal, Victim: "two-choices", Idle: Idle{Mode: idlePark}},
		{Scheduler: schedStatic}, {Scheduler: schedRoundRobin}, {Scheduler: schedLPT},
	}
	for i := 0; i < n; i++ {
		s := randomScenario(r)
		// the greedy central queue with zero costs meets T1/P + T∞
		s.Policy = Policy{Scheduler: schedCentral}
		res, err := Run(context.Background(), s, Options{})
		if err != nil {
			t.Fatalf("case %d: %v\n%+v", i, err, s)
		}
		d := res.Report.DAG
		if d.makespan < d.LowerBound*(1-1e-12) || d.makespan > d.GreedyBound*(1+1e-12) {
			t.Fatalf("case %d central: makespan %v outside [%v, %v]\n%+v", i, d.makespan, d.LowerBound, d.GreedyBound, s)
		}
		// every policy, with costs, respects the lower bound
		s.Policy = policies[r.Intn(len(policies))]
		s.Costs = Costs{Steal: Seconds(r.Float64() * 1e-4), Failed: Seconds(r.Float64() * 1e-4), Task: Seconds(r.Float64() * 1e-5)}
		res, err = Run(context.Background(), s, Options{})
		if err != nil {
			t.Fatalf("case %d: %v\n%+v", i, err, s)
		}
		if d := res.Report.DAG; d.makespan < d.LowerBound*(1-1e-12) {
			t.Fatalf("case %d %s: makespan %v below lower bound %v\n%+v", i, s.Policy.Scheduler, d.makespan, d.LowerBound, s)
		}
	}
}

// TestCentralQueueCrossover finds the worker count at which one shared
// queue with contention starts losing to per-worker deques on fine tasks.
func TestCentralQueueCrossover(t *testing.T) {
	base := Scenario{Seed: 1,
		Workload: Workload{Tasks: 8000, Duration: Dist{Dist: distConstant, Value: 10e-6}},
		Costs:    Costs{Queue: 100e-9, Contention: 50e-9, Steal: 300e-9, Failed: 100e-9}}
	crossover := 0
	for p := 2; p <= 128; p *= 2 {
		s := base
		s.Workers.Count = p
		s.Policy.Scheduler = schedCentral
		c, err := Run(context.Background(), s, Options{})
		if err != nil {
			t.Fatal(err)
		}
		s.Policy.Scheduler = schedSteal
		w, err := Run(context.Background(), s, Options{})
		if err != nil {
			t.Fatal(err)
		}
		cm, wm := c.Report.Totals.Makespan, w.Report.Totals.Makespan
		t.Logf("P=%3d central %s  steal %s", p, fmtSec(cm), fmtSec(wm))
		if p == 2 && cm >= wm {
			t.Errorf("at P=2 the central queue should still win: %s vs %s", fmtSec(cm), fmtSec(wm))
		}
		if crossover == 0 && cm > wm {
			crossover = p
		}
		if crossover != 0 && cm <= wm {
			t.Fatalf("central wins again at P=%d after losing at P=%d", p, crossover)
		}
	}
	if crossover == 0 || crossover == 2 {
		t.Fatalf("no crossover found (got %d)", crossover)
	}
	t.Logf("crossover at %d workers", crossover)
}

func TestSameSeedSameOutput(t *testing.T) {
	for _, p := range presets() {
		if p.Name == "scale" || p.Scenario.sweep != nil {
			continue
		}
		t.Run(p.Name, func(t *testing.T) {
			var outs [2]string
			for i := range outs {
				var log, buf bytes.Buffer
				r, err := Run(context.Background(), p.Scenario, Options{Log: &log, record: true})
				if err != nil {
					t.Fatal(err)
				}
				r.Report.WriteText(&buf)
				r.Report.WriteJSON(&buf)
				r.writeTrace(&buf)
				r.writeGantt(&buf)
				outs[i] = log.String() + buf.String()
			}
			if outs[0] != outs[1] {
				t.Fatal("two runs with the same seed differ")
			}
		})
	}
	s, _ := lookupPreset("nested")
	a, _ := Run(context.Background(), s, Options{})
	s.Seed++
	b, _ := Run(context.Background(), s, Options{})
	if a.Report.Totals.Makespan == b.Report.Totals.Makespan {
		t.Fatal("a different seed gave the same makespan")
	}
}

func TestBasicPresetLogMatchesGolden(t *testing.T) {
	s, err := lookupPreset("basic")
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	r, err := Run(context.Background(), s, Options{Log: &out})
	if err != nil {
		t.Fatal(err)
	}
	out.WriteString("\n")
	r.Report.WriteText(&out)
	path := filepath.Join("testdata", "basic.golden")
	if *update {
		os.MkdirAll("testdata", 0o755)
		if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -run TestBasicPresetLogMatchesGolden -update)", err)
	}
	if got := out.String(); got != string(want) {
		t.Errorf("output differs from %s (go test -run TestBasicPresetLogMatchesGolden -update rewrites it)\ngot:\n%s", path, got)
	}
}

func TestUTSReferenceCounts(t *testing.T) {
	cases := []struct {
		name                 string
		u                    UTS
		nodes, leaves, depth int
	}{
		{"default", UTS{Type: utsGeometric, Shape: shapeLinear, B0: 4, Depth: 6, Root: 0}, 1732, 1050, 6},
		{"T1", UTS{Type: utsGeometric, Shape: shapeFixed, B0: 4, Depth: 10, Root: 19}, 4130071, 3305118, 10},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.nodes > 100000 && (testing.Short() || raceEnabled) {
				t.Skip("large tree")
			}
			n, l, d := utsCount(tc.u)
			if n != tc.nodes || l != tc.leaves || d != tc.depth {
				t.Fatalf("utsCount = %d nodes, %d leaves, depth %d; want %d, %d, %d", n, l, d, tc.nodes, tc.leaves, tc.depth)
			}
		})
	}
	// the simulated tree is the same tree
	r, err := Run(context.Background(), Scenario{Workers: Workers{Count: 8}, Workload: Workload{Kind: kindUTS}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Report.Totals.Completed != 1732 {
		t.Fatalf("simulated UTS ran %d nodes; want 1732", r.Report.Totals.Completed)
	}
}

func TestFibShape(t *testing.T) {
	// fib(n) with cutoff c: tasks = internal nodes + leaves of the call tree above c
	r, err := Run(context.Background(), Scenario{Workers: Workers{Count: 1}, Workload: Workload{Kind: kindFib, Fib: Fib{N: 10, Cutoff: 11, Leaf: 1e-9}}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := r.Report.DAG.T1, float64(fibtree.Calls(10))*1e-9; math.Abs(got-want) > 1e-15 || r.Report.Totals.Tasks != 1 {
		t.Fatalf("fib(10) below cutoff: T1 %v tasks %d; want %v, 1", got, r.Report.Totals.Tasks, want)
	}
	if fibtree.Calls(0) != 1 || fibtree.Calls(1) != 1 || fibtree.Calls(2) != 3 || fibtree.Calls(5) != 15 {
		t.Fatal("fibCalls wrong")
	}
}

func TestLogFormat(t *testing.T) {
	s, _ := lookupPreset("basic")
	var log bytes.Buffer
	if _, err := Run(context.Background(), s, Options{Log: &log}); err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`\] worker \d+: stole T\d+ from worker \d+\n`).MatchString(log.String()) {
		t.Fatalf("log lacks a steal line:\n%s", log.String())
	}
}

func TestFmtTime(t *testing.T) {
	cases := []struct {
		d    time.Duration
		want string
	}{{0, "0"}, {12400 * time.Millisecond, "12.4"}, {1, "0.000000001"}, {1451548889 * time.Nanosecond, "1.451548889"}}
	for _, tc := range cases {
		if got := fmtTime(tc.d); got != tc.want {
			t.Errorf("fmtTime(%d) = %q; want %q", tc.d, got, tc.want)
		}
	}
}

// The event budget is exact: a run of N events passes with a budget of N
// and fails with N−1, however small N is.
func TestMaxEventsExact(t *testing.T) {
	s, _ := lookupPreset("basic")
	full, err := Run(context.Background(), s, Options{})
	if err != nil {
		t.Fatal(err)
	}
	n := full.Report.Totals.events
	if _, err := Run(context.Background(), s, Options{maxEvents: n}); err != nil {
		t.Fatalf("budget %d = the run's events: %v", n, err)
	}
	for _, budget := range []int64{n - 1, 5, 1} {
		_, err := Run(context.Background(), s, Options{maxEvents: budget})
		if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("more than %d events", budget)) {
			t.Fatalf("budget %d of a %d-event run: err = %v", budget, n, err)
		}
	}
}

// A normalized scenario normalizes to itself (what --print-scenario
// prints can be read back with -f), for every preset.
func TestNormalizeIdempotent(t *testing.T) {
	for _, p := range presets() {
		n1, err := p.Scenario.Normalize()
		if err != nil {
			t.Fatalf("%s: %v", p.Name, err)
		}
		n2, err := n1.Normalize()
		if err != nil {
			t.Fatalf("%s: the normalized scenario is rejected: %v", p.Name, err)
		}
		b1, _ := json.Marshal(n1)
		b2, _ := json.Marshal(n2)
		if !bytes.Equal(b1, b2) {
			t.Fatalf("%s: normalizing twice changes it:\n%s\n%s", p.Name, b1, b2)
		}
		back, err := ParseScenario(b1)
		if err != nil {
			t.Fatalf("%s: printed scenario does not parse: %v\n%s", p.Name, err, b1)
		}
		b3, _ := json.Marshal(back)
		if !bytes.Equal(b1, b3) {
			t.Fatalf("%s: printed and parsed back differs:\n%s\n%s", p.Name, b1, b3)
		}
	}
}

// The recorded schedule draws each task for exactly its work (speed 1, no
// faults): waiting for the central queue's lock, between the pieces of a
// task that spawns, is not drawn as part of the task.
func TestSpansAreTheWork(t *testing.T) {
	for _, sched := range []string{schedSteal, schedCentral, schedStatic, schedLPT} {
		s := Scenario{Seed: 1, Workers: Workers{Count: 8},
			Workload: Workload{Tasks: 50, Duration: Dist{Value: 0.5}, Spawn: Spawn{Prob: 0.5, At: 0.5}},
			Policy:   Policy{Scheduler: sched}, Costs: Costs{Queue: 0.05, Contention: 0.02, Steal: 0.01, Task: 0.01}}
		e := runEngine(t, s)
		r, err := Run(context.Background(), s, Options{record: true})
		if err != nil {
			t.Fatal(err)
		}
		drawn := map[int]time.Duration{}
		for _, sp := range r.schedule.Spans {
			drawn[sp.Task] += sp.End - sp.Start
		}
		for id := range e.tasks {
			if w := e.tasks[id].work[0] + e.tasks[id].work[1]; drawn[id] != w {
				t.Fatalf("%s: T%d drawn for %v; its work is %v", sched, id, drawn[id], w)
			}
		}
	}
}

// A lone worker that spins has nobody to steal from: it waits for work
// without making events (a spin every nanosecond for five virtual seconds
// would exhaust any event budget).
func TestLoneSpinnerWaits(t *testing.T) {
	s := Scenario{Workers: Workers{Count: 1},
		Workload: Workload{Arrival: Arrival{Pattern: arriveBursts, Bursts: []Burst{{At: 5, Tasks: 1}}}},
		Policy:   Policy{Idle: Idle{Mode: idleSpin}}, Costs: Costs{Steal: 1e-6}}
	r, err := Run(context.Background(), s, Options{maxEvents: 1000})
	if err != nil {
		t.Fatal(err)
	}
	if r.Report.Totals.Makespan != 6 {
		t.Fatalf("makespan %v; want 6 (arrival at 5, one second of work)", r.Report.Totals.Makespan)
	}
}
