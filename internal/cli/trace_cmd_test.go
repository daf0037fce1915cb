package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/worksteal/worksteal/internal/cli/simcmd"
	"github.com/worksteal/worksteal/internal/simfit"
)

func TestTraceRecordSummarizeAndDraw(t *testing.T) {
	dir := t.TempDir()
	trace, svg := filepath.Join(dir, "fib.json"), filepath.Join(dir, "fib.svg")
	recSVG := filepath.Join(dir, "rec.svg")
	code, out, errs := runSimCLI(t, "trace", "record", "--workload", "fib", "--size", "22", "--workers", "2", "-o", trace, "--svg", recSVG)
	if code != 0 {
		t.Fatalf("record: exit %d: %s", code, errs)
	}
	if b, err := os.ReadFile(recSVG); err != nil || !strings.HasPrefix(string(b), "<svg") || !strings.Contains(string(b), "worker 1") {
		t.Errorf("record --svg: %v\n%.200s", err, b)
	}
	if !strings.Contains(out, "fib 22 = 17711 on 2 workers") || !strings.Contains(errs, "wrote "+trace) {
		t.Errorf("record output:\n%s\n%s", out, errs)
	}
	code, out, errs = runSimCLI(t, "trace", trace, "--svg", svg, "--top", "3")
	if code != 0 {
		t.Fatalf("trace: exit %d: %s", code, errs)
	}
	for _, want := range []string{"worksteal: 2 workers", "utilization", "longest tasks", "critical path as the trace shows it"} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
	b, err := os.ReadFile(svg)
	if err != nil || !strings.HasPrefix(string(b), "<svg") || !strings.Contains(string(b), "worker 1") {
		t.Errorf("SVG: %v\n%.200s", err, b)
	}
	code, out, _ = runSimCLI(t, "trace", trace, "--json")
	var s struct {
		Workers []struct {
			Tasks int `json:"tasks"`
		} `json:"workers"`
		Path struct {
			Links []json.RawMessage `json:"links"`
		} `json:"critical_path"`
	}
	if err := json.Unmarshal([]byte(out), &s); code != 0 || err != nil || len(s.Workers) != 2 || len(s.Path.Links) == 0 {
		t.Errorf("--json: exit %d, %v: %.300s", code, err, out)
	}
}

// The simulator's traces read back the same way.
func TestTraceOfSimulatedSchedule(t *testing.T) {
	dir := t.TempDir()
	trace := filepath.Join(dir, "sim.json")
	if code, _, errs := runSimCLI(t, "sim", "fork-join", "--trace", trace); code != 0 {
		t.Fatalf("sim: exit %d: %s", code, errs)
	}
	code, out, errs := runSimCLI(t, "trace", trace, "--svg", filepath.Join(dir, "sim.svg"))
	if code != 0 || !strings.Contains(out, "steal from") || !strings.Contains(out, "critical path") {
		t.Fatalf("trace of a sim trace: exit %d: %s\n%s", code, errs, out)
	}
}

func TestTraceErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte("not json"), 0o644)
	for _, tc := range []struct {
		args []string
		code int
	}{
		{[]string{"trace"}, 2}, // cobra: wrong number of args
		{[]string{"trace", filepath.Join(dir, "missing.json")}, 2},
		{[]string{"trace", bad}, 2},
		{[]string{"trace", "record", "--workload", "nqueens", "-o", filepath.Join(dir, "x.json")}, 2},
		{[]string{"trace", "record", "--ring", "0", "-o", filepath.Join(dir, "x.json")}, 2},
		{[]string{"trace", "profile", "--workload", "fib", "--size", "99"}, 2},
		{[]string{"trace", "profile", "--runs", "0"}, 2},
		{[]string{"sim", "--profile", bad}, 2},
		{[]string{"sim", "basic", "--profile", bad}, 2},
	} {
		if code, _, errs := runSimCLI(t, tc.args...); code != tc.code {
			t.Errorf("%v: exit %d (%s); want %d", tc.args, code, strings.TrimSpace(errs), tc.code)
		}
	}
}

