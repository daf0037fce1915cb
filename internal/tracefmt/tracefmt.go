// Package tracefmt reads and writes the Chrome trace-event JSON format,
// which Perfetto (ui.perfetto.dev) and chrome://tracing open. It writes the
// "JSON Object Format" of the Trace Event Format document ({"traceEvents":
// [...]}) and reads it and the "JSON Array Format" ([...], whose closing
// bracket may be missing, as in a trace cut short), one event at a time:
// see [Scan]. The runtime's event
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
	Process string
	// Workers is the number of worker threads, 0 … Workers−1, for a trace
	// made in memory (Write names each). Read sets it to one more than the
	// largest thread id: use Threads for the ids a file has.
	Workers int
	// Threads are the thread ids named by thread_name metadata, in file
	// order (Read fills it; when set, Write names these instead).
	Threads  []int
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
	threads := f.Threads
	if threads == nil {
		for i := 0; i < f.Workers; i++ {
			threads = append(threads, i)
		}
	}
	for _, i := range threads {
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
