package traceview

import (
	"bytes"
	"context"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/worksteal/worksteal"
	"github.com/worksteal/worksteal/internal/simlab"
	"github.com/worksteal/worksteal/internal/tracefmt"
	"github.com/worksteal/worksteal/sim"
)

const us = time.Microsecond

// handTrace is a small schedule with a known answer:
//
//	worker 0: A [0, 100µs), nested B [40, 60µs) (helping at a join)
//	worker 1: steal from 0 at 10µs, C [12, 50µs), failed steal at 55µs,
//	          park at 60µs, wake at 80µs, steal from 0 at 80µs, D [85, 120µs)
func handTrace() *tracefmt.File {
	return &tracefmt.File{
		Process: "hand",
		Workers: 2,
		Spans: []tracefmt.Span{
			{Worker: 0, Name: "A", Start: 0, Dur: 100 * us},
			{Worker: 1, Name: "C", Start: 12 * us, Dur: 38 * us},
			{Worker: 0, Name: "B", Start: 40 * us, Dur: 20 * us},
			{Worker: 1, Name: "D", Start: 85 * us, Dur: 35 * us},
		},
		Instants: []tracefmt.Instant{
			{Worker: 1, Name: "steal from 0", Cat: "steal", At: 10 * us, Args: map[string]any{"victim": float64(0)}},
			{Worker: 1, Name: "failed steal from 0", Cat: "steal-fail", At: 55 * us, Args: map[string]any{"victim": float64(0)}},
			{Worker: 1, Name: "park", Cat: "park", At: 60 * us},
			{Worker: 1, Name: "wake", Cat: "wake", At: 80 * us},
			{Worker: 1, Name: "steal from 0", Cat: "steal", At: 80 * us, Args: map[string]any{"victim": float64(0)}},
		},
	}
}

func TestAnalyzeHandTrace(t *testing.T) {
	s := Analyze(handTrace(), Options{Top: 3})
	if s.Start != 0 || s.End != 120*us {
		t.Fatalf("extent [%v, %v]; want [0, 120µs]", s.Start, s.End)
	}
	w0, w1 := s.Workers[0], s.Workers[1]
	if w0.Tasks != 2 || w0.Busy != 100*us || w0.Gaps != 1 || w0.LongestGap != 20*us || w0.LongestGapAt != 100*us || w0.StolenFrom != 2 {
		t.Errorf("worker 0 = %+v; want 2 tasks, busy 100µs, one 20µs gap at 100µs, stolen from twice", w0)
	}
	if w1.Tasks != 2 || w1.Busy != 73*us || w1.Gaps != 2 || w1.Idle != 47*us || w1.LongestGap != 35*us ||
		w1.Steals != 2 || w1.FailedSteals != 1 || w1.Parks != 1 || w1.Wakes != 1 {
		t.Errorf("worker 1 = %+v; want busy 73µs, gaps 12µs and 35µs, 2 steals, 1 failed, 1 park", w1)
	}
	if got := w1.Utilization; got < 0.608 || got > 0.609 {
		t.Errorf("worker 1 utilization %.4f; want 73/120", got)
	}
	// By self time: A 80µs (100 less nested B), C 38µs, D 35µs; B 20µs is fourth.
	var names []string
	for _, task := range s.Longest {
		names = append(names, task.Name)
	}
	if strings.Join(names, ",") != "A,C,D" || s.Longest[0].Self != 80*us {
		t.Errorf("longest = %v (A self %v); want A,C,D with A's self 80µs", names, s.Longest[0].Self)
	}
	// The last task to finish is D, stolen from 0 at 80µs while A ran.
	p := s.Path
	if len(p.Links) != 2 || p.Links[0].Task.Name != "A" || p.Links[1].Task.Name != "D" {
		t.Fatalf("path = %+v; want A then D", p.Links)
	}
	if d := p.Links[1]; d.Via != ViaSteal || d.Victim != 0 || d.Wait != 5*us || p.Links[0].To != 80*us {
		t.Errorf("link to D = %+v, A hands off at %v; want a steal from 0 at 80µs, 5µs latency", d, p.Links[0].To)
	}
	if p.Running != 80*us+35*us || p.StealLatency != 5*us || p.Length() != 120*us || p.Tail != 0 {
		t.Errorf("path running %v latency %v length %v tail %v", p.Running, p.StealLatency, p.Length(), p.Tail)
	}
	var out bytes.Buffer
	if err := s.WriteText(&out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"hand: 2 workers, 4 spans, 5 instants over 120µs", "steal from 0", "critical path", "longest tasks"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, out.String())
		}
	}
}

