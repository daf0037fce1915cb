package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestSuiteCells(t *testing.T) {
	s := &Suite{
		Entries: []Entry{{"fib", "10", []Impl{Seq, WG}}, {"uts", "10", []Impl{WGCutoff, Seq}}},
		Workers: []int{2, 3},
	}
	want := []Cell{
		{"fib", "10", Seq, 1}, {"fib", "10", WG, 2}, {"fib", "10", WG, 3},
		{"uts", "10", WGCutoff, 2}, {"uts", "10", WGCutoff, 3}, {"uts", "10", Seq, 1},
	}
	if got := s.Cells(); !slices.Equal(got, want) {
		t.Errorf("Cells() = %v; want %v", got, want)
	}
}

func TestSuiteValidate(t *testing.T) {
	cases := []struct {
		name string
		s    Suite
		want error
	}{
		{"unknown workload", Suite{Entries: []Entry{{"quicksort", "10", []Impl{Seq}}}}, ErrUnknownWorkload},
		{"a form the workload lacks", Suite{Entries: []Entry{{"sort", "10", []Impl{Seq, WSClosure}}}}, ErrUnavailable},
		{"bad size", Suite{Entries: []Entry{{"nqueens", "99", []Impl{Seq}}}}, ErrBadSize},
		{"unknown impl", Suite{Entries: []Entry{{"fib", "10", []Impl{"go-errgroup"}}}}, ErrUnknownImpl},
		{"zero workers", Suite{Entries: []Entry{{"fib", "10", []Impl{WG}}}, Workers: []int{0}}, nil},
	}
	for _, tc := range cases {
		err := tc.s.Validate()
		if err == nil || (tc.want != nil && !errors.Is(err, tc.want)) {
			t.Errorf("%s: Validate() = %v; want %v", tc.name, err, tc.want)
		}
	}
	if err := (&Suite{Entries: QuickPlan()}).Validate(); err != nil {
		t.Errorf("QuickPlan: Validate() = %v", err)
	}
	if err := (&Suite{}).Validate(); err != nil {
		t.Errorf("DefaultPlan: Validate() = %v", err)
	}
}

func TestSuiteRun(t *testing.T) {
	s := &Suite{
		Entries: []Entry{
			{"fib", "15", Impls()},
			{"uts-sha1", "t=1,a=3,d=4,b=4,r=19", Impls()}, // no published counts: checked against go-seq
		},
		Reps: 2,
	}
	var last Progress
	calls := 0
	s.Progress = func(p Progress) { last = p; calls++ }
	rep, err := s.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	cells := s.Cells()
	if len(rep.Cells) != len(cells) {
		t.Fatalf("%d cells in report; want %d", len(rep.Cells), len(cells))
	}
	if last.Done != last.Total || last.Total != len(cells)*3 || last.Cells != len(cells) {
		t.Errorf("last progress = %+v; want Done = Total = %d", last, len(cells)*3)
	}
	if calls != len(cells)*4 { // one at each cell's start, one per iteration
		t.Errorf("Progress called %d times; want %d", calls, len(cells)*4)
	}
	for _, c := range rep.Cells {
		if len(c.Ms) != 2 || c.MedianMs <= 0 || c.MinMs > c.MedianMs || c.MaxMs < c.MedianMs || c.Err != "" {
			t.Errorf("cell %v: %+v", c.Cell, c)
		}
	}
	if len(rep.Tables) != 2 {
		t.Fatalf("%d tables; want 2", len(rep.Tables))
	}
	fib := rep.Tables[0]
	if fib.Joins != 986 || fib.Result.Value != 610 || len(fib.Rows) != len(Impls()) || !slices.Equal(fib.Workers, []int{1, 2}) {
		t.Errorf("fib table = %+v", fib)
	}
	sha := rep.Tables[1]
	if sha.Result != rep.Cells[len(rep.Cells)-1].Result || sha.Result.Value == 0 {
		t.Errorf("uts-sha1 table result = %v; want go-seq's", sha.Result)
	}

	var text bytes.Buffer
	if err := rep.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"fib 15:", "joins 986, result 610", "go-wg-cutoff", "T2w/seq", "uts-sha1 t=1,a=3,d=4,b=4,r=19"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text report lacks %q:\n%s", want, text.String())
		}
	}
	var js bytes.Buffer
	if err := rep.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	var back Report
	if err := json.Unmarshal(js.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	if len(back.Tables) != 2 || back.Tables[0].Rows[0].Ms[1] != fib.Rows[0].Ms[1] {
		t.Errorf("JSON round trip lost data: %s", js.String())
	}
}

func TestSuiteRunCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	rep, err := (&Suite{Entries: QuickPlan()}).Run(ctx)
	if !errors.Is(err, context.Canceled) || len(rep.Cells) != 0 {
		t.Errorf("Run(canceled) = %d cells, %v; want 0, context.Canceled", len(rep.Cells), err)
	}
}

// TestTables checks the derived columns on made-up medians.
func TestTables(t *testing.T) {
	r := &Report{
		Entries: []Entry{{"fib", "30", []Impl{Seq, WG, WGCutoff, WS}}},
		Cells: []CellResult{
			{Cell: Cell{"fib", "30", Seq, 1}, MedianMs: 10, Result: Result{Value: 832040}},
			{Cell: Cell{"fib", "30", WG, 1}, MedianMs: 1356.268, Result: Result{Value: 832040}},
			{Cell: Cell{"fib", "30", WG, 2}, MedianMs: 1000, Result: Result{Value: 832040}},
			{Cell: Cell{"fib", "30", WGCutoff, 1}, MedianMs: 11, Result: Result{Value: 832040}},
			{Cell: Cell{"fib", "30", WGCutoff, 2}, MedianMs: 5.5, Result: Result{Value: 832040}},
			{Cell: Cell{"fib", "30", WS, 1}, MedianMs: 23.46268, Result: Result{Value: 832040}},
			{Cell: Cell{"fib", "30", WS, 2}, MedianMs: 12, Steals: 42, Result: Result{Value: 832041}},
		},
	}
	if err := r.check(); !errors.Is(err, ErrMismatch) {
		t.Errorf("check() = %v; want ErrMismatch", err)
	}
	tabs := buildTables(r)
	if len(tabs) != 1 || len(tabs[0].Rows) != 4 {
		t.Fatalf("tables = %+v", tabs)
	}
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-9*math.Max(1, math.Abs(b)) }
	rows := tabs[0].Rows
	seq, wg, cut, ws := rows[0], rows[1], rows[2], rows[3]
	if seq.Overhead != 0 || seq.NsPerJoin != 0 || seq.Ms[1] != 10 {
		t.Errorf("seq row = %+v", seq)
	}
	if !near(wg.NsPerJoin, 1000) || !near(wg.Overhead, 135.6268) || !near(wg.Speedup, 1.356268) || !near(wg.Ratio, 100) {
		t.Errorf("go-wg row = %+v", wg)
	}
	if cut.NsPerJoin != 0 || !near(cut.Speedup, 2) || !near(cut.Ratio, 0.55) {
		t.Errorf("go-wg-cutoff row = %+v", cut)
	}
	if !near(ws.NsPerJoin, 10) || ws.Steals != 42 || !strings.Contains(ws.Err, "want 832040") {
		t.Errorf("ws row = %+v", ws)
	}
}

func TestTargets(t *testing.T) {
	r := &Report{Tables: []Table{
		{Workload: "fib", Size: "35", Rows: []Row{{Impl: WS, NsPerJoin: 20, Ratio: 4}}},
		{Workload: "nqueens", Size: "13", Rows: []Row{{Impl: WS, Speedup: 1.8}}},
		{Workload: "uts", Size: "6000", Rows: []Row{
			{Impl: WS, Speedup: 1.95, Ratio: 0.5, Ms: map[int]float64{2: 500}},
			{Impl: WGCutoff, Ms: map[int]float64{2: 700}},
		}},
	}}
	got := r.Targets()
	// ns/join fib 35; speedups nqueens 13, uts; ratios fib 35, uts; ws vs cutoff uts.
	want := []bool{true, false, true, false, true, true}
	if len(got) != len(want) {
		t.Fatalf("Targets() = %+v; want %d checks", got, len(want))
	}
	for i, c := range got {
		if c.OK != want[i] {
			t.Errorf("target %q: OK = %v; want %v", c.Name, c.OK, want[i])
		}
	}
}

