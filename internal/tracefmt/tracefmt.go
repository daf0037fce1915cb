// Package tracefmt reads and writes the Chrome trace-event JSON format
// (the "JSON Object Format" of the Trace Event Format document), which
// Perfetto (ui.perfetto.dev) and chrome://tracing open. The runtime's event
// trace and the simulator write it, so a real and a simulated schedule can
// be compared side by side.
//
// Conventions: process 0 is the pool (or the simulation); thread i is
// worker i; a task is a complete event ("ph":"X") with ts and dur in
// microseconds; steals, parks and wake-ups are instant events ("ph":"i")
// on the worker's thread.
package tracefmt

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"time"
)

// Span is a complete event: something a worker ran from Start for Dur.
type Span struct {
	Worker int
	Name   string
	Cat    string
	Start  time.Duration
	Dur    time.Duration
}

// Instant is an instant event on a worker's thread.
type Instant struct {
	Worker int
	Name   string
	Cat    string
	At     time.Duration
	Args   map[string]any
}

// File is the content of one trace.
type File struct {
	Process  string
	Workers  int
	Spans    []Span
	Instants []Instant
}

// Write writes f as Chrome trace-event JSON.
func Write(w io.Writer, f *File) error {
	bw := bufio.NewWriter(w)
	bw.WriteString(`{"displayTimeUnit":"ms","traceEvents":[`)
	first := true
	sep := func() {
		if first {
			bw.WriteString("\n")
		} else {
			bw.WriteString(",\n")
		}
		first = false
	}
	sep()
	fmt.Fprintf(bw, `{"name":"process_name","ph":"M","pid":0,"tid":0,"args":{"name":%s}}`, strconv.Quote(f.Process))
	for i := 0; i < f.Workers; i++ {
		sep()
		fmt.Fprintf(bw, `{"name":"thread_name","ph":"M","pid":0,"tid":%d,"args":{"name":"worker %d"}}`, i, i)
	}
	for _, s := range f.Spans {
		sep()
		fmt.Fprintf(bw, `{"name":%s,"cat":%s,"ph":"X","ts":%s,"dur":%s,"pid":0,"tid":%d}`,
			strconv.Quote(s.Name), strconv.Quote(s.Cat), Micros(s.Start), Micros(s.Dur), s.Worker)
	}
	for _, in := range f.Instants {
		sep()
		fmt.Fprintf(bw, `{"name":%s,"cat":%s,"ph":"i","s":"t","ts":%s,"pid":0,"tid":%d`,
			strconv.Quote(in.Name), strconv.Quote(in.Cat), Micros(in.At), in.Worker)
		if len(in.Args) > 0 {
			args, err := json.Marshal(in.Args)
			if err != nil {
				return fmt.Errorf("tracefmt: args of %q: %w", in.Name, err)
			}
			bw.WriteString(`,"args":`)
			bw.Write(args)
		}
		bw.WriteString("}")
	}
	bw.WriteString("\n]}\n")
	return bw.Flush()
}

// Micros formats a duration in microseconds, exactly (nanosecond clock).
func Micros(d time.Duration) string {
	return strconv.FormatFloat(float64(d)/1e3, 'f', -1, 64)
}

// rawEvent is one entry of traceEvents as read back.
type rawEvent struct {
	Name string          `json:"name"`
	Cat  string          `json:"cat"`
	Ph   string          `json:"ph"`
	Ts   float64         `json:"ts"`
	Dur  float64         `json:"dur"`
	Pid  int             `json:"pid"`
	Tid  int             `json:"tid"`
	Args json.RawMessage `json:"args"`
}

// Read parses a trace written by Write (or any trace-event JSON object with
// complete and instant events; other phases are ignored). Workers is one
// more than the largest thread id seen.
func Read(r io.Reader) (*File, error) {
	var doc struct {
		TraceEvents []rawEvent `json:"traceEvents"`
	}
	if err := json.NewDecoder(r).Decode(&doc); err != nil {
		return nil, fmt.Errorf("tracefmt: not a trace-event JSON object: %w", err)
	}
	f := &File{}
	us := func(x float64) time.Duration { return time.Duration(x * 1e3) }
	for i, e := range doc.TraceEvents {
		if e.Tid < 0 {
			return nil, fmt.Errorf("tracefmt: event %d (%q): negative tid %d", i, e.Name, e.Tid)
		}
		if e.Tid+1 > f.Workers && e.Ph != "M" {
			f.Workers = e.Tid + 1
		}
		switch e.Ph {
		case "M":
			if e.Name == "process_name" {
				var a struct{ Name string }
				if json.Unmarshal(e.Args, &a) == nil {
					f.Process = a.Name
				}
			} else if e.Name == "thread_name" && e.Tid+1 > f.Workers {
				f.Workers = e.Tid + 1
			}
		case "X":
			if e.Dur < 0 {
				return nil, fmt.Errorf("tracefmt: event %d (%q): negative dur", i, e.Name)
			}
			f.Spans = append(f.Spans, Span{Worker: e.Tid, Name: e.Name, Cat: e.Cat, Start: us(e.Ts), Dur: us(e.Dur)})
		case "i", "I":
			in := Instant{Worker: e.Tid, Name: e.Name, Cat: e.Cat, At: us(e.Ts)}
			if len(e.Args) > 0 {
				json.Unmarshal(e.Args, &in.Args)
			}
			f.Instants = append(f.Instants, in)
		}
	}
	return f, nil
}
