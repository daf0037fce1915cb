package traceview

import (
	"fmt"
	"html"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/worksteal/worksteal/internal/plot"
	"github.com/worksteal/worksteal/internal/tracefmt"
)

// SVGOptions tune [WriteSVG].
type SVGOptions struct {
	Width int    // picture width in pixels (0: 1200)
	Title string // heading (default: the process name, workers and extent)
	// NoPath leaves out the critical path.
	NoPath bool
}

// Colours of the timeline.
const (
	colIdle   = "#f4d3d0" // lane background: no task running
	colSteal  = "#d62728"
	colFailed = "#9a9a9a"
	colPark   = "#1f3b73"
	colPath   = "#111111"
)

// depthColours colour task bars by nesting depth.
var depthColours = []string{"#4e79a7", "#59a14f", "#f28e2b", "#b07aa1", "#76b7b2"}

// WriteSVG draws the trace as a timeline: one lane per worker, task bars
// (nested tasks inset beneath their parent and coloured by depth), idle
// time shaded, steals as red marks above the lane, failed steals as grey
// ticks beneath it, parked stretches as a dark line along its foot, and the
// critical path of s (see [Path]) as a black line through the lanes.
// Narrow bars closer than half a pixel are merged, so a trace of any size
// gives a picture of bounded size.
func WriteSVG(w io.Writer, f *tracefmt.File, s *Summary, o SVGOptions) error {
	return FromFile(f).WriteSVG(w, s, o)
}

