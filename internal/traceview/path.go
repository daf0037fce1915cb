package traceview

import (
	"fmt"
	"sort"
	"text/tabwriter"
	"time"
)

// Path is the critical path as far as a trace shows it.
//
// A trace records which worker ran which task when, and who stole from
// whom, but not which task spawned or joins which; so the path is the
// chain of hand-offs that led to the last task to finish, walked back from
// it. Before a task that a worker began right after a steal comes the task
// its victim was running at the steal (or had last finished: the stolen
// work was pushed by it or by a task it is nested in); before a task
// nested in another (a worker helping while it waits at a join), the task
// it is nested in; before any other task, the task its worker finished
// just before it. It is a chain in time across workers, not a chain of
// data dependences. Time along the chain is running (inside a
// task on the path), steal latency (from a steal to the stolen task's
// start), queued (stolen work waiting in its victim's deque after the
// victim's task ended) or idle (a worker between two of its own tasks).
// The sum is the time from the first task on the path to the end of the
// last; Tail is what the trace goes on for after it (the enclosing joins
// completing).
//
// On a trace of the runtime, tasks are the jobs a worker took from a queue
// or a thief (stolen Join halves, scope and submitted tasks); Joins whose
// second half ran inline are inside their task. So the chain shows how
// steals handed the computation across workers and what the hand-offs
// cost; it is not the work/span analysis of the program (use
// "worksteal trace profile" for T∞).
type Path struct {
	Links        []Link        `json:"links"` // first to last
	Start        time.Duration `json:"start_ns"`
	End          time.Duration `json:"end_ns"`
	Running      time.Duration `json:"running_ns"`
	StealLatency time.Duration `json:"steal_latency_ns"`
	Queued       time.Duration `json:"queued_ns"`
	Idle         time.Duration `json:"idle_ns"`
	Steals       int           `json:"steals"` // links made by a steal
	Tail         time.Duration `json:"tail_ns"`
	// Omitted counts the links left out of Links in the middle of a path
	// longer than MaxPathLinks (the totals above cover them all).
	Omitted int `json:"omitted_links,omitempty"`
}

// MaxPathLinks bounds the links a Path lists: of a longer path it keeps
// the first quarter and the last three quarters of that many. A path
// through millions of tasks would otherwise make the summary as large as
// the trace.
const MaxPathLinks = 10000

// Length is End − Start.
func (p Path) Length() time.Duration { return p.End - p.Start }

// How a link was reached from its predecessor.
const (
	ViaFirst  = "first"  // the start of the path
	ViaSteal  = "steal"  // stolen from the predecessor's worker
	ViaNested = "nested" // nested in the predecessor
	ViaAfter  = "after"  // the predecessor's worker finished it, then began this
)

// Link is one task on the path and the part of it the path runs through.
type Link struct {
	Task   Task          `json:"task"`
	Via    string        `json:"via"`
	Victim int           `json:"victim"`     // for ViaSteal: the worker stolen from; else -1
	Wait   time.Duration `json:"wait_ns"`    // from the predecessor's hand-off to this task's start
	To     time.Duration `json:"handoff_ns"` // when the path leaves this task (its end for the last link)
}

