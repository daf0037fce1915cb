package tracefmt

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// scanAll reads every event of a trace given as text.
func scanAll(text string) ([]Event, error) {
	var evs []Event
	err := Scan(strings.NewReader(text), func(e *Event) error {
		evs = append(evs, *e)
		return nil
	})
	return evs, err
}

func TestScanFormats(t *testing.T) {
	const x = `{"name":"a","ph":"X","ts":1.5,"dur":2,"pid":1,"tid":999999999}`
	for _, tc := range []struct {
		name, text string
		events     int
	}{
		{"object", `{"traceEvents":[` + x + `]}`, 1},
		{"object with other keys around", `{"displayTimeUnit":"ms","meta":{"a":[1,{"b":2}]},"traceEvents":[` + x + `,` + x + `],"stackFrames":{}}`, 2},
		{"empty object trace", `{"traceEvents":[]}`, 0},
		{"array", `[` + x + `]`, 1},
		{"array without its closing bracket", `[` + x + `,` + x, 2},
		{"array cut after a comma", `[` + x + `,`, 1},
		{"array, empty", `[]`, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			evs, err := scanAll(tc.text)
			if err != nil || len(evs) != tc.events {
				t.Fatalf("Scan = %d events, %v; want %d", len(evs), err, tc.events)
			}
			if len(evs) > 0 {
				if e := evs[0]; e.Tid != 999999999 || e.Start != 1500*time.Nanosecond || e.Dur != 2*time.Microsecond || e.Name != "a" {
					t.Errorf("event = %+v", e)
				}
			}
		})
	}
}

// Input that is not a trace, or a trace with impossible values, gets an
// error that names the event and the cause.
func TestScanErrors(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		want       string
		notTrace   bool
	}{
		{"not JSON", `not json`, "invalid character", true},
		{"empty", ``, "the file is empty", true},
		{"null", `null`, "the JSON value is null", true},
		{"number", `42`, "the JSON value is a number", true},
		{"object without traceEvents", `{"a":[1,2,3]}`, `a JSON object without "traceEvents"`, true},
		{"traceEvents not an array", `{"traceEvents":{}}`, `"traceEvents" is not an array`, true},
		{"array of numbers", `[1,2,3]`, "event 0: a JSON number, not an event object", false},
		{"event without ph", `[{"name":"a","ts":1}]`, `event 0 ("a"): no "ph"`, false},
		{"instant without ts", `[{"name":"a","ph":"i"}]`, `event 0 ("a"): no "ts"`, false},
		{"ts -1e308", `[{"name":"a","ph":"X","ts":-1e308,"dur":1}]`, `event 0 ("a"): ts -1e+308 µs is out of range`, false},
		{"ts 1e308", `[{"name":"a","ph":"i","ts":1e308}]`, `ts 1e+308 µs is out of range`, false},
		{"dur overflows", `[{"name":"a","ph":"X","ts":3e15,"dur":3e15}]`, `ts 3e+15 + dur 3e+15 µs is out of range`, false},
		{"negative dur", `[{"name":"a","ph":"X","ts":1,"dur":-1}]`, `event 0 ("a"): dur -1 µs is negative`, false},
		{"fractional tid", `[{"name":"a","ph":"X","ts":1,"tid":1.5}]`, `tid 1.5: not an integer`, false},
		{"huge tid", `[{"name":"a","ph":"X","ts":1,"tid":1e30}]`, `tid 1e30: not an integer`, false},
		{"string tid", `[{"name":"a","ph":"X","ts":1,"tid":"x"}]`, `event 0 ("a"): tid "x": a string, not a number`, false},
		{"second event broken", `{"traceEvents":[{"name":"a","ph":"X","ts":1},{"name":"b","ph":"X","ts":"x"}]}`, `event 1: field "ts" is a JSON string; want a number`, false},
		{"object cut short", `{"traceEvents":[{"name":"a","ph":"X","ts":1}`, "unexpected EOF", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := scanAll(tc.text)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Scan(%q) = %v; want an error with %q", tc.text, err, tc.want)
			}
			if got := errors.Is(err, ErrNotTrace); got != tc.notTrace {
				t.Errorf("errors.Is(%v, ErrNotTrace) = %v; want %v", err, got, tc.notTrace)
			}
		})
	}
}

// One value larger than MaxEventBytes (a file without structure) fails
// instead of being buffered whole.
func TestScanBoundsOneValue(t *testing.T) {
	big := `[{"name":"` + strings.Repeat("x", MaxEventBytes+1<<20) + `","ph":"i","ts":1}]`
	_, err := scanAll(big)
	if err == nil || !strings.Contains(err.Error(), "a single JSON value longer than") {
		t.Fatalf("Scan of a %d-byte event: %v; want the size limit", len(big), err)
	}
}

// What Write writes, Read reads back.
func TestWriteReadRoundTrip(t *testing.T) {
	f := &File{Process: "p", Workers: 2,
		Spans:    []Span{{Worker: 1, Name: "T1.3", Cat: "run", Start: 1500, Dur: 2000}},
		Instants: []Instant{{Worker: 0, Name: "steal from 1", Cat: "steal", At: 1234, Args: map[string]any{"victim": 1}}},
	}
	var buf bytes.Buffer
	if err := Write(&buf, f); err != nil {
		t.Fatal(err)
	}
	back, err := Read(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if back.Process != "p" || back.Workers != 2 || len(back.Threads) != 2 || back.Spans[0] != f.Spans[0] ||
		back.Instants[0].At != 1234 || back.Instants[0].Args["victim"] != float64(1) {
		t.Errorf("round trip: %+v", back)
	}
}

func ExampleScan() {
	text := `{"traceEvents":[{"name":"T0.1","cat":"run","ph":"X","ts":1.5,"dur":2,"pid":0,"tid":0}]}`
	Scan(strings.NewReader(text), func(e *Event) error {
		fmt.Println(e.Index, e.Name, e.Ph, e.Start, e.Dur, e.Tid)
		return nil
	})
	// Output: 0 T0.1 X 1.5µs 2µs 0
}
