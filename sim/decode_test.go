package sim

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseScenario(t *testing.T) {
	doc := `{
  "name": "mine",
  "seed": 42,
  "workers": {"count": 3, "speeds": [1, 0.5]},
  "workload": {
    "tasks": 12,
    "duration": {"dist": "uniform", "min": "500ms", "max": 2}
  },
  "policy": {"victim": "adaptive", "amount": "half"},
  "costs": {"steal": "20us"}
}`
	s, err := ParseScenario([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	if s.Name != "mine" || s.Seed != 42 || s.Workers.Count != 3 || s.Workers.Speeds[1] != 0.5 || s.Workers.Speeds[2] != 1 {
		t.Fatalf("workers decoded wrong: %+v", s.Workers)
	}
	if d := s.Workload.Duration; d.Min != 0.5 || d.Max != 2 || s.Workload.Tasks != 12 {
		t.Fatalf("workload decoded wrong: %+v", s.Workload)
	}
	if s.Policy.Victim != "largest" || s.Policy.Amount != "half" || s.Costs.Steal != 20e-6 {
		t.Fatalf("policy/costs decoded wrong: %+v %+v", s.Policy, s.Costs)
	}
}

func TestParseScenarioErrors(t *testing.T) {
	cases := []struct {
		name, doc string
		path      string // the field the error must name
		line      int
	}{
		{"unknown field", "{\n \"workers\": {\n  \"cuont\": 3\n }\n}", "workers.cuont", 3},
		{"wrong type", "{\n \"workers\": {\"count\": \"three\"}\n}", "workers.count", 2},
		{"not an object", `{"workload": 5}`, "workload", 1},
		{"bad dist", "{\"workload\": {\n\"duration\": {\n\"dist\": \"gaussian\"}}}", "workload.duration.dist", 3},
		{"negative count", "{\"workers\":\n{\"count\": -2}}", "workers.count", 2},
		{"bad victim", "{\"policy\": {\"victim\": \"nearest\"}}", "policy.victim", 1},
		{"bad amount", "{\"policy\": {\"amount\": \"all\"}}", "policy.amount", 1},
		{"bad time", "{\"costs\": {\"steal\": \"soon\"}}", "costs.steal", 1},
		{"negative time", "{\"costs\": {\n\"steal\": -1}}", "costs.steal", 2},
		{"fault worker", "{\"workers\": {\"count\": 2},\n\"faults\": [\n{\"kind\": \"lose\", \"worker\": 2}]}", "faults[0].worker", 3},
		{"fault kind", "{\"faults\": [{\"kind\": \"explode\"}]}", "faults[0].kind", 1},
		{"slow factor", "{\"faults\": [{\"kind\": \"slow\", \"factor\": 0}]}", "faults[0].factor", 1},
		{"spin without cost", "{\"policy\": {\"idle\": {\"mode\": \"spin\"}}}", "policy.idle.mode", 1},
		{"poisson rate", "{\"workload\": {\"arrival\": {\"pattern\": \"poisson\"}}}", "workload.arrival.rate", 1},
		{"burst worker", "{\"workload\": {\"arrival\": {\"pattern\": \"bursts\", \"bursts\": [{\"tasks\": 1, \"worker\": 9}]}}}", "workload.arrival.bursts[0].worker", 1},
		{"uniform max", "{\"workload\": {\"duration\": {\"dist\": \"uniform\", \"min\": 2, \"max\": 1}}}", "workload.duration.max", 1},
		{"duplicate", "{\"seed\": 1,\n\"seed\": 2}", "seed", 2},
		{"fractional int", `{"workload": {"tasks": 1.5}}`, "workload.tasks", 1},
		{"sweep param", `{"sweep": {"param": "colour", "values": ["1"]}}`, "sweep.param", 1},
		{"uts type", `{"workload": {"kind": "uts", "uts": {"type": "ternary"}}}`, "workload.uts.type", 1},
		{"kind", `{"workload": {"kind": "mapreduce"}}`, "workload.kind", 1},
		{"group", `{"workers": {"count": 2, "groups": [0, 5]}}`, "workers.groups[1]", 1},
		{"lognormal sigma", `{"workload": {"duration": {"dist": "lognormal", "mean": 1, "sigma": 11}}}`, "workload.duration.sigma", 1},
		{"pareto alpha", `{"workload": {"duration": {"dist": "pareto", "min": 1, "alpha": -1}}}`, "workload.duration.alpha", 1},
		{"bimodal long_frac", `{"workload": {"duration": {"dist": "bimodal", "long_frac": 1.5}}}`, "workload.duration.long_frac", 1},
		{"tree depth", `{"workload": {"kind": "tree", "tree": {"depth": 21}}}`, "workload.tree.depth", 1},
		{"fib n", `{"workload": {"kind": "fib", "fib": {"n": 61}}}`, "workload.fib.n", 1},
		{"uts depth", `{"workload": {"kind": "uts", "uts": {"depth": -1}}}`, "workload.uts.depth", 1},
		{"uts q", `{"workload": {"kind": "uts", "uts": {"q": 1.5}}}`, "workload.uts.q", 1},
		{"uts m", `{"workload": {"kind": "uts", "uts": {"m": 101}}}`, "workload.uts.m", 1},
		{"uts max_nodes", `{"workload": {"kind": "uts", "uts": {"max_nodes": 268435457}}}`, "workload.uts.max_nodes", 1},
		{"spawn prob", `{"workload": {"spawn": {"prob": -0.5}}}`, "workload.spawn.prob", 1},
		{"spawn min", `{"workload": {"spawn": {"prob": 0.5, "min": 1001}}}`, "workload.spawn.min", 1},
		{"spawn at", `{"workload": {"spawn": {"prob": 0.5, "at": 2}}}`, "workload.spawn.at", 1},
		{"spawn depth", `{"workload": {"spawn": {"prob": 0.5, "depth": 65}}}`, "workload.spawn.depth", 1},
		{"idle jitter", `{"policy": {"idle": {"jitter": 1.5}}}`, "policy.idle.jitter", 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseScenario([]byte(tc.doc))
			var fe *FieldError
			if !errors.As(err, &fe) {
				t.Fatalf("ParseScenario(%q) error = %v; want a *FieldError", tc.doc, err)
			}
			if fe.Path != tc.path || fe.Line != tc.line {
				t.Fatalf("ParseScenario error names %s line %d; want %s line %d (%v)", fe.Path, fe.Line, tc.path, tc.line, err)
			}
			if !strings.HasPrefix(err.Error(), "sim: ") || !strings.Contains(err.Error(), tc.path) {
				t.Fatalf("error %q lacks the sim: prefix or the field", err)
			}
		})
	}
}

// TestRangeErrorsQuoteTheRange pins the text of the range checks, which
// one generic check (param) writes for int and float fields alike.
func TestRangeErrorsQuoteTheRange(t *testing.T) {
	for doc, want := range map[string]string{
		`{"workload": {"kind": "uts", "uts": {"max_nodes": 268435457}}}`:            "workload.uts.max_nodes: must be in [1, 268435456], got 268435457",
		`{"workload": {"kind": "fib", "fib": {"n": -3}}}`:                           "workload.fib.n: must be in [0, 60], got -3",
		`{"workload": {"kind": "uts", "uts": {"q": 1.5}}}`:                          "workload.uts.q: must be in [0, 1], got 1.5",
		`{"workload": {"duration": {"dist": "lognormal", "mean": 1, "sigma": -1}}}`: "workload.duration.sigma: must be in (0, 10], got -1",
		`{"workload": {"kind": "tree", "tree": {"depth": -1}}}`:                     "workload.tree.depth: must be in [1, 20], got -1",
	} {
		_, err := ParseScenario([]byte(doc))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseScenario(%s) error = %v; want it to contain %q", doc, err, want)
		}
	}
}