// Work/span on a workload whose T1 and T∞ are known: a balanced tree of
// 32 leaves of 300µs has T1 ≈ 32 × 300µs and T∞ ≈ 300µs (plus the joins).
// Strands are timed on the wall clock, so a busy machine inflates the span
// (a preempted strand on the path): the run is repeated a few times and
// only a gross error fails the test; the simulator's tests check the
// prediction exactly.
func TestTraceProfileKnownTree(t *testing.T) {
	const leaves, leaf = 32, 300e-6
	dir := t.TempDir()
	prof := filepath.Join(dir, "tree.json")
	var p *simfit.Profile
	best := 0.0 // the best parallelism of the tries
	for try := 0; try < 3; try++ {
		code, out, errs := runSimCLI(t, "trace", "profile", "--workload", "tree", "--size", "5", "--leaf", "300us",
			"--workers", "2", "--runs", "2", "--out", prof)
		if code != 0 {
			t.Fatalf("profile: exit %d: %s", code, errs)
		}
		if !strings.Contains(out, "tree 5 leaf 300µs = 32") || !strings.Contains(out, "   1024  ") {
			t.Fatalf("profile output:\n%s", out)
		}
		data, err := os.ReadFile(prof)
		if err != nil {
			t.Fatal(err)
		}
		if p, err = simfit.ParseProfile(data); err != nil {
			t.Fatal(err)
		}
		t.Logf("try %d: work %v span %v parallelism %.1f forks %d", try, p.Work, p.Span, p.Parallelism(), p.Forks)
		best = max(best, p.Parallelism())
		if best > 8 {
			break
		}
	}
	if p.Forks != leaves-1 {
		t.Errorf("forks %d; want %d", p.Forks, leaves-1)
	}
	if float64(p.Work) < leaves*leaf || float64(p.Span) < leaf {
		t.Errorf("work %v span %v; want at least %v and %v", p.Work, p.Span, leaves*leaf, leaf)
	}
	switch par := best; {
	case par > leaves*1.1:
		t.Errorf("parallelism %.1f; want at most about %d", par, leaves)
	case par < 1:
		t.Errorf("parallelism %.1f below 1: a span longer than the work is a bug, not load", par)
	case par < 8:
		t.Logf("parallelism %.1f: the machine is busy (the ideal is %d)", par, leaves)
	}
	// The measured profile simulates, within the work and span laws.
	for _, workers := range []string{"1", "8"} {
		rows := simProfile(t, prof, "--workers", workers)
		if len(rows) != 1 || strconv.Itoa(rows[0].Workers) != workers {
			t.Fatalf("--workers %s: rows %+v", workers, rows)
		}
		checkLaws(t, rows[0], float64(p.Work), float64(p.Span))
	}
}

