package traceview

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/worksteal/worksteal/internal/tracefmt"
)

// Lanes are the thread ids present: a trace from another program, with OS
// thread ids, gets one lane per thread, whatever the ids.
func TestLoadLanesKeyedByThreadID(t *testing.T) {
	text := `{"traceEvents":[
{"name":"thread_name","ph":"M","pid":1,"tid":5,"args":{"name":"idle thread"}},
{"name":"a","ph":"X","ts":0,"dur":10,"pid":1,"tid":999999999},
{"name":"b","ph":"X","ts":2,"dur":4,"pid":1,"tid":999999999},
{"name":"steal from 999999999","cat":"steal","ph":"i","ts":1,"pid":1,"tid":7,"args":{"victim":999999999}},
{"name":"c","ph":"X","ts":3,"dur":9,"pid":1,"tid":7}]}`
	tr, err := Load(context.Background(), strings.NewReader(text), LoadOptions{Timeline: true})
	if err != nil {
		t.Fatal(err)
	}
	s := tr.Summary(Options{})
	var tids []int
	for _, w := range s.Workers {
		tids = append(tids, w.Worker)
	}
	if fmt.Sprint(tids) != "[5 7 999999999]" {
		t.Fatalf("workers %v; want [5 7 999999999]", tids)
	}
	big := s.Workers[2]
	if big.Tasks != 2 || big.Busy != 10*us || big.StolenFrom != 1 || s.Workers[1].Steals != 1 || s.Workers[0].Idle != s.Extent() {
		t.Errorf("summary %+v", s.Workers)
	}
	if l := s.Path.Links; len(l) != 2 || l[0].Task.Name != "a" || l[1].Task.Name != "c" || l[1].Victim != 999999999 {
		t.Errorf("path %+v; want a, then c stolen from 999999999", l)
	}
	var svg bytes.Buffer
	if err := tr.WriteSVG(&svg, s, SVGOptions{}); err != nil || !strings.Contains(svg.String(), "worker 999999999") {
		t.Errorf("SVG: %v", err)
	}
	wellFormed(t, svg.Bytes())
}

// traceGen writes a runtime-like trace on the fly, as an io.Reader:
// workers lanes of nested task spans, wait spans, steals, failed steals,
// parks and wake-ups, until size bytes. spanEvery sets how many events in
// a row are instants (failed steals, parks, wake-ups) between two spans.
type traceGen struct {
	size, spanEvery, workers int
	n                        int // bytes produced
	i                        int // events produced
	spans, instants          int
	buf                      bytes.Buffer
	sample                   func()
}

func (g *traceGen) Read(p []byte) (int, error) {
	for g.buf.Len() < len(p) && g.n+g.buf.Len() < g.size {
		g.event()
	}
	if g.buf.Len() == 0 {
		if g.i == -1 {
			return 0, io.EOF
		}
		g.buf.WriteString("\n]}\n")
		g.i = -1
	}
	n, _ := g.buf.Read(p)
	before := g.n
	g.n += n
	if g.sample != nil && g.n>>20 != before>>20 { // every MiB
		g.sample()
	}
	return n, nil
}

func (g *traceGen) event() {
	if g.i == 0 {
		g.buf.WriteString(`{"displayTimeUnit":"ms","traceEvents":[` + "\n")
	} else {
		g.buf.WriteString(",\n")
	}
	w := g.i % g.workers
	ts := float64(g.i) * 0.25 // µs
	switch k := g.i / g.workers % g.spanEvery; {
	case k == 0:
		g.spans++
		fmt.Fprintf(&g.buf, `{"name":"T%d.%d","cat":"run","ph":"X","ts":%.3f,"dur":%.3f,"pid":0,"tid":%d}`, w, g.i, ts, 0.2, 1000+w)
	case k == 1:
		g.instants++
		fmt.Fprintf(&g.buf, `{"name":"steal from %d","cat":"steal","ph":"i","s":"t","ts":%.3f,"pid":0,"tid":%d,"args":{"victim":%d}}`, (w+1)%g.workers, ts, 1000+w, 1000+(w+1)%g.workers)
	default:
		g.instants++
		cat := [...]string{"steal-fail", "park", "wake"}[k%3]
		fmt.Fprintf(&g.buf, `{"name":"%s","cat":"%s","ph":"i","s":"t","ts":%.3f,"pid":0,"tid":%d,"args":{"victim":%d}}`, cat, cat, ts, 1000+w, w)
	}
	g.i++
}