// criticalPath walks the chain back from the innermost span that ends last.
func criticalPath(t *Trace, traceEnd time.Duration) Path {
	// The walk finds the links last to first. Links keeps the earliest
	// MaxPathLinks/4 (the last found: a ring) and the latest rest (the
	// first found), so the memory is bounded whatever the path's length.
	nTail := MaxPathLinks - MaxPathLinks/4
	var tail, ring []pathStep
	n := 0
	var p Path
	found := walkPath(t, func(st pathStep) {
		sp := t.lanes[st.at.lane].spans.at(int(st.at.i))
		p.Running += max(0, st.to-sp.start)
		p.StealLatency += max(0, st.latency)
		p.Queued += max(0, st.queued)
		p.Idle += max(0, st.idle)
		if st.via == ViaSteal {
			p.Steals++
		}
		if n < nTail {
			tail = append(tail, st)
		} else if len(ring) < MaxPathLinks/4 {
			ring = append(ring, st)
		} else {
			ring[(n-nTail)%len(ring)] = st
		}
		n++
	})
	if !found {
		return p
	}
	// Steps in walk order (last link first): the tail, then the ring from
	// its oldest entry.
	steps := tail
	if len(ring) > 0 {
		k := (n - nTail) % len(ring)
		if n-nTail <= len(ring) {
			k = 0
		}
		steps = append(steps, ring[k:]...)
		steps = append(steps, ring[:k]...)
		p.Omitted = n - len(steps)
	}
	for k := len(steps) - 1; k >= 0; k-- {
		st := steps[k]
		task := t.task(int(st.at.lane), int(st.at.i))
		link := Link{Task: task, Via: st.via, Victim: st.victim, To: st.to}
		link.Wait = max(0, st.latency) + max(0, st.queued) + max(0, st.idle)
		p.Links = append(p.Links, link)
	}
	last := steps[0]
	p.Start, p.End = p.Links[0].Task.Start, last.to
	p.Tail = max(0, traceEnd-p.End)
	return p
}

// ref is a span: its lane and index.
type ref struct{ lane, i int32 }

// pathStep is one link of a path being walked.
type pathStep struct {
	at                    ref
	via                   string
	victim                int           // thread id
	to                    time.Duration // hand-off from this span to the next (later) one
	latency, queued, idle time.Duration
}

// walkPath walks the path back from the innermost span that ends last and
// calls visit for each link, last to first. It reports whether the trace
// has a span.
func walkPath(t *Trace, visit func(pathStep)) bool {
	lanes := t.lanes
	cur, found := ref{}, false
	for li32 := range lanes {
		li := int32(li32)
		l := &lanes[li]
		for i := 0; i < l.spans.len(); i++ {
			if l.hasChildren(i) {
				continue
			}
			sp := l.spans.at(i)
			if !found {
				cur, found = ref{li, int32(i)}, true
				continue
			}
			c := lanes[cur.lane].spans.at(int(cur.i))
			if sp.end() > c.end() || sp.end() == c.end() && sp.start > c.start {
				cur = ref{li, int32(i)}
			}
		}
	}
	if !found {
		return false
	}
	// seen marks the spans on the path (one bit each): the walk stops at
	// a span it has been through.
	seen := make([][]uint64, len(lanes))
	mark := func(r ref) bool {
		b := seen[r.lane]
		if b == nil {
			b = make([]uint64, (lanes[r.lane].spans.len()+63)/64)
			seen[r.lane] = b
		}
		was := b[r.i/64]&(1<<(r.i%64)) != 0
		b[r.i/64] |= 1 << (r.i % 64)
		return was
	}
	st := pathStep{at: cur, to: lanes[cur.lane].spans.at(int(cur.i)).end()}
	mark(cur)
	for {
		l := &lanes[st.at.lane]
		ati := int(st.at.i)
		s := *l.spans.at(ati)
		// prevDone: the span of this lane with the latest end at or
		// before s starts (walking up from the span just before s).
		prevDone, boundary := -1, time.Duration(-1<<62)
		if ati > 0 {
			boundary = l.spans.at(ati - 1).start
			for j := ati - 1; j >= 0 && l.spans.at(j).end() <= s.start; j = int(l.parent[j]) {
				prevDone = j
			}
			if prevDone >= 0 {
				boundary = max(boundary, l.spans.at(prevDone).end())
			}
		}
		var next ref
		var to time.Duration
		ok := false
		if at, victim, stolen := lastSteal(l, s.start, boundary); stolen {
			if vi, known := t.byTid[victim]; known && victim >= 0 {
				v := &lanes[vi]
				if j := covering(v, at); j >= 0 {
					next, to, ok = ref{int32(vi), int32(j)}, at, true
					st.latency = s.start - at
				} else if j := doneBy(v, at); j >= 0 {
					next, to, ok = ref{int32(vi), int32(j)}, v.spans.at(j).end(), true
					st.latency, st.queued = s.start-at, at-v.spans.at(j).end()
				}
				if ok {
					st.via, st.victim = ViaSteal, victim
				}
			}
		}
		if !ok && l.parent[ati] >= 0 {
			next, to, ok = ref{st.at.lane, l.parent[ati]}, s.start, true
			st.via, st.victim = ViaNested, -1
		}
		if !ok && prevDone >= 0 {
			next, to, ok = ref{st.at.lane, int32(prevDone)}, l.spans.at(prevDone).end(), true
			st.via, st.victim = ViaAfter, -1
			st.idle = s.start - to
		}
		if !ok || mark(next) {
			st.via, st.victim = ViaFirst, -1
			st.latency, st.queued, st.idle = 0, 0, 0
			visit(st)
			return true
		}
		visit(st)
		st = pathStep{at: next, to: to}
	}
}

