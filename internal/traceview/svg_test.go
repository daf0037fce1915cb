package traceview

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/worksteal/worksteal/internal/tracefmt"
)

// wellFormed parses an SVG document and counts its elements by name.
func wellFormed(t *testing.T, b []byte) map[string]int {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(b))
	n := map[string]int{}
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return n
		}
		if err != nil {
			t.Fatalf("SVG is not well-formed XML: %v", err)
		}
		if se, ok := tok.(xml.StartElement); ok {
			n[se.Name.Local]++
		}
	}
}

func TestWriteSVG(t *testing.T) {
	f := handTrace()
	f.Spans[0].Name = `A <&"x">` // escaped in titles
	s := Analyze(f, Options{})
	var buf bytes.Buffer
	if err := WriteSVG(&buf, f, s, SVGOptions{Width: 800}); err != nil {
		t.Fatal(err)
	}
	n := wellFormed(t, buf.Bytes())
	if n["svg"] != 1 || n["polyline"] != 1 {
		t.Errorf("elements %v; want one svg and one critical-path polyline", n)
	}
	out := buf.String()
	for _, want := range []string{`width="800"`, "worker 0", "worker 1", "hand: 2 workers", "steal from 0", "parked 20.0µs", "critical path"} {
		if !strings.Contains(out, want) {
			t.Errorf("SVG lacks %q", want)
		}
	}
	buf.Reset()
	if err := WriteSVG(&buf, f, s, SVGOptions{NoPath: true, Title: "t"}); err != nil {
		t.Fatal(err)
	}
	if n := wellFormed(t, buf.Bytes()); n["polyline"] != 0 {
		t.Errorf("NoPath drew the path")
	}
}

// Bars closer than half a pixel merge: a trace of 100,000 tiny tasks gives
// a picture of bounded size.
func TestWriteSVGMergesTinyBars(t *testing.T) {
	f := &tracefmt.File{Workers: 2}
	for i := 0; i < 50_000; i++ {
		for w := 0; w < 2; w++ {
			f.Spans = append(f.Spans, tracefmt.Span{Worker: w, Name: fmt.Sprint("T", i), Start: time.Duration(i) * 10 * time.Microsecond, Dur: 9 * time.Microsecond})
		}
		if i%7 == 0 {
			f.Instants = append(f.Instants, tracefmt.Instant{Worker: 1, Name: "steal from 0", Cat: "steal", At: time.Duration(i) * 10 * time.Microsecond})
		}
	}
	s := Analyze(f, Options{})
	var buf bytes.Buffer
	if err := WriteSVG(&buf, f, s, SVGOptions{Width: 1000}); err != nil {
		t.Fatal(err)
	}
	n := wellFormed(t, buf.Bytes())
	if buf.Len() > 400_000 || n["rect"] > 3000 || n["path"] > 1100 {
		t.Errorf("SVG of %d bytes, %d rects, %d paths; want bounded by the width", buf.Len(), n["rect"], n["path"])
	}
}