// liveHeap is the heap in use after a collection.
func liveHeap() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// The trace is read as a stream: memory grows with what the summary needs
// (the task spans and steals, in compact form), not with the file. A trace
// of instants on 8 workers is summarized in about 200 KB whatever its size
// (the same at 4 and 16 MiB); one of spans in about a third of its bytes. The trace is made on
// the fly, so the file is never in memory either.
func TestLoadStreamsInBoundedMemory(t *testing.T) {
	const size = 4 << 20
	for _, tc := range []struct {
		name      string
		spanEvery int
		maxGrowth func(g *traceGen) uint64 // bytes
	}{
		// One span and one steal per 1,000 events: almost all instants.
		{"instants", 1000, func(g *traceGen) uint64 { return 512 << 10 }},
		// Every other event a span: 24-28 bytes kept per span of ~85.
		{"spans", 2, func(g *traceGen) uint64 { return uint64(40*g.spans + 24*g.instants/2 + 2<<20) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := &traceGen{size: size, spanEvery: tc.spanEvery, workers: 8}
			base := liveHeap()
			var peak uint64
			g.sample = func() {
				if g.n>>20%4 == 0 { // every 4 MiB
					peak = max(peak, liveHeap())
				}
			}
			tr, err := Load(context.Background(), g, LoadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			peak = max(peak, liveHeap())
			s := tr.Summary(Options{})
			if s.Spans != g.spans || s.Instants != g.instants || len(s.Workers) != 8 || s.Workers[0].Worker != 1000 {
				t.Fatalf("summary: %d spans, %d instants, %d workers; the generator wrote %d, %d, 8",
					s.Spans, s.Instants, len(s.Workers), g.spans, g.instants)
			}
			growth := peak - min(peak, base)
			t.Logf("%d MiB trace, %d spans, %d instants: live heap grew %.1f MiB (%.1f bytes per span)",
				g.n>>20, g.spans, g.instants, float64(growth)/(1<<20), float64(growth)/float64(max(g.spans, 1)))
			if limit := tc.maxGrowth(g); growth > limit {
				t.Errorf("heap grew %d bytes reading a %d-byte trace; want at most %d", growth, g.n, limit)
			}
			runtime.KeepAlive(tr)
		})
	}
}

// BenchmarkLoad reads and summarizes a 32 MiB runtime-like trace (one span
// in four events); MB/s is the reading speed, B/span the memory kept.
func BenchmarkLoad(b *testing.B) {
	g := &traceGen{size: 32 << 20, spanEvery: 4, workers: 8}
	data, _ := io.ReadAll(g)
	b.SetBytes(int64(len(data)))
	var kept uint64
	for b.Loop() {
		base := liveHeap()
		tr, err := Load(context.Background(), bytes.NewReader(data), LoadOptions{})
		if err != nil {
			b.Fatal(err)
		}
		kept = liveHeap() - min(liveHeap(), base)
		tr.Summary(Options{})
		runtime.KeepAlive(tr)
	}
	b.ReportMetric(float64(kept)/float64(g.spans), "B/span")
}

// Load stops when its context is done.
func TestLoadCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Load(ctx, &traceGen{size: 4 << 20, spanEvery: 2, workers: 2}, LoadOptions{})
	if err != context.Canceled {
		t.Fatalf("Load(canceled) = %v", err)
	}
}

// Load and Analyze (the in-memory form) agree.
func TestLoadMatchesAnalyze(t *testing.T) {
	f := handTrace()
	var buf bytes.Buffer
	if err := tracefmt.Write(&buf, f); err != nil {
		t.Fatal(err)
	}
	tr, err := Load(context.Background(), &buf, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	a, b := fmt.Sprintf("%+v", Analyze(f, Options{})), fmt.Sprintf("%+v", tr.Summary(Options{}))
	if a != b {
		t.Errorf("Load: %s\nAnalyze: %s", b, a)
	}
}

// A path longer than MaxPathLinks lists its first quarter and last three
// quarters; its totals and the text count every link.
func TestPathLongerThanMaxPathLinks(t *testing.T) {
	const n = MaxPathLinks + 2000
	f := &tracefmt.File{Workers: 1}
	for i := range n { // one worker, one task after another: a chain of n
		f.Spans = append(f.Spans, tracefmt.Span{Worker: 0, Name: fmt.Sprintf("T%d", i), Start: time.Duration(10 * i), Dur: 8})
	}
	s := Analyze(f, Options{})
	p := s.Path
	if len(p.Links) != MaxPathLinks || p.Omitted != 2000 || p.Links[0].Task.Name != "T0" ||
		p.Links[MaxPathLinks/4-1].Task.Name != fmt.Sprintf("T%d", MaxPathLinks/4-1) ||
		p.Links[MaxPathLinks/4].Task.Name != fmt.Sprintf("T%d", MaxPathLinks/4+2000) || p.Links[len(p.Links)-1].Task.Name != fmt.Sprintf("T%d", n-1) {
		t.Fatalf("%d links, %d omitted, first %s, around the gap %s %s, last %s", len(p.Links), p.Omitted, p.Links[0].Task.Name,
			p.Links[MaxPathLinks/4-1].Task.Name, p.Links[MaxPathLinks/4].Task.Name, p.Links[len(p.Links)-1].Task.Name)
	}
	if p.Running != n*8 || p.Idle != (n-1)*2 || p.Length() != time.Duration(10*(n-1)+8) {
		t.Errorf("running %v idle %v length %v", p.Running, p.Idle, p.Length())
	}
	var text bytes.Buffer
	s.WriteText(&text)
	if !strings.Contains(text.String(), fmt.Sprintf("%d tasks, 0 steals", n)) || !strings.Contains(text.String(), fmt.Sprintf("… %d more", n-24)) {
		t.Errorf("text:\n%s", text.String())
	}
	var svg bytes.Buffer
	if err := WriteSVG(&svg, f, s, SVGOptions{}); err != nil {
		t.Fatal(err)
	}
	wellFormed(t, svg.Bytes())
}
