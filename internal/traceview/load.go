package traceview

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/worksteal/worksteal/internal/tracefmt"
)

// Trace is a trace read back for analysis, in compact form: one lane per
// thread id present in the trace (not one per possible id: traces from
// other programs use OS thread ids such as 999999999), sorted by id.
type Trace struct {
	Process  string
	Spans    int // complete events, wait spans included
	Instants int // instant events
	start    time.Duration
	end      time.Duration
	timed    bool // some span or instant set start and end
	lanes    []lane
	byTid    map[int]int // thread id → index in lanes
	names    nameTable
	marks    bool // the timeline's instants are kept
}

// LoadOptions tune [Load].
type LoadOptions struct {
	// Timeline keeps what WriteSVG draws besides the spans and steals:
	// failed steals, parks and wake-ups (16 bytes each).
	Timeline bool
}

// Load reads a Chrome trace-event JSON file (the object or the array
// format, see [tracefmt.Scan]) from r one event at a time, keeping only the
// compact form of a [Trace]: its memory grows with the number of task
// spans and steals (about 28 and 16 bytes each) and the number of threads,
// not with the file. Metadata events name the process and the threads (a
// named thread gets a lane even with no events). Errors name the event and
// the cause. Load stops with ctx's error when ctx is done.
func Load(ctx context.Context, r io.Reader, o LoadOptions) (*Trace, error) {
	t := newTrace(o.Timeline)
	n := 0
	err := tracefmt.Scan(r, func(e *tracefmt.Event) error {
		if n++; n&4095 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		switch e.Ph {
		case "M":
			switch e.Name {
			case "process_name":
				var a struct{ Name string }
				if json.Unmarshal(e.Args, &a) == nil {
					t.Process = a.Name
				}
			case "thread_name":
				t.lane(e.Tid)
			}
		case "X":
			t.addSpan(e.Tid, e.Name, e.Cat, e.Start, e.Dur)
		case "i", "I":
			victim := -1
			if e.Cat == "steal" {
				victim = victimOfRaw(e.Name, e.Args)
			}
			t.addInstant(e.Tid, e.Cat, e.Start, victim)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	t.finish()
	return t, nil
}

// FromFile converts an in-memory trace. Its lanes are the threads of its
// events and, when it names no threads, workers 0 … f.Workers−1.
func FromFile(f *tracefmt.File) *Trace {
	t := newTrace(true)
	t.Process = f.Process
	if f.Threads != nil {
		for _, tid := range f.Threads {
			t.lane(tid)
		}
	} else {
		for w := 0; w < f.Workers; w++ {
			t.lane(w)
		}
	}
	for _, sp := range f.Spans {
		t.addSpan(sp.Worker, sp.Name, sp.Cat, sp.Start, sp.Dur)
	}
	for _, in := range f.Instants {
		victim := -1
		if kindOf(in.Cat) == instSteal {
			victim = victimOf(in)
		}
		t.addInstant(in.Worker, in.Cat, in.At, victim)
	}
	t.finish()
	return t
}

func newTrace(marks bool) *Trace { return &Trace{byTid: map[int]int{}, marks: marks} }

// lane returns the lane of thread tid, made on first use.
func (t *Trace) lane(tid int) *lane {
	i, ok := t.byTid[tid]
	if !ok {
		i = len(t.lanes)
		t.byTid[tid] = i
		t.lanes = append(t.lanes, lane{tid: tid})
	}
	return &t.lanes[i]
}

func (t *Trace) extend(a, b time.Duration) {
	if !t.timed {
		t.start, t.end, t.timed = a, b, true
		return
	}
	t.start, t.end = min(t.start, a), max(t.end, b)
}

func (t *Trace) addSpan(tid int, name, cat string, start, dur time.Duration) {
	t.Spans++
	t.extend(start, start+dur)
	l := t.lane(tid)
	if cat == "wait" { // the runtime's idle stretch inside a waiting task
		if dur <= 0 {
			return
		}
		l.waits++
		l.waitTotal += dur
		if dur > l.waitLongest {
			l.waitLongest, l.waitLongAt = dur, start
		}
		return
	}
	l.tasks++
	l.spans.add(rec{start: start, dur: dur, name: t.names.ref(name)})
}

func (t *Trace) addInstant(tid int, cat string, at time.Duration, victim int) {
	t.Instants++
	t.extend(at, at)
	l := t.lane(tid)
	k := kindOf(cat)
	switch k {
	case instSteal:
		l.nSteals++
		l.steals = append(l.steals, mark{at: at, arg: victim, kind: k})
	case instFailed:
		l.nFailed++
	case instPark:
		l.nPark++
	case instWake:
		l.nWake++
	case instSpawn:
		l.nSp++
	}
	if t.marks && k != instOther && k != instSpawn {
		l.marks = append(l.marks, mark{at: at, arg: victim, kind: k})
	}
}

// finish orders the lanes by thread id, sorts each, and counts steals
// against their victims.
func (t *Trace) finish() {
	slices.SortFunc(t.lanes, func(a, b lane) int { return a.tid - b.tid })
	for i := range t.lanes {
		t.byTid[t.lanes[i].tid] = i
	}
	for i := range t.lanes {
		l := &t.lanes[i]
		l.finish()
		for _, st := range l.steals {
			if v, ok := t.byTid[st.arg]; ok && st.arg >= 0 {
				t.lanes[v].stolenFrom++
			}
		}
	}
}

// Extent is the time the trace covers: from its earliest event to its
// latest span end or instant.
func (t *Trace) Extent() (start, end time.Duration) { return t.start, t.end }

// Workers is the number of lanes: the threads present in the trace.
func (t *Trace) Workers() int { return len(t.lanes) }

// victimOfRaw is victimOf on an event's JSON args.
func victimOfRaw(name string, args json.RawMessage) int {
	var a map[string]any
	if len(args) > 0 {
		if err := json.Unmarshal(args, &a); err != nil {
			a = nil
		}
	}
	return victimOf(tracefmt.Instant{Name: name, Args: a})
}

// String describes the trace in a line.
func (t *Trace) String() string {
	return fmt.Sprintf("%s: %d workers, %d spans, %d instants", t.Process, len(t.lanes), t.Spans, t.Instants)
}