// WriteSVG draws the trace as [WriteSVG] does; s is its summary. The
// failed steals, parks and wake-ups are drawn when the trace was loaded
// with LoadOptions.Timeline.
func (t *Trace) WriteSVG(w io.Writer, s *Summary, o SVGOptions) error {
	if o.Width <= 0 {
		o.Width = 1200
	}
	lanes := t.lanes
	const (
		left, right = 74.0, 16.0
		top         = 34.0
		laneH       = 28.0
		laneGap     = 10.0
	)
	width := float64(o.Width)
	plotW := width - left - right
	height := top + float64(len(lanes))*(laneH+laneGap) + 58
	t0, t1 := s.Start, s.End
	if t1 <= t0 {
		t1 = t0 + 1
	}
	x := func(t time.Duration) float64 { return left + plotW*float64(t-t0)/float64(t1-t0) }
	laneTop := func(i int) float64 { return top + float64(i)*(laneH+laneGap) }

	bw := &errWriter{w: w}
	bw.printf(`<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%.0f" viewBox="0 0 %d %.0f" font-family="sans-serif" font-size="11">`+"\n",
		o.Width, height, o.Width, height)
	bw.printf(`<rect width="100%%" height="100%%" fill="#ffffff"/>` + "\n")
	title := o.Title
	if title == "" {
		name := s.Process
		if name == "" {
			name = "trace"
		}
		title = fmt.Sprintf("%s: %d workers, %s, utilization %.1f%%", name, len(lanes), fmtDur(s.Extent()), 100*s.Utilization())
	}
	bw.printf(`<text x="%.1f" y="18" font-size="13" font-weight="bold">%s</text>`+"\n", left, html.EscapeString(title))

	for li := range lanes {
		l := &lanes[li]
		y := laneTop(li)
		bw.printf(`<text x="%.1f" y="%.1f" text-anchor="end">worker %d</text>`+"\n", left-8, y+laneH/2+4, l.tid)
		bw.printf(`<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"><title>idle</title></rect>`+"\n",
			left, y, plotW, laneH, colIdle)
		writeBars(bw, l, &t.names, x, y, laneH)
		writeMarks(bw, l, x, y, laneH, t1)
	}
	if !o.NoPath && len(s.Path.Links) > 0 {
		var pl polyline
		mid := func(tid int) float64 { return laneTop(t.byTid[tid]) + laneH/2 }
		if s.Path.Omitted == 0 {
			for _, lk := range s.Path.Links {
				y := mid(lk.Task.Worker)
				pl.add(x(lk.Task.Start), y)
				pl.add(x(lk.To), y)
			}
		} else { // Links leaves out the middle: draw every step (last first)
			var rev polyline
			walkPath(t, func(st pathStep) {
				y := laneTop(int(st.at.lane)) + laneH/2
				rev.add(x(st.to), y)
				rev.add(x(lanes[st.at.lane].spans.at(int(st.at.i)).start), y)
			})
			for k := len(rev.pts) - 1; k >= 0; k-- {
				pl.add(rev.pts[k][0], rev.pts[k][1])
			}
		}
		bw.printf(`<polyline points="%s" fill="none" stroke="%s" stroke-width="1.6" stroke-linejoin="round" opacity="0.85"><title>critical path as the trace shows it: %d tasks, %d steals</title></polyline>`+"\n",
			pl.String(), colPath, len(s.Path.Links)+s.Path.Omitted, s.Path.Steals)
	}

	// Time axis, relative to the trace's start.
	axisY := laneTop(len(lanes)) - laneGap + 6
	bw.printf(`<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#444"/>`+"\n", left, axisY, left+plotW, axisY)
	for _, tk := range plot.NiceTicks(0, float64(t1-t0), 8) {
		xt := left + plotW*tk/float64(t1-t0)
		bw.printf(`<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#444"/><text x="%.1f" y="%.1f" text-anchor="middle">%s</text>`+"\n",
			xt, axisY, xt, axisY+4, xt, axisY+16, fmtDur(time.Duration(tk)))
	}

	// Legend.
	ly := axisY + 36
	lx := left
	item := func(draw, label string) {
		bw.printf(draw+"\n", lx, ly-9)
		bw.printf(`<text x="%.1f" y="%.1f">%s</text>`+"\n", lx+18, ly, label)
		lx += 18 + 7*float64(len(label)) + 18
	}
	item(`<rect x="%.1f" y="%.1f" width="14" height="10" fill="`+depthColours[0]+`"/>`, "task")
	item(`<rect x="%.1f" y="%.1f" width="14" height="10" fill="`+depthColours[1]+`"/>`, "nested task")
	item(`<rect x="%.1f" y="%.1f" width="14" height="10" fill="`+colIdle+`"/>`, "idle")
	item(`<path transform="translate(%.1f,%.1f)" d="M7,10 l-4,-7 h8 z" fill="`+colSteal+`"/>`, "steal")
	item(`<rect x="%.1f" y="%.1f" width="2" height="10" fill="`+colFailed+`"/>`, "failed steal")
	item(`<rect x="%.1f" y="%.1f" width="14" height="3" fill="`+colPark+`"/>`, "parked")
	if !o.NoPath {
		item(`<path transform="translate(%.1f,%.1f)" d="M0,5 h14" stroke="`+colPath+`" stroke-width="1.6"/>`, "critical path")
	}
	bw.printf("</svg>\n")
	return bw.err
}

// polyline collects points rounded to a tenth of a pixel, dropping
// repeats and extending a horizontal run instead of adding to it, so a
// path of many links on few lanes stays small.
type polyline struct{ pts [][2]float64 }

func (p *polyline) add(x, y float64) {
	x, y = math.Round(x*10)/10, math.Round(y*10)/10
	n := len(p.pts)
	switch {
	case n > 0 && p.pts[n-1] == [2]float64{x, y}:
	case n > 1 && p.pts[n-1][1] == y && p.pts[n-2][1] == y:
		p.pts[n-1][0] = x
	default:
		p.pts = append(p.pts, [2]float64{x, y})
	}
}

func (p *polyline) String() string {
	parts := make([]string, len(p.pts))
	for i, pt := range p.pts {
		parts[i] = strconv.FormatFloat(pt[0], 'f', -1, 64) + "," + strconv.FormatFloat(pt[1], 'f', -1, 64)
	}
	return strings.Join(parts, " ")
}

