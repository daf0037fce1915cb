package balance

import (
	"fmt"
	"math"
	"slices"
	"sort"
)

// Assignment is the result of a weighted partitioner: which worker runs each
// item, and how long each worker will be busy. It is plain data; the methods
// derive the balance figures from it.
type Assignment struct {
	// Owner[i] is the worker that runs item i.
	Owner []int
	// Loads[w] is worker w's finishing time: the total cost of its items
	// divided by its speed (speed 1 for LPT and ListSchedule, so there it is
	// the plain sum of costs).
	Loads []float64
	// Speeds[w] is worker w's speed, in cost units per time unit; all 1 for
	// LPT and ListSchedule. A nil Speeds means every speed is 1.
	Speeds []float64
}

// Makespan returns the finishing time of the last worker, max(Loads); 0 for
// no workers.
func (a Assignment) Makespan() float64 {
	if len(a.Loads) == 0 {
		return 0
	}
	return slices.Max(a.Loads)
}

// Imbalance returns the makespan divided by the ideal finishing time, the one
// where every worker finishes together: Σ cost / Σ speed. With equal speeds
// this is max/mean of Loads, the same definition as the Imbalance metric;
// 1 is perfect, and the target is below TargetImbalance. It returns 1 when
// there is no work.
func (a Assignment) Imbalance() float64 {
	var work, speed float64
	for w, l := range a.Loads {
		s := 1.0 // a nil Speeds means equal speeds
		if a.Speeds != nil {
			s = a.Speeds[w]
		}
		work += l * s
		speed += s
	}
	if work == 0 || speed == 0 {
		return 1
	}
	return a.Makespan() / (work / speed)
}

// Items returns, for each worker, the items it runs in increasing order.
func (a Assignment) Items() [][]int {
	out := make([][]int, len(a.Loads))
	for i, w := range a.Owner {
		out[w] = append(out[w], i)
	}
	return out
}

// String formats the per-worker loads and the imbalance, e.g.
// "loads [7 6] makespan 7 imbalance 1.077".
func (a Assignment) String() string {
	return fmt.Sprintf("loads %v makespan %g imbalance %.3f", a.Loads, a.Makespan(), a.Imbalance())
}

// LPT assigns items with known costs to workers of equal speed by Graham's
// longest-processing-time rule: take the items from the most to the least
// costly and give each to the currently least-loaded worker. Its makespan is
// at most (4/3 − 1/(3·workers)) times the optimum, and usually within a few
// percent of it. It runs in O(n log n + n log workers) with a min-heap of
// loads. Ties go to the lower item index and the lower worker index, so the
// result is deterministic. Follow it with Improve when a few percent matter.
//
// Panics: if workers < 1 or a cost is negative, infinite or NaN.
func LPT(costs []float64, workers int) Assignment {
	checkCosts("LPT", costs)
	return greedy(costs, byCostDesc(costs), equalSpeeds("LPT", workers))
}

// ListSchedule assigns items in their given order, each to the currently
// least-loaded worker (Graham's list scheduling, what a central queue does at
// run time when costs are unknown). Its makespan is at most (2 − 1/workers)
// times the optimum. It is the baseline LPT improves on by sorting first.
//
// Panics: if workers < 1 or a cost is negative, infinite or NaN.
func ListSchedule(costs []float64, workers int) Assignment {
	checkCosts("ListSchedule", costs)
	order := make([]int, len(costs))
	for i := range order {
		order[i] = i
	}
	return greedy(costs, order, equalSpeeds("ListSchedule", workers))
}

// LPTSpeeds is LPT for workers of different speeds (capacity-weighted;
// "uniform machines" in scheduling theory): worker w finishes work W in
// W/speeds[w]. Items go from the most to the least costly, each to the worker
// on which it would finish earliest, so a worker twice as fast ends up with
// about twice the work. Workers of equal speed share one min-heap, so the
// cost is O(n log n + n·(k + log workers)) for k distinct speeds, which is
// small in practice (a few machine types).
//
// Panics: if speeds is empty, a speed is not positive and finite, or a cost
// is negative, infinite or NaN.
func LPTSpeeds(costs, speeds []float64) Assignment {
	checkCosts("LPTSpeeds", costs)
	if len(speeds) == 0 {
		panic("balance: LPTSpeeds with no workers")
	}
	for w, s := range speeds {
		if !(s > 0) || math.IsInf(s, 1) {
			panic(fmt.Sprintf("balance: LPTSpeeds speed[%d] = %g is not positive and finite", w, s))
		}
	}
	return greedy(costs, byCostDesc(costs), slices.Clone(speeds))
}

