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
}

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
func criticalPath(lanes []lane, traceEnd time.Duration) Path {
	type ref struct{ lane, i int }
	cur, found := ref{}, false
	for li := range lanes {
		for i, sp := range lanes[li].spans {
			if sp.children > 0 {
				continue
			}
			if c := lanes[cur.lane].spans; !found || sp.End() > c[cur.i].End() ||
				sp.End() == c[cur.i].End() && sp.Start > c[cur.i].Start {
				cur, found = ref{li, i}, true
			}
		}
	}
	var p Path
	if !found {
		return p
	}
	type step struct {
		at                    ref
		via                   string
		victim                int
		to                    time.Duration // hand-off from this span to the next (later) one
		latency, queued, idle time.Duration
	}
	last := lanes[cur.lane].spans[cur.i]
	steps := []step{{at: cur, to: last.End()}}
	seen := map[ref]bool{cur: true}
	for {
		st := &steps[len(steps)-1]
		l := &lanes[st.at.lane]
		s := l.spans[st.at.i]
		// prevDone: the span of this lane with the latest end at or
		// before s starts (walking up from the span just before s).
		prevDone, boundary := -1, time.Duration(-1<<62)
		if st.at.i > 0 {
			boundary = l.spans[st.at.i-1].Start
			for j := st.at.i - 1; j >= 0 && l.spans[j].End() <= s.Start; j = l.spans[j].parent {
				prevDone = j
			}
			if prevDone >= 0 {
				boundary = max(boundary, l.spans[prevDone].End())
			}
		}
		var next ref
		var to time.Duration
		ok := false
		if t, victim, stolen := lastSteal(l, s.Start, boundary); stolen && victim >= 0 && victim < len(lanes) {
			v := &lanes[victim]
			if j := covering(v, t); j >= 0 {
				next, to, ok = ref{victim, j}, t, true
				st.latency = s.Start - t
			} else if j := doneBy(v, t); j >= 0 {
				next, to, ok = ref{victim, j}, v.spans[j].End(), true
				st.latency, st.queued = s.Start-t, t-v.spans[j].End()
			}
			if ok {
				st.via, st.victim = ViaSteal, victim
			}
		}
		if !ok && s.parent >= 0 {
			next, to, ok = ref{st.at.lane, s.parent}, s.Start, true
			st.via, st.victim = ViaNested, -1
		}
		if !ok && prevDone >= 0 {
			next, to, ok = ref{st.at.lane, prevDone}, l.spans[prevDone].End(), true
			st.via, st.victim = ViaAfter, -1
			st.idle = s.Start - to
		}
		if !ok || seen[next] {
			st.via, st.victim = ViaFirst, -1
			st.latency, st.queued, st.idle = 0, 0, 0
			break
		}
		seen[next] = true
		steps = append(steps, step{at: next, to: to})
	}
	// steps run from the last task back to the first.
	for k := len(steps) - 1; k >= 0; k-- {
		st := steps[k]
		sp := lanes[st.at.lane].spans[st.at.i]
		link := Link{Task: sp.Task, Via: st.via, Victim: st.victim, To: st.to}
		link.Wait = max(0, st.latency) + max(0, st.queued) + max(0, st.idle)
		p.Links = append(p.Links, link)
		p.Running += max(0, st.to-sp.Start)
		p.StealLatency += max(0, st.latency)
		p.Queued += max(0, st.queued)
		p.Idle += max(0, st.idle)
		if st.via == ViaSteal {
			p.Steals++
		}
	}
	p.Start, p.End = p.Links[0].Task.Start, last.End()
	p.Tail = max(0, traceEnd-p.End)
	return p
}

// lastSteal returns the latest steal instant of lane l at or before at and
// not before boundary (the lane's previous span start or end), and its victim.
func lastSteal(l *lane, at, boundary time.Duration) (t time.Duration, victim int, ok bool) {
	k := sort.Search(len(l.instants), func(k int) bool { return l.instants[k].At > at })
	for k--; k >= 0 && l.instants[k].At >= boundary; k-- {
		if kindOf(l.instants[k]) == instSteal {
			return l.instants[k].At, victimOf(l.instants[k]), true
		}
	}
	return 0, -1, false
}

// covering returns the innermost span of l running at t, or -1.
func covering(l *lane, t time.Duration) int {
	j := sort.Search(len(l.spans), func(k int) bool { return l.spans[k].Start > t }) - 1
	for j >= 0 && l.spans[j].End() < t {
		j = l.spans[j].parent
	}
	return j
}

// doneBy returns the span of l with the latest end at or before t, or -1.
func doneBy(l *lane, t time.Duration) int {
	j := sort.Search(len(l.spans), func(k int) bool { return l.spans[k].Start > t }) - 1
	best := -1
	for ; j >= 0 && l.spans[j].End() <= t; j = l.spans[j].parent {
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
		len(p.Links), p.Steals, fmtDur(p.Length()), fmtDur(p.Start), fmtDur(p.End),
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
		fmt.Fprintf(tw, "  … %d more\t\t\t\t\t\n", len(p.Links)-head-tail)
		for _, l := range p.Links[len(p.Links)-tail:] {
			show(l)
		}
	}
	tw.Flush()
}
