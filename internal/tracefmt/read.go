package tracefmt

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"time"
)

// Event is one trace event as [Scan] reads it, its times converted to the
// nanosecond clock.
type Event struct {
	Index int // position in the file's event list, from 0
	Name  string
	Cat   string
	Ph    string // phase: "X" complete, "i"/"I" instant, "M" metadata, …
	Start time.Duration
	Dur   time.Duration // complete events; 0 otherwise
	Pid   int
	Tid   int
	Args  json.RawMessage // nil when absent
}

// Limits of what [Scan] accepts.
const (
	// MaxMicros bounds ts, dur and ts+dur, in microseconds (about 126
	// years): within it every difference of two times fits a
	// time.Duration. Clocks since the Unix epoch (1.8e15 µs in 2027) fit.
	MaxMicros = 4e15
	// MaxEventBytes bounds one event's JSON text, so a file without
	// structure (a huge string, an endless array) cannot exhaust memory.
	MaxEventBytes = 16 << 20
)

// ErrNotTrace is wrapped by the errors of input that is not a trace:
// not JSON, or JSON without trace events (an object without
// "traceEvents", null, a number).
var ErrNotTrace = errors.New("not a trace-event JSON file")

// rawEvent is one entry of traceEvents as decoded.
type rawEvent struct {
	Name *string         `json:"name"`
	Cat  string          `json:"cat"`
	Ph   *string         `json:"ph"`
	Ts   *float64        `json:"ts"`
	Dur  float64         `json:"dur"`
	Pid  json.RawMessage `json:"pid"`
	Tid  json.RawMessage `json:"tid"`
	Args json.RawMessage `json:"args"`
}

// Scan reads a trace-event JSON file from r and calls fn for each event in
// file order, without holding more than one event in memory. It accepts the
// JSON Object Format ({"traceEvents": [...], other keys ignored}) and the
// JSON Array Format ([...]; the closing bracket may be missing). Every
// event needs "ph"; instant and complete events need "ts"; ts and dur are
// finite and within ±[MaxMicros]; dur is not negative; pid and tid are
// integers (a trace from another program may use large OS thread ids).
// Errors name the event (its index and name) and the cause; an error
// returned by fn stops the scan and is returned as is.
func Scan(r io.Reader, fn func(*Event) error) error {
	cr := &countingReader{r: r}
	dec := json.NewDecoder(bufio.NewReaderSize(cr, 64<<10))
	dec.UseNumber()
	cr.dec = dec
	tok, err := dec.Token()
	if err != nil {
		if err == io.EOF {
			return fmt.Errorf("%w: the file is empty", ErrNotTrace)
		}
		return fmt.Errorf("%w: %v", ErrNotTrace, err)
	}
	array := false
	switch tok {
	case json.Delim('['):
		array = true
	case json.Delim('{'):
		found := false
		for dec.More() {
			key, err := dec.Token()
			if err != nil {
				return fmt.Errorf("%w: %v", ErrNotTrace, err)
			}
			if key != "traceEvents" {
				if err := skipValue(dec); err != nil {
					return fmt.Errorf("%w: key %q: %v", ErrNotTrace, key, err)
				}
				continue
			}
			if t, err := dec.Token(); err != nil || t != json.Delim('[') {
				return fmt.Errorf("%w: \"traceEvents\" is not an array", ErrNotTrace)
			}
			if err := scanEvents(dec, false, fn); err != nil {
				return err
			}
			found = true
		}
		if !found {
			return fmt.Errorf("%w: a JSON object without \"traceEvents\"", ErrNotTrace)
		}
		if _, err := dec.Token(); err != nil { // the closing brace
			return fmt.Errorf("%w: %v", ErrNotTrace, err)
		}
		return nil
	default:
		return fmt.Errorf("%w: the JSON value is %s, not an object with \"traceEvents\" or an array of events", ErrNotTrace, describe(tok))
	}
	return scanEvents(dec, array, fn)
}

// describe names a JSON token for an error.
func describe(tok json.Token) string {
	switch v := tok.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case bool:
		return fmt.Sprint(v)
	case json.Number:
		return "a number"
	}
	return fmt.Sprint(tok)
}

// skipValue reads one JSON value token by token (a large value the
// summary does not need is never held whole).
func skipValue(dec *json.Decoder) error {
	depth := 0
	for {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		switch t {
		case json.Delim('['), json.Delim('{'):
			depth++
		case json.Delim(']'), json.Delim('}'):
			depth--
		}
		if depth == 0 {
			return nil
		}
	}
}

// scanEvents reads the events of an array whose '[' has been read. In the
// array format the closing ']' (and what follows) may be missing.
func scanEvents(dec *json.Decoder, array bool, fn func(*Event) error) error {
	var ev Event
	for i := 0; ; i++ {
		if !dec.More() {
			break
		}
		var raw rawEvent
		if err := dec.Decode(&raw); err != nil {
			if array && (errors.Is(err, io.ErrUnexpectedEOF) || err == io.EOF) && !bytes.Contains([]byte(err.Error()), []byte("event")) {
				return nil // a trace cut short: the array format allows it
			}
			var te *json.UnmarshalTypeError
			if errors.As(err, &te) {
				if te.Field == "" {
					return fmt.Errorf("event %d: a JSON %s, not an event object", i, te.Value)
				}
				want := "a number"
				if te.Type.Kind() == reflect.String || te.Type.Kind() == reflect.Pointer && te.Type.Elem().Kind() == reflect.String {
					want = "a string"
				}
				return fmt.Errorf("event %d: field %q is a JSON %s; want %s", i, te.Field, te.Value, want)
			}
			return fmt.Errorf("event %d: %w", i, err)
		}
		if err := ev.from(i, &raw); err != nil {
			return err
		}
		if err := fn(&ev); err != nil {
			return err
		}
	}
	if _, err := dec.Token(); err != nil { // the closing bracket
		if errors.Is(err, io.ErrUnexpectedEOF) || err == io.EOF {
			if array {
				return nil
			}
			return fmt.Errorf("the file ends inside the event list (unexpected EOF)")
		}
		return fmt.Errorf("after the event list: %w", err)
	}
	return nil
}

