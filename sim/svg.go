package sim

import (
	"bufio"
	"fmt"
	"html"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/worksteal/worksteal/internal/plot"
)

// Pictures: a Gantt chart of one run and a line plot of a sweep, as
// self-contained SVG (no scripts, no external fonts), deterministic to the
// byte.

const (
	svgFont  = `font-family="sans-serif" font-size="11"`
	svgTitle = `font-family="sans-serif" font-size="14"`
	svgSmall = `font-family="sans-serif" font-size="9"`
	ganttW   = 1100.0 // plot area width
	ganttL   = 80.0   // left margin (lane labels)
	ganttTop = 40.0
)

// writeGantt draws the recorded schedule as an SVG Gantt chart: one lane per
// worker, a bar per task piece (colored by task; continuations darker,
// aborted pieces red) and a black tick per steal on the thief's lane. Pieces
// too short to see are merged into grey runs so that a million-task schedule
// stays drawable.
func (r *Result) writeGantt(w io.Writer) error {
	s := r.schedule
	if s == nil {
		return errNoSchedule
	}
	var end time.Duration
	for _, sp := range s.Spans {
		end = max(end, sp.End)
	}
	if end == 0 {
		end = 1
	}
	lane := math.Max(2, math.Min(20, 640/float64(max(1, s.Workers))))
	h := ganttTop + lane*float64(s.Workers) + 50
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d">`+"\n",
		int(ganttL+ganttW+20), int(h), int(ganttL+ganttW+20), int(h))
	fmt.Fprintf(bw, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	title := r.Report.scenarioName
	if title == "" {
		title = "schedule"
	}
	fmt.Fprintf(bw, `<text x="%g" y="20" %s>%s: %d workers, makespan %s, %d steals</text>`+"\n",
		ganttL, svgTitle, html.EscapeString(title), s.Workers, fmtSec(r.Report.Totals.Makespan), len(s.Steals))
	x := func(t time.Duration) float64 { return ganttL + ganttW*float64(t)/float64(end) }
	y := func(wk int) float64 { return ganttTop + lane*float64(wk) }
	// lanes
	for i := 0; i < s.Workers; i++ {
		if i%2 == 1 {
			fmt.Fprintf(bw, `<rect x="%g" y="%g" width="%g" height="%g" fill="#f4f4f4"/>`+"\n", ganttL, y(i), ganttW, lane)
		}
		if lane >= 10 {
			fmt.Fprintf(bw, `<text x="%g" y="%g" %s text-anchor="end">worker %d</text>`+"\n", ganttL-6, y(i)+lane*0.7, svgFont, i)
		}
	}
	// bars, per worker in time order, merging invisible slivers
	byWorker := make([][]int, s.Workers)
	for i, sp := range s.Spans {
		if sp.Worker >= 0 && sp.Worker < s.Workers {
			byWorker[sp.Worker] = append(byWorker[sp.Worker], i)
		}
	}
	pad := math.Min(1, lane*0.1)
	for wk, idx := range byWorker {
		mx0, mx1 := -1.0, -1.0
		flush := func() {
			if mx0 >= 0 {
				fmt.Fprintf(bw, `<rect x="%.2f" y="%.2f" width="%.2f" height="%.2f" fill="#999"/>`+"\n", mx0, y(wk)+pad, math.Max(mx1-mx0, 0.3), lane-2*pad)
				mx0 = -1
			}
		}
		for _, i := range idx {
			sp := &s.Spans[i]
			x0, x1 := x(sp.Start), x(sp.End)
			if x1-x0 < 1.5 && sp.Kind != spanAborted {
				if mx0 >= 0 && x0-mx1 < 0.5 {
					mx1 = x1
					continue
				}
				flush()
				mx0, mx1 = x0, x1
				continue
			}
			flush()
			fill := fmt.Sprintf("hsl(%d,65%%,62%%)", (sp.Task*47)%360)
			switch sp.Kind {
			case spanContinuation:
				fill = fmt.Sprintf("hsl(%d,65%%,40%%)", (sp.Task*47)%360)
			case spanAborted:
				fill = "#d62728"
			}
			fmt.Fprintf(bw, `<rect x="%.2f" y="%.2f" width="%.2f" height="%.2f" fill="%s" stroke="white" stroke-width="0.5"><title>T%d %s on worker %d: %s..%s</title></rect>`+"\n",
				x0, y(wk)+pad, math.Max(x1-x0, 0.3), lane-2*pad, fill, sp.Task, sp.Kind, wk, fmtTime(sp.Start), fmtTime(sp.End))
			if lane >= 12 && x1-x0 > 28 {
				fmt.Fprintf(bw, `<text x="%.2f" y="%.2f" %s>T%d</text>`+"\n", x0+3, y(wk)+lane*0.68, svgSmall, sp.Task)
			}
		}
		flush()
	}
	// steal marks
	for _, st := range s.Steals {
		if st.Thief < 0 || st.Thief >= s.Workers {
			continue
		}
		sx := x(st.At)
		fmt.Fprintf(bw, `<path d="M%.2f %.2f l-3 -5 h6 z" fill="black"><title>worker %d stole T%d from worker %d at %s</title></path>`+"\n",
			sx, y(st.Thief)+lane*0.5, st.Thief, st.Task, st.Victim, fmtTime(st.At))
	}
	// time axis
	base := ganttTop + lane*float64(s.Workers)
	fmt.Fprintf(bw, `<line x1="%g" y1="%g" x2="%g" y2="%g" stroke="black"/>`+"\n", ganttL, base, ganttL+ganttW, base)
	for _, t := range plot.NiceTicks(0, end.Seconds(), 10) {
		tx := ganttL + ganttW*t/end.Seconds()
		fmt.Fprintf(bw, `<line x1="%.2f" y1="%g" x2="%.2f" y2="%g" stroke="black"/>`+"\n", tx, base, tx, base+4)
		fmt.Fprintf(bw, `<text x="%.2f" y="%g" %s text-anchor="middle">%s</text>`+"\n", tx, base+16, svgFont, fmtSec(t))
	}
	fmt.Fprintf(bw, `<text x="%g" y="%g" %s text-anchor="middle">virtual time (▼ = steal)</text>`+"\n", ganttL+ganttW/2, base+34, svgFont)
	bw.WriteString("</svg>\n")
	return bw.Flush()
}

