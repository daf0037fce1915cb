package cluster

import (
	"encoding/json"
	"testing"
	"time"
)

// TestDigestReadsWhatUnmarshalReads: the observer's fast reading of a
// stored result agrees with encoding/json, also for errors and outputs
// that contain quotes, backslashes and text that looks like the keys.
func TestDigestReadsWhatUnmarshalReads(t *testing.T) {
	start := time.Unix(1700000000, 123456789)
	for _, r := range []Result{
		{Job: "j", Task: "0", Worker: "w", Attempt: 1, Start: start, Runtime: 1500},
		{Job: "job-1", Task: "t=2", Index: 7, Handler: "sh", Output: []byte(`{"worker":"x","error":"y"}`), Worker: "host-12", Attempt: 3, Deliveries: 5, Start: start, Runtime: time.Second},
		{Job: "j", Task: "q", Error: `exit status 1: ,"worker":"evil","attempt":99,"runtime_ns":1 \"quoted\" back\slash\`, Worker: "w2", Attempt: 2, Deliveries: 2, Runtime: 42},
		{Job: "j", Task: "spent", Error: "cluster: task delivered the maximum number of times without a result (10 deliveries)", Worker: "w", Attempt: 1, Deliveries: 10},
		{Job: "j", Task: "u", Error: "ünïcode \u2028 and \t tabs", Worker: "w", Attempt: 1, Speculative: true, Start: start, Runtime: 9},
	} {
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		var want resultDigest
		if err := json.Unmarshal(b, &want); err != nil {
			t.Fatal(err)
		}
		got, ok := digest(b)
		// Error is compared by emptiness: the observer counts failures.
		if !ok || got.Job != want.Job || got.Task != want.Task || got.Worker != want.Worker || got.Attempt != want.Attempt ||
			got.Deliveries != want.Deliveries || got.StartNs != want.StartNs || got.RuntimeNs != want.RuntimeNs || (got.Error == "") != (want.Error == "") {
			t.Errorf("digest(%s) = %+v, %v; want %+v", b, got, ok, want)
		}
	}
	// Another layout: read by encoding/json.
	if r, ok := digest([]byte(`{"task":"0","job":"j","runtime_ns":5}`)); !ok || r.Job != "j" || r.Task != "0" || r.RuntimeNs != 5 {
		t.Errorf("digest of another layout = %+v, %v; want job j, task 0, runtime 5", r, ok)
	}
}

func BenchmarkDigest(b *testing.B) {
	data, _ := json.Marshal(Result{Job: "bench0", Task: "1234", Index: 1234, Handler: "echo", Output: []byte("task 1234"), Worker: "bench1", Attempt: 1, Deliveries: 1, Start: time.Now(), Runtime: 12345})
	b.Run("digest", func(b *testing.B) {
		for b.Loop() {
			digest(data)
		}
	})
	b.Run("json.Unmarshal", func(b *testing.B) {
		for b.Loop() {
			var r resultDigest
			json.Unmarshal(data, &r)
		}
	})
}
