package traceview

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/worksteal/worksteal/internal/tracefmt"
)

// Summary is what a trace shows about a schedule.
type Summary struct {
	Process  string          `json:"process"`
	Start    time.Duration   `json:"start_ns"` // earliest span or instant
	End      time.Duration   `json:"end_ns"`   // latest span end or instant
	Spans    int             `json:"spans"`
	Instants int             `json:"instants"`
	Workers  []WorkerSummary `json:"workers"`
	Longest  []Task          `json:"longest_tasks"` // by self time, longest first
	Path     Path            `json:"critical_path"`
}

// Extent is the time the trace covers: End − Start.
func (s *Summary) Extent() time.Duration { return s.End - s.Start }

// Utilization is the busy time of all workers over workers × extent.
func (s *Summary) Utilization() float64 {
	var busy time.Duration
	for _, w := range s.Workers {
		busy += w.Busy
	}
	if s.Extent() <= 0 || len(s.Workers) == 0 {
		return 0
	}
	return float64(busy) / float64(s.Extent()) / float64(len(s.Workers))
}

// WorkerSummary is one worker's line of a summary.
type WorkerSummary struct {
	Worker       int           `json:"worker"`
	Tasks        int           `json:"tasks"`       // spans on this worker (nested ones included)
	Busy         time.Duration `json:"busy_ns"`     // time covered by at least one span
	Utilization  float64       `json:"utilization"` // Busy / the trace's extent
	Steals       int           `json:"steals"`      // successful steals by this worker
	StolenFrom   int           `json:"stolen_from"` // steals by others that name this worker as the victim
	FailedSteals int           `json:"failed_steals"`
	Parks        int           `json:"parks"`
	Wakes        int           `json:"wakes"`
	Spawns       int           `json:"spawns"`
	Gaps         int           `json:"idle_gaps"`      // stretches of the extent covered by no span
	Idle         time.Duration `json:"idle_ns"`        // their total: extent − Busy
	LongestGap   time.Duration `json:"longest_gap_ns"` // the longest of them
	LongestGapAt time.Duration `json:"longest_gap_at_ns"`
}

// Task is one span of the trace.
type Task struct {
	Worker int           `json:"worker"`
	Name   string        `json:"name"`
	Start  time.Duration `json:"start_ns"`
	Dur    time.Duration `json:"dur_ns"`
	Self   time.Duration `json:"self_ns"` // Dur less the time of the spans nested in it
	Depth  int           `json:"depth"`   // 0 for a top-level span, 1 for one nested in it, …
}

// End is Start + Dur.
func (t Task) End() time.Duration { return t.Start + t.Dur }

// Options tune [Analyze].
type Options struct {
	Top int // how many longest tasks to keep (0: 10)
}

// Analyze summarizes an in-memory trace (see [FromFile]). It never fails:
// a trace with no spans gives zero utilization and an empty path. To
// summarize a file without holding its events, use [Load] and
// [Trace.Summary].
func Analyze(f *tracefmt.File, o Options) *Summary { return FromFile(f).Summary(o) }

// Summary summarizes the trace.
func (t *Trace) Summary(o Options) *Summary {
	if o.Top <= 0 {
		o.Top = 10
	}
	s := &Summary{Process: t.Process, Spans: t.Spans, Instants: t.Instants, Start: t.start, End: t.end}
	s.Workers = make([]WorkerSummary, len(t.lanes))
	top := &longest{n: o.Top}
	for li := range t.lanes {
		l := &t.lanes[li]
		s.Workers[li] = summarizeLane(l, s.Start, s.End)
		top.addLane(li, l, &t.names)
	}
	s.Longest = top.sorted()
	s.Path = criticalPath(t, s.End)
	return s
}

// longest keeps the n longest tasks by self time (ties: earlier start,
// then lane and index order) while the lanes' nesting is walked.
type longest struct {
	n     int
	tasks []rankedTask
}

type rankedTask struct {
	Task
	lane, i int
}

func (a rankedTask) before(b rankedTask) bool {
	if a.Self != b.Self {
		return a.Self > b.Self
	}
	if a.Start != b.Start {
		return a.Start < b.Start
	}
	if a.lane != b.lane {
		return a.lane < b.lane
	}
	return a.i < b.i
}