func TestParseScenarioSyntax(t *testing.T) {
	for _, doc := range []string{"", "{", `{"a":}`, "[1, 2]", `{"seed": 1} extra`, "{\n\n\"seed\": 1,,}",
		"# a comment only\n", "seed: 1\n---\nseed: 2\n", "workers: [1, 2\n", "\tseed: 1"} {
		_, err := ParseScenario([]byte(doc))
		if err == nil || !strings.HasPrefix(err.Error(), "sim: ") {
			t.Errorf("ParseScenario(%q) error = %v; want a sim: error", doc, err)
		}
	}
}

func TestParseSweep(t *testing.T) {
	cases := []struct {
		spec  string
		param string
		vals  string
		bad   bool
	}{
		{"workers=2..5", "workers", "2,3,4,5", false},
		{"victim=random,largest", "victim", "random,largest", false},
		{"grain = 0.1, 0.5", "grain", "0.1,0.5", false},
		{"max_batch=-1,32", "max_batch", "-1,32", false},
		{"eager_depth=0,-1", "eager_depth", "0,-1", false},
		{"colour=red", "", "", true},
		{"workers", "", "", true},
		{"workers=5..2", "", "", true},
	}
	for _, tc := range cases {
		sw, err := parseSweep(tc.spec)
		if tc.bad {
			if err == nil {
				t.Errorf("ParseSweep(%q) = %v; want an error", tc.spec, sw)
			}
			continue
		}
		if err != nil || sw.Param != tc.param || strings.Join(sw.Values, ",") != tc.vals {
			t.Errorf("ParseSweep(%q) = %+v, %v; want %s=%s", tc.spec, sw, err, tc.param, tc.vals)
		}
	}
}

