package traceview_test

import (
	"bytes"
	"context"
	"fmt"
	"log"
	"strings"
	"time"

	"github.com/worksteal/worksteal/internal/tracefmt"
	"github.com/worksteal/worksteal/internal/traceview"
)

// Summarize a trace: here a hand-made one of two workers, where worker 1
// steals from worker 0 and the stolen task finishes last.
func ExampleAnalyze() {
	us := time.Microsecond
	f := &tracefmt.File{
		Workers: 2,
		Spans: []tracefmt.Span{
			{Worker: 0, Name: "root", Start: 0, Dur: 100 * us},
			{Worker: 1, Name: "stolen", Start: 22 * us, Dur: 98 * us},
		},
		Instants: []tracefmt.Instant{{Worker: 1, Name: "steal from 0", Cat: "steal", At: 20 * us}},
	}
	s := traceview.Analyze(f, traceview.Options{})
	for _, w := range s.Workers {
		fmt.Printf("worker %d: busy %v of %v, %d steals, longest idle gap %v\n", w.Worker, w.Busy, s.Extent(), w.Steals, w.LongestGap)
	}
	for _, l := range s.Path.Links {
		fmt.Printf("path: %s on worker %d via %s\n", l.Task.Name, l.Task.Worker, l.Via)
	}
	var svg bytes.Buffer
	if err := traceview.WriteSVG(&svg, f, s, traceview.SVGOptions{}); err != nil {
		log.Fatal(err)
	}
	fmt.Println(bytes.HasPrefix(svg.Bytes(), []byte("<svg")))
	// Output:
	// worker 0: busy 100µs of 120µs, 0 steals, longest idle gap 20µs
	// worker 1: busy 98µs of 120µs, 1 steals, longest idle gap 22µs
	// path: root on worker 0 via first
	// path: stolen on worker 1 via steal
	// true
}

// Load streams a trace file, here the JSON Array Format with an OS thread
// id, and summarizes it.
func ExampleLoad() {
	text := `[{"name":"a","ph":"X","ts":0,"dur":10,"tid":999999999},{"name":"b","ph":"X","ts":2,"dur":4,"tid":999999999}]`
	tr, err := traceview.Load(context.Background(), strings.NewReader(text), traceview.LoadOptions{})
	if err != nil {
		log.Fatal(err)
	}
	s := tr.Summary(traceview.Options{})
	fmt.Println(len(s.Workers), s.Workers[0].Worker, s.Workers[0].Busy, s.Longest[0].Name, s.Longest[0].Self)
	// Output: 1 999999999 10µs a 6µs
}