// checkPath checks what holds on any trace: the path's time adds up, its
// links go forward in time, and it ends at the last innermost span.
func checkPath(t *testing.T, s *Summary) {
	t.Helper()
	p := s.Path
	if len(p.Links) == 0 {
		t.Fatal("empty critical path")
	}
	if sum := p.Running + p.StealLatency + p.Queued + p.Idle; absDur(sum-p.Length()) > 2*time.Nanosecond*time.Duration(len(p.Links)) {
		t.Errorf("path parts add to %v; length %v (%+v)", sum, p.Length(), p)
	}
	for i := 1; i < len(p.Links); i++ {
		if p.Links[i].Task.Start < p.Links[i-1].Task.Start {
			t.Errorf("link %d starts at %v, before link %d at %v", i, p.Links[i].Task.Start, i-1, p.Links[i-1].Task.Start)
		}
	}
	if p.End+p.Tail != s.End {
		t.Errorf("path end %v + tail %v != trace end %v", p.End, p.Tail, s.End)
	}
}

func absDur(d time.Duration) time.Duration {
	if d < 0 {
		return -d
	}
	return d
}

// A simulated schedule: the summary agrees with the simulator's own report.
func TestAnalyzeSimTrace(t *testing.T) {
	sc, err := simlab.LookupPreset("fork-join")
	if err != nil {
		t.Fatal(err)
	}
	res, err := sim.Run(context.Background(), sc, simlab.Options(sim.Options{}, 0, true))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := simlab.WriteTrace(res, &buf); err != nil {
		t.Fatal(err)
	}
	f, err := tracefmt.Read(&buf)
	if err != nil {
		t.Fatal(err)
	}
	s := Analyze(f, Options{})
	rep := res.Report
	if len(s.Workers) != len(rep.PerWork) {
		t.Fatalf("%d workers; the report has %d", len(s.Workers), len(rep.PerWork))
	}
	var steals, stolenFrom int
	for i, w := range s.Workers {
		steals += w.Steals
		stolenFrom += w.StolenFrom
		if busy := w.Busy.Seconds(); busy < rep.PerWork[i].Busy*0.999-1e-9 || busy > rep.PerWork[i].Busy*1.001+1e-9 {
			t.Errorf("worker %d busy %v; the simulator says %v s", i, w.Busy, rep.PerWork[i].Busy)
		}
	}
	if int64(steals) != rep.Totals.Steals || stolenFrom != steals {
		t.Errorf("steals %d (stolen from %d); the report has %d", steals, stolenFrom, rep.Totals.Steals)
	}
	if got := s.End.Seconds(); got < rep.Totals.Makespan*0.999 || got > rep.Totals.Makespan*1.001 {
		t.Errorf("trace ends at %v; makespan %v s", s.End, rep.Totals.Makespan)
	}
	checkPath(t, s)
	if s.Path.Steals == 0 {
		t.Errorf("no steal on the path of a fork-join schedule on %d workers: %+v", len(rep.PerWork), s.Path)
	}
}

// A real run: the summary agrees with the pool's own trace and statistics.
func TestAnalyzeRuntimeTrace(t *testing.T) {
	wl, err := NewWorkload(WorkloadSpec{Name: "uts", Size: 60})
	if err != nil {
		t.Fatal(err)
	}
	p, err := worksteal.New(worksteal.Config{Workers: 2, Trace: 1 << 14})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if v, _ := worksteal.Run(p, wl.Run); v != wl.Want() {
		t.Fatalf("uts 60 = %d; want %d", v, wl.Want())
	}
	tr := p.Trace()
	var buf bytes.Buffer
	if err := tr.WriteChrome(&buf); err != nil {
		t.Fatal(err)
	}
	f, err := tracefmt.Read(&buf)
	if err != nil {
		t.Fatal(err)
	}
	s := Analyze(f, Options{})
	for wi, evs := range tr.Workers {
		var starts, steals, failed int
		for _, ev := range evs {
			switch ev.Kind {
			case worksteal.EvTaskStart:
				starts++
			case worksteal.EvSteal:
				steals++
			case worksteal.EvStealFail:
				failed++
			}
		}
		w := s.Workers[wi]
		if w.Tasks != starts || w.Steals != steals || w.FailedSteals != failed {
			t.Errorf("worker %d: %d tasks, %d steals, %d failed; the trace has %d, %d, %d", wi, w.Tasks, w.Steals, w.FailedSteals, starts, steals, failed)
		}
		if w.Utilization < 0 || w.Utilization > 1 || w.Busy+w.Idle != s.Extent() {
			t.Errorf("worker %d: utilization %v, busy %v + idle %v != extent %v", wi, w.Utilization, w.Busy, w.Idle, s.Extent())
		}
	}
	checkPath(t, s)
}