// simProfile runs "worksteal sim --profile FILE --json" and returns its rows.
func simProfile(t *testing.T, file string, args ...string) []simcmd.ProfileRow {
	t.Helper()
	code, out, errs := runSimCLI(t, append([]string{"sim", "--profile", file, "--json"}, args...)...)
	if code != 0 {
		t.Fatalf("sim --profile: exit %d: %s", code, errs)
	}
	var res struct {
		Fit  simfit.ProfileFit   `json:"fit"`
		Rows []simcmd.ProfileRow `json:"rows"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if res.Fit.RelError > 0.01 {
		t.Errorf("fit off by %.2g", res.Fit.RelError)
	}
	return res.Rows
}

// checkLaws checks a predicted row against the work and span laws.
func checkLaws(t *testing.T, r simcmd.ProfileRow, work, span float64) {
	t.Helper()
	if r.Makespan < r.Bound*(1-1e-9) || r.Bound < span*(1-0.01) || r.Bound < work/float64(r.Workers)*(1-0.01) {
		t.Errorf("P=%d: makespan %v, bound %v: below max(T1/P, T∞) = max(%v, %v)", r.Workers, r.Makespan, r.Bound, work/float64(r.Workers), span)
	}
	if r.Speedup > r.SpeedupHi*1.01 {
		t.Errorf("P=%d: simulated speedup %.2f above the span law's %.2f", r.Workers, r.Speedup, r.SpeedupHi)
	}
}

// The prediction over P = 1 … 1,024 for a profile of known T1 = 2ms and
// T∞ = 100µs: exactly T1 on one worker, within the laws everywhere, and
// near T∞ on 1,024 workers.
func TestSimProfileSweep(t *testing.T) {
	prof := filepath.Join(t.TempDir(), "p.json")
	os.WriteFile(prof, []byte(`{"workload":"known","work":0.002,"span":0.0001,"burdened_span":0.00011,"forks":1000,"steal_cost":1e-6,"workers":2}`), 0o644)
	rows := simProfile(t, prof)
	if len(rows) != 11 || rows[0].Workers != 1 || rows[10].Workers != 1024 {
		t.Fatalf("rows %+v; want P = 1, 2, 4 … 1024", rows)
	}
	for _, r := range rows {
		checkLaws(t, r, 0.002, 0.0001)
	}
	if one := rows[0]; math.Abs(one.Makespan-0.002) > 1e-6 || one.SpeedupHi != 1 {
		t.Errorf("P=1: makespan %v; want T1 = 2ms", one.Makespan)
	}
	if last := rows[10]; last.Makespan > 0.00015 {
		t.Errorf("P=1024: makespan %v; want near T∞ = 100µs", last.Makespan)
	}
	code, out, _ := runSimCLI(t, "sim", "--profile", prof, "--workers", "4")
	if code != 0 || !strings.Contains(out, "simulated as a fib-like tree") || !strings.Contains(out, "profile of known") || strings.Count(out, "\n") > 12 {
		t.Errorf("--workers 4: exit %d:\n%s", code, out)
	}
}

func TestTraceFromStdin(t *testing.T) {
	const trace = `{"traceEvents":[
{"name":"T0","cat":"run","ph":"X","ts":0,"dur":10,"pid":0,"tid":0},
{"name":"steal T1 from 0","cat":"steal","ph":"i","s":"t","ts":2,"pid":0,"tid":1},
{"name":"T1","cat":"run","ph":"X","ts":3,"dur":9,"pid":0,"tid":1}]}`
	var out, errb bytes.Buffer
	code := Run(context.Background(), []string{"trace", "-"}, strings.NewReader(trace), &out, &errb)
	if code != 0 || !strings.Contains(out.String(), "2 workers, 2 spans, 1 instants over 12.0µs") ||
		!strings.Contains(out.String(), "steal from 0") {
		t.Fatalf("exit %d: %s\n%s", code, errb.String(), out.String())
	}
}

// Traces from other programs: OS thread ids, the JSON Array Format; and
// input that is not a trace, or has impossible times, is refused with the
// file, the event and the cause (exit status 2).
func TestTraceForeignAndBadInput(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(text), 0o644)
		return p
	}
	bigTid := write("tid.json", `{"traceEvents":[{"name":"a","ph":"X","ts":1,"dur":5,"pid":1,"tid":999999999},{"name":"b","ph":"X","ts":2,"dur":5,"pid":1,"tid":7}]}`)
	array := write("array.json", `[{"name":"a","ph":"X","ts":1,"dur":5,"tid":1},{"name":"b","ph":"X","ts":3,"dur":1,"tid":1},`)
	code, out, errs := runSimCLI(t, "trace", bigTid, "--svg", filepath.Join(dir, "tid.svg"))
	if code != 0 || !strings.Contains(out, "2 workers") || !strings.Contains(out, "999999999") {
		t.Errorf("trace with tid 999999999: exit %d, %s\n%s", code, errs, out)
	}
	if code, out, errs := runSimCLI(t, "trace", array); code != 0 || !strings.Contains(out, "1 workers, 2 spans") {
		t.Errorf("array format: exit %d, %s\n%s", code, errs, out)
	}
	for _, tc := range []struct{ name, text, want string }{
		{"a.json", `{"a":[1,2,3]}`, `a.json: not a trace-event JSON file: a JSON object without "traceEvents"`},
		{"null.json", `null`, `null.json: not a trace-event JSON file: the JSON value is null`},
		{"ts.json", `[{"name":"a","ph":"X","ts":-1e308,"dur":5,"tid":1}]`, `ts.json: event 0 ("a"): ts -1e+308 µs is out of range`},
	} {
		path := write(tc.name, tc.text)
		svg := filepath.Join(dir, tc.name+".svg")
		code, out, errs := runSimCLI(t, "trace", path, "--svg", svg)
		if code != 2 || out != "" || !strings.Contains(errs, tc.want) {
			t.Errorf("trace %s: exit %d, stdout %q, stderr %q; want exit 2 and %q", tc.name, code, out, errs, tc.want)
		}
		if _, err := os.Stat(svg); err == nil {
			t.Errorf("trace %s left %s behind", tc.name, svg)
		}
	}
}