// addLane computes every span's self time and depth in one pass (a stack
// of the spans open at each start) and offers each to the list.
func (lg *longest) addLane(li int, l *lane, names *nameTable) {
	type frame struct {
		i     int
		self  time.Duration
		depth int
	}
	var stack []frame
	pop := func() {
		f := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		lg.offer(li, l, f.i, max(f.self, 0), f.depth, names)
	}
	for i := 0; i < l.spans.len(); i++ {
		sp := l.spans.at(i)
		for len(stack) > 0 && l.spans.at(stack[len(stack)-1].i).end() <= sp.start {
			pop()
		}
		if len(stack) > 0 {
			p := &stack[len(stack)-1]
			p.self -= min(sp.end(), l.spans.at(p.i).end()) - sp.start
		}
		stack = append(stack, frame{i: i, self: sp.dur, depth: len(stack)})
	}
	for len(stack) > 0 {
		pop()
	}
}

func (lg *longest) offer(li int, l *lane, i int, self time.Duration, depth int, names *nameTable) {
	cand := rankedTask{Task: Task{Worker: l.tid, Start: l.spans.at(i).start, Dur: l.spans.at(i).dur, Self: self, Depth: depth}, lane: li, i: i}
	if len(lg.tasks) == lg.n && !cand.before(lg.tasks[len(lg.tasks)-1]) {
		return
	}
	cand.Name = names.name(l.spans.at(i).name)
	k, _ := slices.BinarySearchFunc(lg.tasks, cand, func(a, b rankedTask) int {
		if a.before(b) {
			return -1
		}
		return 1
	})
	lg.tasks = slices.Insert(lg.tasks, k, cand)
	if len(lg.tasks) > lg.n {
		lg.tasks = lg.tasks[:lg.n]
	}
}

func (lg *longest) sorted() []Task {
	out := make([]Task, len(lg.tasks))
	for i, r := range lg.tasks {
		out[i] = r.Task
	}
	return out
}

// task returns span i of lane l as a Task (self time and depth worked out).
func (t *Trace) task(li, i int) Task {
	l := &t.lanes[li]
	sp := l.spans.at(i)
	return Task{Worker: l.tid, Name: t.names.name(sp.name), Start: sp.start, Dur: sp.dur, Self: l.self(i), Depth: l.depth(i)}
}

// summarizeLane computes one worker's line over the extent [start, end].
func summarizeLane(l *lane, start, end time.Duration) WorkerSummary {
	ws := WorkerSummary{Worker: l.tid, Tasks: l.tasks}
	cursor := start // end of the busy time so far
	gap := func(from, to time.Duration) {
		if to <= from {
			return
		}
		ws.Gaps++
		ws.Idle += to - from
		if to-from > ws.LongestGap {
			ws.LongestGap, ws.LongestGapAt = to-from, from
		}
	}
	for i := 0; i < l.spans.len(); i++ { // sorted by start: a sweep merges the union
		sp := l.spans.at(i)
		if sp.start > cursor {
			gap(cursor, sp.start)
			cursor = sp.start
		}
		if e := sp.end(); e > cursor {
			ws.Busy += e - cursor
			cursor = e
		}
	}
	gap(cursor, end)
	// A worker waiting at a join or scope with nothing to run is inside its
	// task's span but idle: the runtime records those stretches as wait
	// spans, which never contain a task (the stretch ends before the worker
	// runs what it found), so they come straight off the busy time. They
	// lie within the extent (it includes them), so they were counted as
	// they were read.
	if l.waitTotal > 0 {
		ws.Busy -= l.waitTotal
		ws.Gaps += l.waits
		ws.Idle += l.waitTotal
		if l.waitLongest > ws.LongestGap {
			ws.LongestGap, ws.LongestGapAt = l.waitLongest, l.waitLongAt
		}
	}
	ws.Busy = max(ws.Busy, 0)
	if end > start {
		ws.Utilization = float64(ws.Busy) / float64(end-start)
	}
	ws.Steals, ws.FailedSteals, ws.Parks, ws.Wakes, ws.Spawns = l.nSteals, l.nFailed, l.nPark, l.nWake, l.nSp
	ws.StolenFrom = l.stolenFrom
	return ws
}