// WriteSVG draws the sweep as a line plot: speedup (left axis) and
// efficiency and steal rate (right axis, as fractions) against the swept
// parameter. Numeric parameters are spaced by value, others evenly.
func (sr *sweepResult) WriteSVG(w io.Writer) error {
	const W, H, L, R, T, B = 760.0, 440.0, 70.0, 70.0, 50.0, 60.0
	pw, ph := W-L-R, H-T-B
	n := len(sr.Reports)
	xs := make([]float64, n)
	numeric := true
	for i, v := range sr.Values {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			numeric = false
			break
		}
		xs[i] = f
	}
	xmin, xmax := 0.0, float64(max(1, n-1))
	if numeric && n > 0 {
		xmin, xmax = xs[0], xs[0]
		for _, x := range xs {
			xmin, xmax = math.Min(xmin, x), math.Max(xmax, x)
		}
		if xmax == xmin {
			xmax = xmin + 1
		}
	} else {
		for i := range xs {
			xs[i] = float64(i)
		}
		if n == 1 {
			xmin, xmax = -1, 1
		}
	}
	smax, rmax := 1.0, 1.0
	for _, r := range sr.Reports {
		smax = math.Max(smax, r.Totals.Speedup)
		rmax = math.Max(rmax, math.Max(r.Totals.Efficiency, r.Totals.StealRate))
	}
	lt := plot.NiceTicks(0, smax, 5)
	smax = math.Max(smax, lt[len(lt)-1])
	rt := plot.NiceTicks(0, rmax, 5)
	rmax = math.Max(rmax, rt[len(rt)-1])
	px := func(x float64) float64 { return L + pw*(x-xmin)/(xmax-xmin) }
	pyL := func(v float64) float64 { return T + ph*(1-v/smax) }
	pyR := func(v float64) float64 { return T + ph*(1-v/rmax) }
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, `<svg xmlns="http://www.w3.org/2000/svg" width="%g" height="%g" viewBox="0 0 %g %g">`+"\n", W, H, W, H)
	bw.WriteString(`<rect width="100%" height="100%" fill="white"/>` + "\n")
	title := "sweep of " + sr.Param
	if sr.Name != "" {
		title = sr.Name + ": " + title
	}
	fmt.Fprintf(bw, `<text x="%g" y="24" %s>%s</text>`+"\n", L, svgTitle, html.EscapeString(title))
	fmt.Fprintf(bw, `<rect x="%g" y="%g" width="%g" height="%g" fill="none" stroke="black"/>`+"\n", L, T, pw, ph)
	for _, t := range lt {
		fmt.Fprintf(bw, `<line x1="%g" y1="%.2f" x2="%g" y2="%.2f" stroke="#ddd"/>`+"\n", L, pyL(t), L+pw, pyL(t))
		fmt.Fprintf(bw, `<text x="%g" y="%.2f" %s text-anchor="end">%s</text>`+"\n", L-6, pyL(t)+4, svgFont, strconv.FormatFloat(t, 'g', 4, 64))
	}
	for _, t := range rt {
		fmt.Fprintf(bw, `<text x="%g" y="%.2f" %s>%s</text>`+"\n", L+pw+6, pyR(t)+4, svgFont, strconv.FormatFloat(t, 'g', 4, 64))
	}
	for i, v := range sr.Values {
		fmt.Fprintf(bw, `<text x="%.2f" y="%g" %s text-anchor="middle">%s</text>`+"\n", px(xs[i]), T+ph+16, svgFont, html.EscapeString(v))
	}
	fmt.Fprintf(bw, `<text x="%g" y="%g" %s text-anchor="middle">%s</text>`+"\n", L+pw/2, T+ph+36, svgFont, html.EscapeString(sr.Param))
	fmt.Fprintf(bw, `<text x="18" y="%g" %s text-anchor="middle" transform="rotate(-90 18 %g)">speedup</text>`+"\n", T+ph/2, svgFont, T+ph/2)
	fmt.Fprintf(bw, `<text x="%g" y="%g" %s text-anchor="middle" transform="rotate(90 %g %g)">efficiency, steal rate</text>`+"\n", W-14, T+ph/2, svgFont, W-14, T+ph/2)
	series := []struct {
		name, color string
		get         func(*Report) float64
		y           func(float64) float64
	}{
		{"speedup", "#1f77b4", func(r *Report) float64 { return r.Totals.Speedup }, pyL},
		{"efficiency", "#2ca02c", func(r *Report) float64 { return r.Totals.Efficiency }, pyR},
		{"steal rate", "#d62728", func(r *Report) float64 { return r.Totals.StealRate }, pyR},
	}
	for k, s := range series {
		var pts []string
		for i := range sr.Reports {
			pts = append(pts, fmt.Sprintf("%.2f,%.2f", px(xs[i]), s.y(s.get(&sr.Reports[i]))))
		}
		fmt.Fprintf(bw, `<polyline points="%s" fill="none" stroke="%s" stroke-width="2"/>`+"\n", strings.Join(pts, " "), s.color)
		for _, p := range pts {
			cx, cy, _ := strings.Cut(p, ",")
			fmt.Fprintf(bw, `<circle cx="%s" cy="%s" r="3" fill="%s"/>`+"\n", cx, cy, s.color)
		}
		lx := L + 10 + float64(k)*120
		fmt.Fprintf(bw, `<line x1="%g" y1="%g" x2="%g" y2="%g" stroke="%s" stroke-width="2"/>`+"\n", lx, H-12, lx+20, H-12, s.color)
		fmt.Fprintf(bw, `<text x="%g" y="%g" %s>%s</text>`+"\n", lx+25, H-8, svgFont, s.name)
	}
	bw.WriteString("</svg>\n")
	return bw.Flush()
}
