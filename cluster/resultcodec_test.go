package cluster

import (
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"
)

// codecCases are results whose strings need every kind of escaping.
var codecCases = []Result{
	{},
	{Job: "j", Task: "t", Index: 3, Handler: "upper", Worker: "w1", Attempt: 1, Runtime: time.Millisecond},
	{Job: "job-1", Task: "a=b", Index: -7, Handler: "h", Output: []byte("out\x00put"), Error: `quote " back \ slash`,
		Worker: "w", Attempt: 2, Deliveries: 5, Discarded: 2, Speculative: true, Start: time.Unix(1700000000, 123456789), Runtime: -3},
	{Error: "<html> & \u2028 \u2029 \b\f\n\r\t \x01\x1f \x7f é 日本 \xff\xfe bad utf8", Output: []byte{}},
	{Error: "cluster: handler panicked: boom", Failure: FailurePanic, Stack: "goroutine 7 [running]:\n\tmain.go:12 +0x1f\n"},
	{Start: time.Unix(0, 0), Runtime: 1 << 62, Index: math.MaxInt, Attempt: math.MinInt},
	{Job: strings.Repeat("x", 3000), Output: []byte(strings.Repeat("\xff", 1000))},
	{Job: "tree", Task: "r=0=3", Parent: "r", Spawned: []string{"r=0=3=1", "r=0=3=2\"<"}, Value: []byte("42\n")},
	{Job: "tree", Task: "leaf", Parent: "r", Value: []byte{}},
	{Job: "tree", Task: "r", Deliveries: 2, Reran: 96},
}

// wireOf is the wireResult json.Marshal encoded before appendResult.
func wireOf(r Result) wireResult {
	w := wireResult{r.Job, r.Task, r.Index, r.Handler, r.Output, r.Error, string(r.Failure), r.Stack, r.Worker, r.Attempt, r.Deliveries, r.Discarded, r.Reran, r.Speculative, 0, int64(r.Runtime),
		r.Parent, r.Spawned, nil}
	if r.Value != nil {
		w.Value = &r.Value
	}
	if !r.Start.IsZero() {
		w.StartNs = r.Start.UnixNano()
	}
	return w
}

func checkCodec(t *testing.T, r Result) {
	t.Helper()
	want, err := json.Marshal(wireOf(r))
	if err != nil {
		t.Fatal(err)
	}
	got := appendResult(nil, r)
	if string(got) != string(want) {
		t.Fatalf("appendResult(%+v)\n got %s\nwant %s", r, got, want)
	}
	// Through json.Marshal (MarshalJSON): the same bytes.
	if via, err := json.Marshal(r); err != nil || string(via) != string(want) {
		t.Fatalf("json.Marshal(Result) = %s, %v; want %s", via, err, want)
	}
	checkDecode(t, got)
}

// checkDecode decodes b with decodeResult and with encoding/json into
// wireResult and requires the same outcome.
func checkDecode(t *testing.T, b []byte) {
	t.Helper()
	var w wireResult
	werr := json.Unmarshal(b, &w)
	var got Result
	gerr := decodeResult(b, &got)
	if (werr == nil) != (gerr == nil) {
		t.Fatalf("decode %q: error %v; encoding/json says %v", b, gerr, werr)
	}
	if werr != nil {
		return
	}
	want := Result{Job: w.Job, Task: w.Task, Index: w.Index, Handler: w.Handler, Output: w.Output, Error: w.Error, Failure: Failure(w.Failure), Stack: w.Stack,
		Worker: w.Worker, Attempt: w.Attempt, Deliveries: w.Deliveries, Discarded: w.Discarded, Reran: w.Reran, Speculative: w.Speculative, Runtime: time.Duration(w.RuntimeNs),
		Parent: w.Parent, Spawned: w.Spawned}
	if w.Value != nil {
		want.Value = *w.Value
		if want.Value == nil {
			want.Value = []byte{}
		}
	}
	if w.StartNs != 0 {
		want.Start = time.Unix(0, w.StartNs)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("decode %q:\n got %+v\nwant %+v", b, got, want)
	}
}

func TestResultCodecMatchesEncodingJSON(t *testing.T) {
	for _, r := range codecCases {
		checkCodec(t, r)
	}
	// Inputs the fast path must hand to encoding/json, or read as it does.
	for _, s := range []string{
		`{}`, ` { "job" : "a" , "index" : 2 } `, `{"job":"a\"b"}`, `{"JOB":"a"}`, `{"job":null}`,
		`{"index":1.0}`, `{"index":1e2}`, `{"index":01}`, `{"index":-0}`, `{"index":-}`, `{"index":99999999999999999999}`,
		`{"job":"a",}`, `{"job":"a"} x`, `{"job":"a"`, `{"job":"\u00e9"}`, "{\"job\":\"a\x01\"}", "{\"job\":\"\xff\"}",
		`{"output":"aGk="}`, `{"output":"aGk"}`, `{"output":""}`, `{"speculative":true}`, `{"speculative":1}`,
		`{"speculative":truex}`, `{"extra":{"a":[1,2]},"job":"a"}`, `{"job":"a","job":"b"}`, `[]`, `null`, ``,
		`{"start_ns":0,"runtime_ns":5}`, `{"attempt":2}{"attempt":3}`,
		`{"parent":"p","value":"NDI="}`, `{"value":"NDI"}`, `{"value":""}`, `{"value":null}`, `{"spawned":["a","b"]}`, `{"spawned":null}`,
	} {
		checkDecode(t, []byte(s))
	}
}

// FuzzResultCodec checks appendResult against json.Marshal on arbitrary
// results, and decodeResult against encoding/json on arbitrary bytes.
func FuzzResultCodec(f *testing.F) {
	for _, r := range codecCases {
		f.Add(r.Job, r.Error, r.Output, int64(r.Index), r.Start.UnixNano(), r.Speculative, appendResult(nil, r))
	}
	f.Add("", "", []byte(nil), int64(0), int64(0), false, []byte(`{"job":"a","index":1e2}`))
	f.Fuzz(func(t *testing.T, job, errText string, out []byte, n, start int64, spec bool, raw []byte) {
		r := Result{Job: job, Task: errText + job, Error: errText, Output: out, Index: int(n), Attempt: int(n >> 3),
			Deliveries: int(n >> 7), Speculative: spec, Runtime: time.Duration(n * 3), Worker: job + "w"}
		if start != 0 {
			r.Start = time.Unix(0, start)
		}
		checkCodec(t, r)
		checkDecode(t, raw)
	})
}

func BenchmarkResultCodec(b *testing.B) {
	r := Result{Job: "bench0", Task: "1234", Index: 1234, Handler: "upper", Output: []byte("TASK 1234"), Worker: "bench1",
		Attempt: 1, Deliveries: 1, Start: time.Now(), Runtime: 1500}
	data := appendResult(nil, r)
	b.Run("encode/ours", func(b *testing.B) {
		for b.Loop() {
			appendResult(nil, r)
		}
	})
	b.Run("encode/encoding-json", func(b *testing.B) {
		for b.Loop() {
			json.Marshal(wireOf(r))
		}
	})
	b.Run("decode/ours", func(b *testing.B) {
		var got Result
		for b.Loop() {
			decodeResult(data, &got)
		}
	})
	b.Run("decode/encoding-json", func(b *testing.B) {
		var w wireResult
		for b.Loop() {
			json.Unmarshal(data, &w)
		}
	})
}