// FuzzParseScenario checks that no input makes the parser (or a short run
// of what it accepts) panic.
func FuzzParseScenario(f *testing.F) {
	f.Add([]byte(`{"workers": {"count": 3}, "workload": {"tasks": 10, "duration": {"dist": "uniform", "min": 0.5, "max": 2}}}`))
	f.Add([]byte(`{"workload": {"kind": "fib", "fib": {"n": 12, "cutoff": 4}}, "policy": {"scheduler": "central"}}`))
	f.Add([]byte(`{"faults": [{"kind": "lose", "worker": 1, "at": "1ms", "detect": 0.1}], "workers": {"groups": [0, 1, 1]}}`))
	f.Add([]byte(`{"workload": {"arrival": {"pattern": "bursts", "bursts": [{"at": 1, "tasks": 3, "target": "random"}]}}}`))
	f.Add([]byte(`{"sweep": {"param": "workers", "values": [1, 2]}, "limit": 5}`))
	f.Add([]byte(`[{"a": [[[[]]]]}, null, true, 1e999]`))
	f.Add([]byte("workers: {count: 3}\nworkload: {tasks: 10, duration: {dist: uniform, min: 0.5, max: 2}}\n"))
	f.Add([]byte("a: &a [*a]\n"))
	f.Add([]byte("workers: &w {count: 2}\nworkload: {tasks: *w}\n"))
	f.Add([]byte("faults:\n  - {kind: lose, worker: 1, at: 1ms}\nsweep: {param: workers, values: [1, 2]}\n"))
	f.Add([]byte("<<: {x: 1}\n"))
	f.Add([]byte("seed: 99999999999999999999\nlimit: .inf\n"))
	f.Add([]byte("a: 1\n---\nb: 2\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ParseScenario(data)
		if err != nil {
			return
		}
		if _, err := s.Normalize(); err != nil {
			t.Fatalf("an accepted scenario fails to normalize again: %v", err)
		}
		// run what is small enough to run quickly
		if s.Workers.Count <= 64 && s.Workload.Tasks <= 200 && s.Workload.Kind == kindTasks && s.Workload.Spawn.Prob == 0 {
			s.Limit = 100
			s.sweep = nil
			runEngineNoFail(s)
		}
	})
}

func runEngineNoFail(s *Scenario) {
	e, err := newEngine(s, Options{maxEvents: 100000})
	if err != nil {
		return
	}
	e.run(context.Background())
}

