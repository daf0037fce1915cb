package tracefmt

import (
	"strings"
	"testing"
	"time"
)

// traceSeeds are the inputs of issue 15 and their neighbours: valid traces
// in both formats, a large thread id, JSON that is not a trace, absurd
// timestamps. The seeds run as part of go test; go test -fuzz explores
// from them.
var traceSeeds = []string{
	`{"traceEvents":[{"name":"a","ph":"X","ts":1,"dur":5,"pid":1,"tid":999999999}]}`,
	`{"displayTimeUnit":"ms","traceEvents":[{"name":"process_name","ph":"M","pid":0,"tid":0,"args":{"name":"worksteal"}},{"name":"thread_name","ph":"M","pid":0,"tid":1,"args":{"name":"worker 1"}},{"name":"T1.1","cat":"run","ph":"X","ts":5.5,"dur":3.1,"pid":0,"tid":1},{"name":"steal from 0","cat":"steal","ph":"i","s":"t","ts":5.4,"pid":0,"tid":1,"args":{"victim":0}}]}`,
	`[{"name":"a","ph":"X","ts":1,"dur":5,"tid":1},{"name":"b","ph":"i","ts":2,"tid":1}`,
	`[{"name":"a","ph":"X","ts":1,"dur":5,"tid":1},`,
	`[]`,
	`{"a":[1,2,3]}`,
	`null`,
	`{"traceEvents":null}`,
	`[{"name":"a","ph":"X","ts":-1e308,"dur":5,"tid":1}]`,
	`[{"name":"a","ph":"X","ts":1e15,"dur":1e308,"tid":1}]`,
	`[{"name":"a","ph":"X","ts":1,"dur":-5,"tid":1}]`,
	`[{"name":"a","ph":"i","ts":1,"tid":-7}]`,
	`[{"name":"a","ph":"i","ts":1,"tid":1e300}]`,
	`[{"name":"a","ph":"i","ts":"1","tid":1}]`,
	`[1,"x",null,{}]`,
	`{"traceEvents":[{"ph":"X","ts":0,"dur":1,"tid":3,"name":"x","args":{"victim":"y"}}],"traceEvents":[]}`,
}

func FuzzScan(f *testing.F) {
	for _, s := range traceSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		n := 0
		err := Scan(strings.NewReader(text), func(e *Event) error {
			n++
			lim := time.Duration(MaxMicros * 1e3)
			if e.Start < -lim || e.Start > lim || e.Dur < 0 || e.Dur > lim || e.Start+e.Dur > lim || e.Index != n-1 {
				t.Fatalf("event %+v out of bounds", e)
			}
			return nil
		})
		if err != nil && err.Error() == "" {
			t.Fatal("an error without a message")
		}
		if n > len(text) {
			t.Fatalf("%d events from %d bytes", n, len(text))
		}
	})
}
