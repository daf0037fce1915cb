package runner

import (
	"cmp"
	"slices"
	"time"

	"github.com/worksteal/worksteal/balance"
)

// Order is the order in which jobs start.
type Order int

const (
	// OrderAuto starts the longest jobs first when costs are known (a
	// weight, or a run time remembered in Config.History) and in input
	// order otherwise.
	OrderAuto Order = iota
	// OrderInput starts jobs in input order.
	OrderInput
	// OrderLPT starts the longest jobs first (Graham's longest processing
	// time rule), jobs of unknown cost counted at the median known cost.
	OrderLPT
)

// String returns "auto", "input" or "lpt".
func (o Order) String() string {
	switch o {
	case OrderInput:
		return "input"
	case OrderLPT:
		return "lpt"
	}
	return "auto"
}

// plan is the start order of one batch.
type plan struct {
	order []int     // indices into jobs, in start order
	costs []float64 // estimated cost per job (input order); nil if none known
	lpt   bool      // order is longest first
	known int       // jobs whose cost was known
}

// makePlan orders jobs: by weight, or by remembered run time (seconds), or
// not at all.
func makePlan(jobs []Job, o Order, history map[string]time.Duration) plan {
	p := plan{order: make([]int, len(jobs))}
	for i := range p.order {
		p.order[i] = i
	}
	if o == OrderInput || len(jobs) == 0 {
		return p
	}
	costs := make([]float64, len(jobs))
	known := make([]bool, len(jobs))
	// Weights and remembered seconds are not mixed: a batch with any weight
	// is ordered by weights alone, since their unit is the user's.
	weighted := slices.ContainsFunc(jobs, func(j Job) bool { return j.Weight > 0 })
	var seen []float64
	for i, j := range jobs {
		if weighted {
			costs[i], known[i] = j.Weight, j.Weight > 0
		} else if d, ok := history[j.Command]; ok {
			costs[i], known[i] = d.Seconds(), true
		}
		if known[i] {
			seen = append(seen, costs[i])
			p.known++
		}
	}
	if p.known == 0 {
		return p
	}
	med := balance.Quantile(seen, 0.5)
	for i := range costs {
		if !known[i] {
			costs[i] = med
		}
	}
	p.costs = costs
	p.lpt = true
	slices.SortStableFunc(p.order, func(a, b int) int { return cmp.Compare(costs[b], costs[a]) })
	return p
}

// listMakespan is the makespan of list scheduling costs in the given order
// on slots: what a central queue does at run time, without overheads.
func listMakespan(costs []float64, order []int, slots int) float64 {
	c := make([]float64, len(order))
	for k, i := range order {
		c[k] = costs[i]
	}
	return balance.ListSchedule(c, slots).Makespan()
}

// Plan returns jobs in the order Run would start them (without retries and
// copies, which depend on the run).
func Plan(jobs []Job, o Order, history map[string]time.Duration) []Job {
	p := makePlan(jobs, o, history)
	out := make([]Job, len(jobs))
	for k, i := range p.order {
		out[k] = jobs[i]
	}
	return out
}