// from checks raw and converts it into e.
func (e *Event) from(i int, raw *rawEvent) error {
	*e = Event{Index: i, Cat: raw.Cat, Args: raw.Args}
	if raw.Name != nil {
		e.Name = *raw.Name
	}
	fail := func(format string, args ...any) error {
		return fmt.Errorf("event %d (%q): %s", i, e.Name, fmt.Sprintf(format, args...))
	}
	if raw.Ph == nil {
		return fail("no \"ph\" (phase): not a trace event")
	}
	e.Ph = *raw.Ph
	var err error
	if e.Pid, err = integer(raw.Pid); err != nil {
		return fail("pid %s: %v", raw.Pid, err)
	}
	if e.Tid, err = integer(raw.Tid); err != nil {
		return fail("tid %s: %v", raw.Tid, err)
	}
	timed := e.Ph == "X" || e.Ph == "i" || e.Ph == "I"
	if raw.Ts == nil {
		if timed {
			return fail("no \"ts\" (timestamp)")
		}
		return nil
	}
	ts, dur := *raw.Ts, raw.Dur
	if !(math.Abs(ts) <= MaxMicros) {
		return fail("ts %g µs is out of range (at most ±%g µs)", ts, float64(MaxMicros))
	}
	if e.Ph == "X" {
		if !(dur >= 0) {
			return fail("dur %g µs is negative", dur)
		}
		if !(dur <= MaxMicros) || !(math.Abs(ts+dur) <= MaxMicros) {
			return fail("ts %g + dur %g µs is out of range (at most ±%g µs)", ts, dur, float64(MaxMicros))
		}
		e.Dur = micros(dur)
	}
	e.Start = micros(ts)
	return nil
}

// micros converts microseconds (within MaxMicros) to a Duration, rounded
// to the nanosecond.
func micros(x float64) time.Duration { return time.Duration(math.Round(x * 1e3)) }

// integer reads a pid or tid: absent or null is 0; else a whole number
// that fits an int.
func integer(raw json.RawMessage) (int, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return 0, nil
	}
	if raw[0] == '"' {
		return 0, errors.New("a string, not a number")
	}
	n := json.Number(raw)
	v, err := n.Int64()
	if err != nil {
		f, ferr := n.Float64()
		if ferr != nil || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
			return 0, errors.New("not an integer")
		}
		v = int64(f)
	}
	if int64(int(v)) != v {
		return 0, errors.New("out of range")
	}
	return int(v), nil
}

// countingReader fails a read when the decoder holds more than
// MaxEventBytes it has not consumed: one event (or one value skipped
// between events) is that large.
type countingReader struct {
	r   io.Reader
	n   int64
	dec *json.Decoder
}

func (c *countingReader) Read(p []byte) (int, error) {
	if c.dec != nil && c.n-c.dec.InputOffset() > MaxEventBytes+128<<10 {
		return 0, fmt.Errorf("a single JSON value longer than %d MiB at byte %d", MaxEventBytes>>20, c.dec.InputOffset())
	}
	if len(p) > 1<<20 { // so one read cannot overshoot the bound by much
		p = p[:1<<20]
	}
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// Read reads a whole trace into memory through [Scan] (complete and
// instant events; other phases are ignored). Workers is one more than the
// largest thread id seen; thread ids must not be negative.
func Read(r io.Reader) (*File, error) {
	f := &File{Threads: []int{}}
	named := map[int]bool{}
	err := Scan(r, func(e *Event) error {
		if e.Tid < 0 {
			return fmt.Errorf("event %d (%q): negative tid %d", e.Index, e.Name, e.Tid)
		}
		switch e.Ph {
		case "M":
			if e.Name == "process_name" {
				var a struct{ Name string }
				if json.Unmarshal(e.Args, &a) == nil {
					f.Process = a.Name
				}
			} else if e.Name == "thread_name" {
				if !named[e.Tid] {
					named[e.Tid] = true
					f.Threads = append(f.Threads, e.Tid)
				}
				f.Workers = max(f.Workers, e.Tid+1)
			}
			return nil
		case "X":
			f.Spans = append(f.Spans, Span{Worker: e.Tid, Name: e.Name, Cat: e.Cat, Start: e.Start, Dur: e.Dur})
		case "i", "I":
			in := Instant{Worker: e.Tid, Name: e.Name, Cat: e.Cat, At: e.Start}
			if len(e.Args) > 0 {
				json.Unmarshal(e.Args, &in.Args)
			}
			f.Instants = append(f.Instants, in)
		default:
			return nil
		}
		if e.Tid+1 > f.Workers {
			f.Workers = e.Tid + 1
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return f, nil
}