// Improve refines an assignment by local search beyond what LPT's greedy
// pass can see: it repeatedly takes the worker that finishes last and tries,
// against each other worker from the least loaded up, the single move of one
// item or the swap of two items that most lowers the later of the two
// finishing times; it applies the first such change that helps and starts
// over, and stops when the last worker can gain from no pair. Each change
// strictly lowers the sorted vector of finishing times, so it terminates;
// the number of changes is also capped at 4·n + workers. It never makes the
// makespan worse. costs must be the costs the assignment was made for; a
// is not modified.
//
// The classic case it fixes: costs {3,3,2,2,2} on 2 workers. LPT gives
// {3,2,2}/{3,2} = 7/5; one swap finds the optimum {3,3}/{2,2,2} = 6/6.
//
// Panics: if len(costs) != len(a.Owner), an owner is out of range, a has
// items but no workers (empty Loads), or Speeds is set with a length other
// than len(Loads).
func Improve(costs []float64, a Assignment) Assignment {
	checkCosts("Improve", costs)
	if len(costs) != len(a.Owner) {
		panic(fmt.Sprintf("balance: Improve with %d costs for %d items", len(costs), len(a.Owner)))
	}
	m := len(a.Loads)
	if m == 0 && len(a.Owner) > 0 {
		panic(fmt.Sprintf("balance: Improve of an assignment of %d items to no workers (Loads is empty)", len(a.Owner)))
	}
	if a.Speeds != nil && len(a.Speeds) != m {
		panic(fmt.Sprintf("balance: Improve with %d speeds for %d workers (len(Loads))", len(a.Speeds), m))
	}
	speeds := a.Speeds
	if speeds == nil {
		speeds = make([]float64, m)
		for w := range speeds {
			speeds[w] = 1
		}
	}
	owner := slices.Clone(a.Owner)
	work := make([]float64, m)
	items := make([][]int, m)
	for i, w := range owner {
		if w < 0 || w >= m {
			panic(fmt.Sprintf("balance: Improve owner[%d] = %d out of range [0,%d)", i, w, m))
		}
		work[w] += costs[i]
		items[w] = append(items[w], i)
	}
	finish := func(w int) float64 { return work[w] / speeds[w] }

	others := make([]int, 0, m)
	for range 4*len(costs) + m {
		// a: the worker that finishes last (lowest index on ties).
		a := 0
		for w := 1; w < m; w++ {
			if finish(w) > finish(a) {
				a = w
			}
		}
		ta := finish(a)
		others = others[:0]
		for w := range m {
			if w != a {
				others = append(others, w)
			}
		}
		sort.SliceStable(others, func(x, y int) bool { return finish(others[x]) < finish(others[y]) })
		improved := false
		for _, b := range others {
			i, j, ok := bestExchange(costs, items[a], items[b], work[a], work[b], speeds[a], speeds[b], ta)
			if !ok {
				continue
			}
			move(items, owner, work, costs, i, a, b)
			if j >= 0 {
				move(items, owner, work, costs, j, b, a)
			}
			improved = true
			break
		}
		if !improved {
			break
		}
	}
	loads := make([]float64, m)
	for w := range loads {
		loads[w] = finish(w)
	}
	return Assignment{Owner: owner, Loads: loads, Speeds: slices.Clone(speeds)}
}