// Instant kinds, by category: the runtime writes steal, steal-fail, park,
// wake and spawn; the simulator writes steal.
const (
	instOther = iota
	instSteal
	instFailed
	instPark
	instWake
	instSpawn
)

func kindOf(cat string) int {
	switch cat {
	case "steal":
		return instSteal
	case "steal-fail":
		return instFailed
	case "park":
		return instPark
	case "wake":
		return instWake
	case "spawn":
		return instSpawn
	}
	return instOther
}

// victimOf returns the victim of a steal instant: its "victim" argument
// (the runtime's), else the number after " from " in its name (the
// simulator's "steal T17 from 0"), else -1.
func victimOf(in tracefmt.Instant) int {
	if v, ok := in.Args["victim"].(float64); ok {
		return int(v)
	}
	if i := strings.LastIndex(in.Name, " from "); i >= 0 {
		if v, err := strconv.Atoi(strings.TrimSpace(in.Name[i+len(" from "):])); err == nil {
			return v
		}
	}
	return -1
}

// WriteText prints the summary as aligned tables.
func (s *Summary) WriteText(w io.Writer) error {
	bw := &errWriter{w: w}
	name := s.Process
	if name == "" {
		name = "trace"
	}
	bw.printf("%s: %d workers, %d spans, %d instants over %v (from %v to %v); utilization %.1f%%\n\n",
		name, len(s.Workers), s.Spans, s.Instants, fmtDur(s.Extent()), fmtDur(s.Start), fmtDur(s.End), 100*s.Utilization())
	tw := tabwriter.NewWriter(bw, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "worker\ttasks\tbusy\tutil\tsteals\tstolen from\tfailed\tparks\tidle gaps\tidle\tlongest gap\tat\t")
	for _, ws := range s.Workers {
		fmt.Fprintf(tw, "%d\t%d\t%s\t%.1f%%\t%d\t%d\t%d\t%d\t%d\t%s\t%s\t%s\t\n", ws.Worker, ws.Tasks, fmtDur(ws.Busy),
			100*ws.Utilization, ws.Steals, ws.StolenFrom, ws.FailedSteals, ws.Parks, ws.Gaps, fmtDur(ws.Idle),
			fmtDur(ws.LongestGap), fmtDur(ws.LongestGapAt))
	}
	tw.Flush()
	if len(s.Longest) > 0 {
		bw.printf("\nlongest tasks (by self time: the span less the tasks nested in it)\n")
		tw = tabwriter.NewWriter(bw, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  task\tworker\tstart\tduration\tself\tdepth")
		for _, t := range s.Longest {
			fmt.Fprintf(tw, "  %s\t%d\t%s\t%s\t%s\t%d\n", t.Name, t.Worker, fmtDur(t.Start), fmtDur(t.Dur), fmtDur(t.Self), t.Depth)
		}
		tw.Flush()
	}
	s.Path.write(bw)
	return bw.err
}

// errWriter keeps the first write error.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(p)
	e.err = err
	return n, err
}

func (e *errWriter) printf(format string, args ...any) { fmt.Fprintf(e, format, args...) }

// fmtDur prints a duration with 3 significant digits in a fitting unit.
func fmtDur(d time.Duration) string {
	a := d
	if a < 0 {
		a = -a
	}
	switch {
	case a == 0:
		return "0"
	case a < time.Microsecond:
		return strconv.FormatInt(int64(d), 10) + "ns"
	case a < time.Millisecond:
		return sig3(float64(d)/1e3) + "µs"
	case a < time.Second:
		return sig3(float64(d)/1e6) + "ms"
	}
	return sig3(d.Seconds()) + "s"
}

// sig3 formats x with about three significant digits, never in exponent form.
func sig3(x float64) string {
	a := x
	if a < 0 {
		a = -a
	}
	switch {
	case a >= 100:
		return strconv.FormatFloat(x, 'f', 0, 64)
	case a >= 10:
		return strconv.FormatFloat(x, 'f', 1, 64)
	}
	return strconv.FormatFloat(x, 'f', 2, 64)
}