func TestAnalyzeEmpty(t *testing.T) {
	s := Analyze(&tracefmt.File{Workers: 3}, Options{})
	if len(s.Workers) != 3 || s.Utilization() != 0 || len(s.Path.Links) != 0 || len(s.Longest) != 0 {
		t.Fatalf("empty trace: %+v", s)
	}
	var out bytes.Buffer
	if err := s.WriteText(&out); err != nil || !strings.Contains(out.String(), "no tasks") {
		t.Fatalf("WriteText: %v\n%s", err, out.String())
	}
}

func TestVictimOf(t *testing.T) {
	for _, tc := range []struct {
		in   tracefmt.Instant
		want int
	}{
		{tracefmt.Instant{Name: "steal from 3", Args: map[string]any{"victim": float64(3)}}, 3},
		{tracefmt.Instant{Name: "steal T17 from 12"}, 12},
		{tracefmt.Instant{Name: "steal"}, -1},
		{tracefmt.Instant{Name: "steal from x"}, -1},
	} {
		if got := victimOf(tc.in); got != tc.want {
			t.Errorf("victimOf(%q) = %d; want %d", tc.in.Name, got, tc.want)
		}
	}
}

func TestFmtDur(t *testing.T) {
	for _, tc := range []struct {
		d    time.Duration
		want string
	}{
		{0, "0"}, {850, "850ns"}, {1500, "1.50µs"}, {999_900, "1000µs"}, {12_345_678, "12.3ms"}, {2 * time.Second, "2.00s"}, {-3 * us, "-3.00µs"},
	} {
		if got := fmtDur(tc.d); got != tc.want {
			t.Errorf("fmtDur(%d) = %q; want %q", int64(tc.d), got, tc.want)
		}
	}
}

// Random traces, overlapping every which way (rounded timestamps, hand-made
// files): Analyze never panics, each worker's busy and idle time add up to
// the extent, and the critical path adds up.
func TestAnalyzeRandomTraces(t *testing.T) {
	const seed = 20251125
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 1))
	for it := 0; it < 300; it++ {
		f := &tracefmt.File{Workers: 1 + r.IntN(4)}
		for range r.IntN(40) {
			f.Spans = append(f.Spans, tracefmt.Span{Worker: r.IntN(f.Workers), Name: "T",
				Start: time.Duration(r.IntN(1000)), Dur: time.Duration(r.IntN(300))})
		}
		cats := []string{"steal", "steal-fail", "park", "wake", "spawn", "other"}
		for range r.IntN(20) {
			victim := float64(r.IntN(f.Workers + 1)) // sometimes out of range
			f.Instants = append(f.Instants, tracefmt.Instant{Worker: r.IntN(f.Workers), Cat: cats[r.IntN(len(cats))],
				Name: "steal from x", At: time.Duration(r.IntN(1200)), Args: map[string]any{"victim": victim}})
		}
		s := Analyze(f, Options{Top: 5})
		for _, w := range s.Workers {
			if w.Busy+w.Idle != s.Extent() || w.Busy < 0 || w.LongestGap > w.Idle {
				t.Fatalf("trace %d, worker %d: busy %v idle %v longest gap %v; extent %v", it, w.Worker, w.Busy, w.Idle, w.LongestGap, s.Extent())
			}
		}
		for _, task := range s.Longest {
			if task.Self < 0 || task.Self > task.Dur {
				t.Fatalf("trace %d: task %+v self time outside [0, dur]", it, task)
			}
		}
		if len(f.Spans) > 0 {
			p := s.Path
			if sum := p.Running + p.StealLatency + p.Queued + p.Idle; len(p.Links) == 0 || sum < p.Length() {
				t.Fatalf("trace %d: path parts %v < length %v: %+v", it, sum, p.Length(), p)
			}
		}
		var buf bytes.Buffer
		if err := WriteSVG(&buf, f, s, SVGOptions{}); err != nil {
			t.Fatal(err)
		}
		wellFormed(t, buf.Bytes())
	}
}

// A wait span (the runtime's idle stretch inside a task waiting at a join)
// counts as idle, not busy, and is not a task.
func TestAnalyzeWaitSpans(t *testing.T) {
	ms := time.Millisecond
	f := &tracefmt.File{Workers: 1, Spans: []tracefmt.Span{
		{Worker: 0, Name: "T0.1", Cat: "run", Start: 0, Dur: 10 * ms},
		{Worker: 0, Name: "wait", Cat: "wait", Start: 2 * ms, Dur: 5 * ms},
	}}
	s := Analyze(f, Options{})
	w := s.Workers[0]
	if w.Tasks != 1 || w.Busy != 5*ms || w.Idle != 5*ms || w.Gaps != 1 || w.LongestGapAt != 2*ms {
		t.Fatalf("worker 0 = %+v; want 1 task, busy 5ms, idle 5ms in one gap at 2ms", w)
	}
}
