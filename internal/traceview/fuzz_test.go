package traceview

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// FuzzLoad feeds arbitrary text to Load and, when it is a trace, to the
// summary, its text and its picture: nothing panics, lanes are the threads
// present (never more than the events), and the numbers stay in range.
func FuzzLoad(f *testing.F) {
	for _, s := range []string{
		`{"traceEvents":[{"name":"a","ph":"X","ts":1,"dur":5,"pid":1,"tid":999999999},{"name":"steal from 999999999","cat":"steal","ph":"i","ts":0.5,"tid":4,"args":{"victim":999999999}},{"name":"b","ph":"X","ts":2,"dur":9,"tid":4}]}`,
		`[{"name":"a","ph":"X","ts":0,"dur":10,"tid":0},{"name":"w","cat":"wait","ph":"X","ts":2,"dur":3,"tid":0},{"name":"n","ph":"X","ts":6,"dur":9,"tid":0},`,
		`[{"name":"p","cat":"park","ph":"i","ts":1,"tid":2},{"name":"w","cat":"wake","ph":"i","ts":3,"tid":2},{"name":"f","cat":"steal-fail","ph":"i","ts":3,"tid":2}]`,
		`{"a":[1,2,3]}`, `null`, `[{"name":"a","ph":"X","ts":-1e308,"dur":1}]`,
		`[{"name":"a","ph":"X","ts":-4e15,"dur":0,"tid":1},{"name":"b","ph":"X","ts":4e15,"dur":0,"tid":1}]`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		tr, err := Load(context.Background(), strings.NewReader(text), LoadOptions{Timeline: true})
		if err != nil {
			return
		}
		if tr.Workers() > strings.Count(text, "{") {
			t.Fatalf("%d lanes from %d objects", tr.Workers(), strings.Count(text, "{"))
		}
		s := tr.Summary(Options{Top: 3})
		if s.Extent() < 0 {
			t.Fatalf("negative extent %v", s.Extent())
		}
		for _, w := range s.Workers {
			if w.Busy < 0 || w.Busy > s.Extent() || w.Idle < 0 || w.LongestGap > w.Idle || w.Utilization < 0 || w.Utilization > 1 {
				t.Fatalf("worker %+v over extent %v", w, s.Extent())
			}
		}
		for _, task := range s.Longest {
			if task.Self < 0 || task.Self > task.Dur {
				t.Fatalf("task %+v", task)
			}
		}
		var out bytes.Buffer
		if err := s.WriteText(&out); err != nil {
			t.Fatal(err)
		}
		out.Reset()
		if err := tr.WriteSVG(&out, s, SVGOptions{}); err != nil {
			t.Fatal(err)
		}
		wellFormed(t, out.Bytes())
	})
}