// YAML scenarios decode like JSON ones, anchors and aliases included, and
// their errors name the field and its line.
func TestParseScenarioYAML(t *testing.T) {
	s, err := ParseScenario([]byte(`# a scenario
name: yaml
workers:
  count: 3
  speeds: [1, 0.5]
workload:
  tasks: 1e3
  duration: &d {dist: uniform, min: 500ms, max: 2}
policy: {victim: adaptive, amount: half, max_batch: -1}
costs:
  steal: 20us
  failed_steal: 1.5e-6
`))
	if err != nil {
		t.Fatal(err)
	}
	if s.Name != "yaml" || s.Workers.Count != 3 || s.Workers.Speeds[1] != 0.5 || s.Workload.Tasks != 1000 ||
		s.Workload.Duration.Min != 0.5 || s.Policy.Victim != "largest" || s.Policy.MaxBatch != -1 || s.Costs.Steal != 20e-6 {
		t.Fatalf("decoded %+v", s)
	}
	cases := []struct {
		doc, path string
		line      int
		msg       string
	}{
		{"workers:\n  count: 3\n  cuont: 4\n", "workers.cuont", 3, "unknown field"},
		{"seed: 1\nseed: 2\n", "seed", 2, "duplicate field"},
		{"workload:\n  tasks: [1]\n", "workload.tasks", 2, "want an integer, got a list"},
		{"policy:\n  amount: all\n", "policy.amount", 2, "unknown value"},
		{"workers: &w {count: 2}\nworkload: *w\n", "workload.count", 1, "unknown field"},
		{"base: &b {seed: 1}\n", "base", 1, "unknown field"},
		{"<<: {seed: 1}\n", "scenario", 1, "merge keys"},
		{"limit: .inf\n", "limit", 1, "want a time in seconds"},
		{"workers:\n  count: 99999999999\n", "workers.count", 2, "out of range"},
		{"workload:\n  spawn:\n    join: yes\n", "workload.spawn.join", 3, "want true or false"},
	}
	for _, tc := range cases {
		_, err := ParseScenario([]byte(tc.doc))
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Path != tc.path || fe.Line != tc.line || !strings.Contains(fe.Msg, tc.msg) {
			t.Errorf("ParseScenario(%q) = %v; want %s at line %d: %s", tc.doc, err, tc.path, tc.line, tc.msg)
		}
	}
}

// Errors that Run and RunSweep find in a parsed scenario name the line of
// the field they concern.
func TestRunErrorsNameTheLine(t *testing.T) {
	s, err := ParseScenario([]byte("workers:\n  count: 2\nsweep:\n  param: workers\n  values: [2, -3]\n"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = runSweep(context.Background(), *s, Options{})
	var fe *FieldError
	if !errors.As(err, &fe) || fe.Path != "sweep.values[1]" || fe.Line != 5 {
		t.Fatalf("RunSweep error = %v; want sweep.values[1] at line 5", err)
	}
	s.Workers.Count = -1 // as a flag would set it
	_, err = Run(context.Background(), *s, Options{})
	if !errors.As(err, &fe) || fe.Path != "workers.count" || fe.Line != 2 {
		t.Fatalf("Run error = %v; want workers.count at line 2", err)
	}
}

// The report's JSON is its stable interface, and the whole report: the
// figures Go code reads as fields and the ones only the JSON and the text
// carry (the header, the per-worker sums, the most stretched joins).
// testdata/report holds two presets' scenarios as --print-scenario wrote
// them and their reports as `worksteal sim --json` wrote them before the
// report's header and sums were unexported (a fork-join run with joins, and
// one with faults); the bytes must not change.
func TestReportJSONIsUnchanged(t *testing.T) {
	for _, name := range []string{"fork-join", "faults"} {
		scen, err := os.ReadFile(filepath.Join("testdata", "report", name+".scenario.json"))
		if err != nil {
			t.Fatal(err)
		}
		want, err := os.ReadFile(filepath.Join("testdata", "report", name+".report.json"))
		if err != nil {
			t.Fatal(err)
		}
		s, err := ParseScenario(scen)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		res, err := Run(context.Background(), *s, Options{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var got bytes.Buffer
		if err := res.Report.WriteJSON(&got); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want) {
			t.Errorf("%s: the report's JSON changed:\n%s\nwant:\n%s", name, got.Bytes(), want)
		}
	}
}
