package sim

import (
	"bufio"
	"errors"
	"io"
	"strconv"
	"time"
)

// Span kinds.
const (
	spanRun          = "run"          // a task, or its part up to its spawn point
	spanContinuation = "continuation" // a fork-join parent after its join
	spanAborted      = "aborted"      // cut short by the loss of its worker
)

// schedule is the recorded timeline of a run: what each worker ran, when,
// and every successful steal. Spans are in the order they ended.
type schedule struct {
	Workers int
	Spans   []span
	Steals  []stealRec
}

// span is one piece of a task on one worker.
type span struct {
	Worker     int
	Task       int
	Start, End time.Duration
	Kind       string // spanRun, spanContinuation or spanAborted
}

// stealRec is one successful steal: Thief took Count tasks from Victim, the
// first being Task.
type stealRec struct {
	At     time.Duration
	Thief  int
	Victim int
	Task   int
	Count  int
}

// errNoSchedule is returned by writers that need Options.record.
var errNoSchedule = errors.New("sim: no schedule recorded (run with simlab.Options' record)")

// writeTrace writes the schedule as Chrome trace-event JSON, which opens in
// Perfetto (ui.perfetto.dev) or chrome://tracing: one thread per worker, a
// complete event ("ph":"X") per span with ts and dur in microseconds, and an
// instant event ("ph":"i") per steal on the thief's thread. The runtime's
// trace recorder writes the same format, so a simulated and a real schedule
// look alike.
func (r *Result) writeTrace(w io.Writer) error {
	s := r.schedule
	if s == nil {
		return errNoSchedule
	}
	bw := bufio.NewWriter(w)
	bw.WriteString(`{"displayTimeUnit":"ms","traceEvents":[`)
	first := true
	sep := func() {
		if !first {
			bw.WriteString(",\n")
		} else {
			bw.WriteString("\n")
		}
		first = false
	}
	name := r.Report.scenarioName
	if name == "" {
		name = "sim"
	}
	sep()
	bw.WriteString(`{"name":"process_name","ph":"M","pid":0,"tid":0,"args":{"name":`)
	bw.WriteString(strconv.Quote(name))
	bw.WriteString(`}}`)
	for i := 0; i < s.Workers; i++ {
		sep()
		bw.WriteString(`{"name":"thread_name","ph":"M","pid":0,"tid":`)
		bw.WriteString(strconv.Itoa(i))
		bw.WriteString(`,"args":{"name":"worker `)
		bw.WriteString(strconv.Itoa(i))
		bw.WriteString(`"}}`)
	}
	for _, sp := range s.Spans {
		sep()
		bw.WriteString(`{"name":"T`)
		bw.WriteString(strconv.Itoa(sp.Task))
		if sp.Kind != spanRun {
			bw.WriteString(" " + sp.Kind)
		}
		bw.WriteString(`","cat":"`)
		bw.WriteString(sp.Kind)
		bw.WriteString(`","ph":"X","ts":`)
		bw.WriteString(micros(sp.Start))
		bw.WriteString(`,"dur":`)
		bw.WriteString(micros(sp.End - sp.Start))
		bw.WriteString(`,"pid":0,"tid":`)
		bw.WriteString(strconv.Itoa(sp.Worker))
		bw.WriteString(`}`)
	}
	for _, st := range s.Steals {
		sep()
		bw.WriteString(`{"name":"steal T`)
		bw.WriteString(strconv.Itoa(st.Task))
		bw.WriteString(` from `)
		bw.WriteString(strconv.Itoa(st.Victim))
		bw.WriteString(`","cat":"steal","ph":"i","s":"t","ts":`)
		bw.WriteString(micros(st.At))
		bw.WriteString(`,"pid":0,"tid":`)
		bw.WriteString(strconv.Itoa(st.Thief))
		bw.WriteString(`,"args":{"count":`)
		bw.WriteString(strconv.Itoa(st.Count))
		bw.WriteString(`}}`)
	}
	bw.WriteString("\n]}\n")
	return bw.Flush()
}

// micros formats a virtual time in microseconds, exactly (nanosecond clock).
func micros(d time.Duration) string {
	return strconv.FormatFloat(float64(d)/1e3, 'f', -1, 64)
}