// writeBars draws a lane's task bars, merging narrow ones closer than half
// a pixel at each depth (so at most about one bar per two pixels).
func writeBars(bw *errWriter, l *lane, names *nameTable, x func(time.Duration) float64, y, h float64) {
	const maxDepth = 4
	type run struct {
		x0, x1 float64
		n      int
		first  int // index of the run's first span
	}
	open := make([]*run, maxDepth+1)
	flush := func(d int) {
		r := open[d]
		if r == nil {
			return
		}
		inset := 3.0 * float64(d)
		bh := math.Max(h-2*inset, 4)
		wd := math.Max(r.x1-r.x0, 0.6)
		col := depthColours[d%len(depthColours)]
		edge := "" // a hairline between adjacent tasks wide enough to tell apart
		if wd >= 3 {
			edge = ` stroke="#ffffff" stroke-width="0.6"`
		}
		if r.n == 1 {
			sp := l.spans.at(r.first)
			bw.printf(`<rect x="%.2f" y="%.1f" width="%.2f" height="%.1f" fill="%s"`+edge+`><title>%s on worker %d: %s from %s (self %s)</title></rect>`+"\n",
				r.x0, y+inset, wd, bh, col, html.EscapeString(names.name(sp.name)), l.tid, fmtDur(sp.dur), fmtDur(sp.start), fmtDur(l.self(r.first)))
		} else {
			bw.printf(`<rect x="%.2f" y="%.1f" width="%.2f" height="%.1f" fill="%s"><title>%d tasks</title></rect>`+"\n",
				r.x0, y+inset, wd, bh, col, r.n)
		}
		open[d] = nil
	}
	var stack []int // the spans open at this one's start: its depth
	for i := 0; i < l.spans.len(); i++ {
		sp := l.spans.at(i)
		for len(stack) > 0 && l.spans.at(stack[len(stack)-1]).end() <= sp.start {
			stack = stack[:len(stack)-1]
		}
		d := min(len(stack), maxDepth)
		stack = append(stack, i)
		x0, x1 := x(sp.start), x(sp.end())
		// Merge into the open bar when they (nearly) touch and either is
		// narrower than a couple of pixels: wide tasks stay apart.
		if r := open[d]; r != nil && x0 <= r.x1+0.5 && (r.x1-r.x0 < 2 || x1-x0 < 0.5) {
			r.x1 = math.Max(r.x1, x1)
			r.n++
			continue
		}
		flush(d)
		open[d] = &run{x0: x0, x1: x1, n: 1, first: i}
	}
	for d := range open {
		flush(d)
	}
}

// writeMarks draws a lane's steals, failed steals and parked stretches, at
// most one mark of each kind per pixel column.
func writeMarks(bw *errWriter, l *lane, x func(time.Duration) float64, y, h float64, end time.Duration) {
	lastSteal, lastFail := -1, -1
	parkedAt := time.Duration(-1)
	parked := func(from, to time.Duration) {
		bw.printf(`<rect x="%.2f" y="%.1f" width="%.2f" height="3" fill="%s"><title>parked %s</title></rect>`+"\n",
			x(from), y+h-3, math.Max(x(to)-x(from), 0.6), colPark, fmtDur(to-from))
	}
	for _, in := range l.marks {
		col := int(x(in.at))
		switch in.kind {
		case instSteal:
			if col != lastSteal {
				title := "steal"
				if in.arg >= 0 {
					title = "steal from " + strconv.Itoa(in.arg)
				}
				bw.printf(`<path transform="translate(%.2f,%.1f)" d="M0,0 l-3.5,-6 h7 z" fill="%s"><title>%s</title></path>`+"\n",
					x(in.at), y, colSteal, title)
				lastSteal = col
			}
		case instFailed:
			if col != lastFail {
				bw.printf(`<rect x="%.2f" y="%.1f" width="1" height="4" fill="%s"/>`+"\n", x(in.at), y+h+1, colFailed)
				lastFail = col
			}
		case instPark:
			parkedAt = in.at
		case instWake:
			if parkedAt >= 0 {
				parked(parkedAt, in.at)
				parkedAt = -1
			}
		}
	}
	if parkedAt >= 0 {
		parked(parkedAt, end)
	}
}
