package worksteal

import (
	"fmt"
	"math"
	"strings"
	"sync/atomic"
	"time"
)

// profile is one Profile's shared accumulators.
type profile struct {
	work      atomic.Int64 // ns of strands published by workers
	forks     atomic.Int64
	steals    atomic.Int64
	stealCost atomic.Int64 // ns summed over stolen profiled forks

	spanOut, bspanOut time.Duration // the root strand's final path lengths
}

// profState is a worker's position in a profiled computation: the span and
// burdened span at the start of the current strand, and when it started.
type profState struct {
	shared      *profile
	span, bspan time.Duration
	start       time.Duration
	work        time.Duration // not yet added to shared.work
}

// cut ends the current strand now: its time joins the work and both spans.
func (ps *profState) cut() (span, bspan time.Duration) {
	t := now()
	d := t - ps.start
	ps.work += d
	ps.span += d
	ps.bspan += d
	ps.start = t
	return ps.span, ps.bspan
}

// fork records a fork in frame slots; the first half continues the strand
// chain from the same point.
func (ps *profState) fork() (span, bspan time.Duration) {
	ps.shared.forks.Add(1)
	return ps.cut()
}

// resume starts a new strand at the given path lengths (the second half of
// a fork, or the continuation after a join).
func (ps *profState) resume(span, bspan time.Duration) {
	ps.span, ps.bspan, ps.start = span, bspan, now()
}

// flush publishes the worker's work.
func (ps *profState) flush() {
	ps.shared.work.Add(int64(ps.work))
	ps.work = 0
}

// profFrame is the profiling part of a Join frame or a scope task; prof is
// nil unless the fork happened inside a profiled computation.
type profFrame struct {
	prof   *profile
	s0, b0 time.Duration // span and burdened span at the fork
	sB, bB time.Duration // the forked half's, when it ran as a job
	setAt  time.Duration // when it finished (for the burden)
}

// fork records a fork of a task spawned from w inside a profiled
// computation (nothing when w is not profiling).
func (pf *profFrame) fork(w *Worker) {
	if w.prof != nil {
		pf.prof = w.prof.shared
		pf.s0, pf.b0 = w.prof.fork()
	}
}

// runStolen runs a profiled stolen half on w, measuring it as a strand
// chain that starts at the fork's path lengths.
func (pf *profFrame) runStolen(w *Worker, run func()) {
	saved := w.prof
	ps := &profState{shared: pf.prof}
	ps.resume(pf.s0, pf.b0)
	w.setProf(ps)
	defer func() {
		pf.sB, pf.bB = ps.cut()
		ps.flush()
		pf.setAt = now()
		w.setProf(saved)
		if saved != nil {
			saved.start = now() // the helper's own strand excludes this
		}
	}()
	run()
}

// joinStolen continues after joining a half that a thief ran: the span
// from the longer path, the burdened span charged with the steal's cost —
// how long after both halves were done the joiner could go on
// (waitFrom: when the joiner finished its own half).
func (ps *profState) joinStolen(pf *profFrame, spanA, bspanA, waitFrom time.Duration) {
	burden := max(0, now()-max(pf.setAt, waitFrom))
	ps.shared.steals.Add(1)
	ps.shared.stealCost.Add(int64(burden))
	ps.resume(max(spanA, pf.sB), max(bspanA, pf.bB+burden))
}

// WorkSpan is the work/span profile of one computation (see Profile).
type WorkSpan struct {
	Work time.Duration // T1: the sum of every strand's time
	Span time.Duration // T∞: the longest path through forks and joins
	// BurdenedSpan is T∞ with the measured cost of each steal on the path:
	// how long after both halves of a stolen fork were done the joiner went
	// on. That is the steal's overhead under policy.StealOne. Under
	// StealHalf (the default) a joiner that waits helps with the batch a
	// thief took and may come back long after its half was done, and the
	// burden then counts that wait too: profile with StealOne for a bound
	// (worksteal trace profile and sim --predict do).
	BurdenedSpan time.Duration
	Forks        int64         // forks (Joins, spawns) in the computation
	Steals       int64         // forks whose second half a thief ran
	StealCost    time.Duration // mean measured cost of one steal (the burden)
	Workers      int           // workers of the pool it ran on
	Elapsed      time.Duration // wall time of the profiled run
}

// Parallelism is T1/T∞: the most speedup any number of workers can give.
func (ws WorkSpan) Parallelism() float64 {
	if ws.Span <= 0 {
		return 0
	}
	return float64(ws.Work) / float64(ws.Span)
}

// SpeedupRange returns the speedup on p workers that the profile predicts:
// at most min(p, T1/T∞) (the work and span laws), and at least
// T1 / (T1/p + burdened T∞) (a greedy scheduler's bound with the measured
// steal overhead on the critical path).
func (ws WorkSpan) SpeedupRange(p int) (lo, hi float64) {
	if ws.Work <= 0 || p <= 0 {
		return 0, 0
	}
	t1 := float64(ws.Work)
	hi = math.Min(float64(p), ws.Parallelism())
	lo = t1 / (t1/float64(p) + float64(max(ws.BurdenedSpan, ws.Span)))
	return lo, hi
}

// String prints the profile and the predicted speedup for P = 1, 2, 4 …
// 1,024, like Cilkscale's report.
func (ws WorkSpan) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "work T1 %v, span T∞ %v, burdened span %v, parallelism %.1f\n",
		ws.Work, ws.Span, ws.BurdenedSpan, ws.Parallelism())
	fmt.Fprintf(&b, "forks %d, steals %d, mean steal cost %v; profiled run %v on %d workers\n",
		ws.Forks, ws.Steals, ws.StealCost, ws.Elapsed, ws.Workers)
	b.WriteString("workers  speedup (greedy bound .. span law)\n")
	for p := 1; p <= 1024; p *= 2 {
		lo, hi := ws.SpeedupRange(p)
		fmt.Fprintf(&b, "%7d  %.2f .. %.2f\n", p, lo, hi)
	}
	return b.String()
}

// Profile runs f on a worker of p, like Run, and measures its work and span
// (see "Work and span" in the package doc). Joins, JoinFuncs, scopes and
// the loops of package par inside f are all measured; work submitted to the
// pool by other means is not.
func Profile[T any](p *Pool, f func(w *Worker) T) (T, WorkSpan, error) {
	pr := &profile{}
	t0 := time.Now()
	v, err := Run(p, func(w *Worker) T {
		saved := w.prof
		ps := &profState{shared: pr}
		ps.resume(0, 0)
		w.setProf(ps)
		defer func() { w.setProf(saved) }()
		r := f(w)
		ps.cut()
		ps.flush()
		pr.spanOut, pr.bspanOut = ps.span, ps.bspan
		return r
	})
	ws := WorkSpan{
		Work:         time.Duration(pr.work.Load()),
		Span:         pr.spanOut,
		BurdenedSpan: pr.bspanOut,
		Forks:        pr.forks.Load(),
		Steals:       pr.steals.Load(),
		Workers:      p.Workers(),
		Elapsed:      time.Since(t0),
	}
	if ws.Steals > 0 {
		ws.StealCost = time.Duration(pr.stealCost.Load() / ws.Steals)
	}
	return v, ws, err
}