func TestGroup(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 999: "999", 1000: "1,000", 14930351: "14,930,351", -1234: "-1,234"} {
		if got := group(n); got != want {
			t.Errorf("group(%d) = %q; want %q", n, got, want)
		}
	}
}

func TestOtherLoad(t *testing.T) {
	t0 := time.Unix(1000, 0)
	a := cpuSample{machine: 10 * time.Second, self: 3 * time.Second, at: t0, ok: true}
	cases := []struct {
		name string
		b    cpuSample
		want float64
		ok   bool
	}{
		{"quiet", cpuSample{machine: 12 * time.Second, self: 5 * time.Second, at: t0.Add(2 * time.Second), ok: true}, 0, true},
		{"one core busy", cpuSample{machine: 14 * time.Second, self: 5 * time.Second, at: t0.Add(2 * time.Second), ok: true}, 1, true},
		{"tick rounding", cpuSample{machine: 11 * time.Second, self: 5 * time.Second, at: t0.Add(2 * time.Second), ok: true}, 0, true},
		{"too short", cpuSample{machine: 14 * time.Second, self: 5 * time.Second, at: t0.Add(time.Millisecond), ok: true}, 0, false},
		{"unknown", cpuSample{at: t0.Add(2 * time.Second)}, 0, false},
	}
	for _, tc := range cases {
		got, ok := otherLoad(a, tc.b)
		if got != tc.want || ok != tc.ok {
			t.Errorf("%s: otherLoad = %v, %v; want %v, %v", tc.name, got, ok, tc.want, tc.ok)
		}
	}
	if s := sampleCPU(); runtime.GOOS == "linux" && (!s.ok || s.machine <= 0 || s.self <= 0) {
		t.Errorf("sampleCPU() = %+v; want machine and self CPU times on Linux", s)
	}
}

// A 1-worker run faster than sequential Go (noise, or a faster code path)
// gives no negative join cost; a table with one worker count (an
// interrupted run, --workers 1) has each column once.
func TestTablesJoinBelowNoiseAndOneWorkerCount(t *testing.T) {
	r := &Report{
		Entries: []Entry{{"nqueens", "11", []Impl{Seq, WS}}},
		Cells: []CellResult{
			{Cell: Cell{"nqueens", "11", Seq, 1}, MedianMs: 30, Result: Result{Value: 2680}},
			{Cell: Cell{"nqueens", "11", WS, 1}, MedianMs: 28, Result: Result{Value: 2680}},
		},
	}
	r.Tables = buildTables(r)
	ws := r.Tables[0].Rows[1]
	if ws.NsPerJoin != 0 || !ws.JoinBelowNoise {
		t.Errorf("ws row = %+v; want NsPerJoin 0 and JoinBelowNoise", ws)
	}
	var text strings.Builder
	if err := r.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	out := text.String()
	if m := regexp.MustCompile(`-[0-9]`).FindString(out); m != "" {
		t.Errorf("negative value %q in:\n%s", m, out)
	}
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, "impl") && strings.Count(line, "T1w/seq") != 1 {
			t.Errorf("header %q; want T1w/seq once", line)
		}
		if strings.HasPrefix(line, "ws ") && !strings.Contains(line, "≈0") {
			t.Errorf("ws line %q; want ns/join ≈0", line)
		}
	}
}

// Canceled in the middle of a cell, Run returns at once, without that cell
// (its median would be of the iterations done so far).
func TestSuiteRunCanceledMidCell(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	s := &Suite{
		Entries: []Entry{{"fib", "20", []Impl{Seq}}, {"fib", "60", []Impl{Seq}}}, // fib 60: hours
		Reps:    1, Warmup: -1,
		Progress: func(p Progress) {
			if p.CellIndex == 1 && p.Starting {
				go func() { time.Sleep(50 * time.Millisecond); cancel() }()
			}
		},
	}
	rep, err := s.Run(ctx)
	if !errors.Is(err, context.Canceled) || rep == nil || len(rep.Cells) != 1 || rep.Cells[0].Size != "20" {
		t.Fatalf("Run canceled in cell 2 = %v, %v; want the first cell and context.Canceled", rep, err)
	}
}