// bestExchange finds the item i of worker a to move to worker b, and
// optionally the item j of b to move back (j = −1 for a plain move), that
// minimises the later of the two new finishing times. It reports ok only if
// that is below ta, a's finishing time now, by more than rounding noise.
//
// The new times depend only on d = c_i − c_j: (wa−d)/sa and (wb+d)/sb, a
// convex function of d minimised at d* = (wa·sb − wb·sa)/(sa + sb). So for
// each i it suffices to try the two items of b whose costs bracket c_i − d*
// (binary search in b's sorted costs), plus the plain move: O(|a| log |b|).
func bestExchange(costs []float64, ia, ib []int, wa, wb, sa, sb, ta float64) (i, j int, ok bool) {
	byCost := slices.Clone(ib)
	slices.SortFunc(byCost, func(x, y int) int {
		if costs[x] != costs[y] {
			if costs[x] < costs[y] {
				return -1
			}
			return 1
		}
		return x - y
	})
	dstar := (wa*sb - wb*sa) / (sa + sb)
	best := ta * (1 - 1e-12) // must beat a's time by more than rounding
	i, j = -1, -1
	try := func(x, y int, d float64) {
		if d <= 0 {
			return // moves work from b to a: cannot help a
		}
		if t := math.Max((wa-d)/sa, (wb+d)/sb); t < best {
			best, i, j = t, x, y
		}
	}
	for _, x := range ia {
		try(x, -1, costs[x])
		target := costs[x] - dstar
		k := sort.Search(len(byCost), func(k int) bool { return costs[byCost[k]] >= target })
		for _, kk := range [2]int{k - 1, k} {
			if kk >= 0 && kk < len(byCost) {
				y := byCost[kk]
				try(x, y, costs[x]-costs[y])
			}
		}
	}
	return i, j, i >= 0
}

// move hands item i from worker from to worker to.
func move(items [][]int, owner []int, work, costs []float64, i, from, to int) {
	k := slices.Index(items[from], i)
	items[from] = slices.Delete(items[from], k, k+1)
	items[to] = append(items[to], i)
	owner[i] = to
	work[from] -= costs[i]
	work[to] += costs[i]
}

// greedy assigns the items in order, each to the worker on which it would
// finish earliest. Workers of one speed form a class with a min-heap on
// (work, index); the best worker of a class is its heap top, so each item
// compares one candidate per class.
func greedy(costs []float64, order []int, speeds []float64) Assignment {
	var classes []*loadHeap
	bySpeed := map[float64]*loadHeap{}
	for w, s := range speeds {
		h := bySpeed[s]
		if h == nil {
			h = &loadHeap{speed: s}
			bySpeed[s] = h
			classes = append(classes, h)
		}
		h.push(w) // work 0: pushing in index order keeps heap order
	}
	work := make([]float64, len(speeds))
	owner := make([]int, len(costs))
	for _, i := range order {
		c := costs[i]
		var best *loadHeap
		bestT, bestW := math.Inf(1), -1
		for _, h := range classes {
			w := h.ws[0]
			t := (work[w] + c) / h.speed
			if t < bestT || (t == bestT && w < bestW) {
				best, bestT, bestW = h, t, w
			}
		}
		owner[i] = bestW
		work[bestW] += c
		best.fix(work)
	}
	loads := make([]float64, len(speeds))
	for w := range loads {
		loads[w] = work[w] / speeds[w]
	}
	return Assignment{Owner: owner, Loads: loads, Speeds: speeds}
}

// loadHeap is a min-heap of the workers of one speed, ordered by (work,
// index). Only its top changes between calls, so fix sifts it down.
type loadHeap struct {
	speed float64
	ws    []int
}

func (h *loadHeap) push(w int) { h.ws = append(h.ws, w) }

// fix restores heap order after the work of the top worker grew.
func (h *loadHeap) fix(work []float64) {
	less := func(a, b int) bool {
		wa, wb := h.ws[a], h.ws[b]
		return work[wa] < work[wb] || (work[wa] == work[wb] && wa < wb)
	}
	n := len(h.ws)
	for i := 0; ; {
		l := 2*i + 1
		if l >= n {
			return
		}
		c := l
		if r := l + 1; r < n && less(r, l) {
			c = r
		}
		if !less(c, i) {
			return
		}
		h.ws[i], h.ws[c] = h.ws[c], h.ws[i]
		i = c
	}
}

// byCostDesc returns the item indices from the most to the least costly,
// lower index first on ties.
func byCostDesc(costs []float64) []int {
	order := make([]int, len(costs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		switch {
		case costs[a] > costs[b]:
			return -1
		case costs[a] < costs[b]:
			return 1
		}
		return 0
	})
	return order
}

func equalSpeeds(fn string, workers int) []float64 {
	if workers < 1 {
		panic(fmt.Sprintf("balance: %s with workers = %d < 1", fn, workers))
	}
	s := make([]float64, workers)
	for w := range s {
		s[w] = 1
	}
	return s
}

func checkCosts(fn string, costs []float64) {
	for i, c := range costs {
		if !(c >= 0) || math.IsInf(c, 1) {
			panic(fmt.Sprintf("balance: %s cost[%d] = %g is not finite and non-negative", fn, i, c))
		}
	}
}