// lastSteal returns the latest steal of lane l at or before at and not
// before boundary (the lane's previous span start or end), and its victim.
func lastSteal(l *lane, at, boundary time.Duration) (t time.Duration, victim int, ok bool) {
	k := sort.Search(len(l.steals), func(k int) bool { return l.steals[k].at > at })
	if k--; k >= 0 && l.steals[k].at >= boundary {
		return l.steals[k].at, l.steals[k].arg, true
	}
	return 0, -1, false
}

// covering returns the innermost span of l running at t, or -1.
func covering(l *lane, t time.Duration) int {
	j := sort.Search(l.spans.len(), func(k int) bool { return l.spans.at(k).start > t }) - 1
	for j >= 0 && l.spans.at(j).end() < t {
		j = int(l.parent[j])
	}
	return j
}

// doneBy returns the span of l with the latest end at or before t, or -1.
func doneBy(l *lane, t time.Duration) int {
	j := sort.Search(l.spans.len(), func(k int) bool { return l.spans.at(k).start > t }) - 1
	best := -1
	for ; j >= 0 && l.spans.at(j).end() <= t; j = int(l.parent[j]) {
		best = j
	}
	return best
}

// maxPathLines bounds the links WriteText lists (the first and the last).
const maxPathLines = 24

// write prints the path.
func (p *Path) write(bw *errWriter) {
	if len(p.Links) == 0 {
		bw.printf("\ncritical path: the trace has no tasks\n")
		return
	}
	bw.printf("\ncritical path as the trace shows it (the chain of tasks that led to the last one to finish,\n")
	bw.printf("linked by steals, nesting and each worker's order; joins are not in the trace):\n")
	pct := func(d time.Duration) string {
		if p.Length() <= 0 {
			return "-"
		}
		return fmt.Sprintf("%.1f%%", 100*float64(d)/float64(p.Length()))
	}
	bw.printf("  %d tasks, %d steals, %s from %s to %s; running %s (%s), steal latency %s (%s), queued %s (%s), idle %s (%s); then %s to the trace's end\n",
		len(p.Links)+p.Omitted, p.Steals, fmtDur(p.Length()), fmtDur(p.Start), fmtDur(p.End),
		fmtDur(p.Running), pct(p.Running), fmtDur(p.StealLatency), pct(p.StealLatency),
		fmtDur(p.Queued), pct(p.Queued), fmtDur(p.Idle), pct(p.Idle), fmtDur(p.Tail))
	tw := tabwriter.NewWriter(bw, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  task\tworker\tvia\twait\ton path\t")
	show := func(l Link) {
		via := l.Via
		if l.Via == ViaSteal {
			via = fmt.Sprintf("steal from %d", l.Victim)
		}
		fmt.Fprintf(tw, "  %s\t%d\t%s\t%s\t%s .. %s\t\n", l.Task.Name, l.Task.Worker, via, fmtDur(l.Wait), fmtDur(l.Task.Start), fmtDur(l.To))
	}
	if len(p.Links) <= maxPathLines {
		for _, l := range p.Links {
			show(l)
		}
	} else {
		head := maxPathLines / 3
		tail := maxPathLines - head
		for _, l := range p.Links[:head] {
			show(l)
		}
		fmt.Fprintf(tw, "  … %d more\t\t\t\t\t\n", len(p.Links)-head-tail+p.Omitted)
		for _, l := range p.Links[len(p.Links)-tail:] {
			show(l)
		}
	}
	tw.Flush()
}
