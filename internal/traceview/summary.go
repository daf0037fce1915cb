package traceview

import (
	"cmp"
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

// span is a task with its place in its worker's nesting.
type span struct {
	Task
	parent   int // index in the worker's sorted spans, -1 at top level
	children int
}

// lane is one worker's spans (sorted by start, outer before inner) and
// instants (sorted by time).
type lane struct {
	spans    []span
	waits    []span // "wait" spans: idle stretches inside a task (a join or scope waiting)
	instants []tracefmt.Instant
}

// Analyze summarizes a trace. It never fails: a trace with no spans gives
// zero utilization and an empty path.
func Analyze(f *tracefmt.File, o Options) *Summary {
	if o.Top <= 0 {
		o.Top = 10
	}
	lanes := buildLanes(f)
	s := &Summary{Process: f.Process, Spans: len(f.Spans), Instants: len(f.Instants)}
	first := true
	extend := func(a, b time.Duration) {
		if first {
			s.Start, s.End, first = a, b, false
			return
		}
		s.Start, s.End = min(s.Start, a), max(s.End, b)
	}
	for _, sp := range f.Spans {
		extend(sp.Start, sp.Start+sp.Dur)
	}
	for _, in := range f.Instants {
		extend(in.At, in.At)
	}
	s.Workers = make([]WorkerSummary, len(lanes))
	for wi := range lanes {
		s.Workers[wi] = summarizeLane(wi, &lanes[wi], s.Start, s.End)
	}
	for _, in := range f.Instants {
		if kindOf(in) == instSteal {
			if v := victimOf(in); v >= 0 && v < len(s.Workers) {
				s.Workers[v].StolenFrom++
			}
		}
	}
	var all []Task
	for _, l := range lanes {
		for _, sp := range l.spans {
			all = append(all, sp.Task)
		}
	}
	slices.SortStableFunc(all, func(a, b Task) int {
		if c := cmp.Compare(b.Self, a.Self); c != 0 {
			return c
		}
		return cmp.Compare(a.Start, b.Start)
	})
	s.Longest = all[:min(o.Top, len(all))]
	s.Path = criticalPath(lanes, s.End)
	return s
}

// buildLanes sorts each worker's spans and instants and works out nesting.
func buildLanes(f *tracefmt.File) []lane {
	n := f.Workers
	for _, sp := range f.Spans {
		n = max(n, sp.Worker+1)
	}
	for _, in := range f.Instants {
		n = max(n, in.Worker+1)
	}
	lanes := make([]lane, n)
	for _, sp := range f.Spans {
		if sp.Worker < 0 {
			continue
		}
		l := &lanes[sp.Worker]
		if sp.Cat == "wait" { // the runtime's idle stretch inside a waiting task
			l.waits = append(l.waits, span{Task: Task{Worker: sp.Worker, Name: sp.Name, Start: sp.Start, Dur: sp.Dur}})
			continue
		}
		l.spans = append(l.spans, span{Task: Task{Worker: sp.Worker, Name: sp.Name, Start: sp.Start, Dur: sp.Dur}})
	}
	for _, in := range f.Instants {
		if in.Worker >= 0 {
			lanes[in.Worker].instants = append(lanes[in.Worker].instants, in)
		}
	}
	for li := range lanes {
		l := &lanes[li]
		// Outer spans first at equal starts, so a parent precedes its children.
		slices.SortStableFunc(l.spans, func(a, b span) int {
			if c := cmp.Compare(a.Start, b.Start); c != 0 {
				return c
			}
			return cmp.Compare(b.Dur, a.Dur)
		})
		slices.SortStableFunc(l.instants, func(a, b tracefmt.Instant) int { return cmp.Compare(a.At, b.At) })
		var stack []int
		for i := range l.spans {
			sp := &l.spans[i]
			for len(stack) > 0 && l.spans[stack[len(stack)-1]].End() <= sp.Start {
				stack = stack[:len(stack)-1]
			}
			sp.parent = -1
			sp.Self = sp.Dur
			if len(stack) > 0 {
				p := &l.spans[stack[len(stack)-1]]
				sp.parent = stack[len(stack)-1]
				sp.Depth = p.Depth + 1
				p.children++
				// A child that overhangs its parent (rounded timestamps)
				// only takes the overlap from the parent's self time.
				p.Self -= min(sp.End(), p.End()) - sp.Start
			}
			stack = append(stack, i)
		}
		for i := range l.spans {
			l.spans[i].Self = max(l.spans[i].Self, 0)
		}
	}
	return lanes
}

// summarizeLane computes one worker's line over the extent [start, end].
func summarizeLane(wi int, l *lane, start, end time.Duration) WorkerSummary {
	ws := WorkerSummary{Worker: wi, Tasks: len(l.spans)}
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
	for _, sp := range l.spans { // sorted by start: a sweep merges the union
		if sp.Start > cursor {
			gap(cursor, sp.Start)
			cursor = sp.Start
		}
		if e := sp.End(); e > cursor {
			ws.Busy += e - cursor
			cursor = e
		}
	}
	gap(cursor, end)
	// A worker waiting at a join or scope with nothing to run is inside its
	// task's span but idle: the runtime records those stretches as wait
	// spans, which never contain a task (the stretch ends before the worker
	// runs what it found), so they come straight off the busy time.
	for _, wt := range l.waits {
		from, to := max(wt.Start, start), min(wt.End(), end)
		if to <= from {
			continue
		}
		ws.Busy -= to - from
		gap(from, to)
	}
	ws.Busy = max(ws.Busy, 0)
	if end > start {
		ws.Utilization = float64(ws.Busy) / float64(end-start)
	}
	for _, in := range l.instants {
		switch kindOf(in) {
		case instSteal:
			ws.Steals++
		case instFailed:
			ws.FailedSteals++
		case instPark:
			ws.Parks++
		case instWake:
			ws.Wakes++
		case instSpawn:
			ws.Spawns++
		}
	}
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

func kindOf(in tracefmt.Instant) int {
	switch in.Cat {
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
