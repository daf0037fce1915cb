package par

import "github.com/worksteal/worksteal"

// parPartition does what partition does, in parallel: with the pivot at
// s[0], the rest r = s[1:] is cut into chunks of q.chunk elements, and
// each chunk is partitioned on its own (in parallel) into a left part of
// elements <= pivot and a right part >= pivot. If m elements in all went
// left, r[:m] must end up holding left elements and r[m:] right ones: the
// right parts of chunks that lie in r[:m] and the left parts that lie in
// r[m:] are out of place, and there are as many of one as of the other
// (m minus the left elements already in r[:m]). The k-th out-of-place
// element of r[:m] is swapped with the k-th of r[m:], in parallel. No
// element is compared twice and nothing is copied aside: the extra work
// over partition is that swap pass, without comparisons.
//
// Concurrency: each chunk's task writes only its chunk; each swap task
// only the positions of its runs, which no other run holds. Join's return
// orders every task's writes before the next step reads them.
func (q *quicker[T]) parPartition(w *worksteal.Worker, s []T) int {
	q.pivotFirst(s)
	r := s[1:]
	k := (len(r) + q.chunk - 1) / q.chunk
	bounds := make([]int, k) // bounds[c]: where chunk c's right part starts, in r
	if k > 0 {
		q.partChunks(w, partTask[T]{r: r, pivot: s[0], bounds: bounds, lo: 0, hi: k, chunk: q.chunk})
	}
	m := 0
	for c, b := range bounds {
		m += b - c*q.chunk
	}
	if runs := swapPlan(bounds, q.chunk, len(r), m); len(runs) > 0 {
		q.swapRuns(w, swapTask[T]{r: r, runs: runs})
	}
	// r[:m] <= pivot <= r[m:]: the pivot goes between, at s[m], and the
	// element there (the last of r's left side, or the pivot itself when
	// m is 0) to s[0].
	s[0], s[m] = s[m], s[0]
	return m
}

// partTask partitions the chunks lo..hi-1 of r.
type partTask[T any] struct {
	r      []T
	pivot  T
	bounds []int
	lo, hi int
	chunk  int
}

// partChunks partitions chunks t.lo..t.hi-1, forking halves of the range
// until one chunk is left.
func (q *quicker[T]) partChunks(w *worksteal.Worker, t partTask[T]) struct{} {
	if t.hi-t.lo > 1 {
		right := t
		right.lo = int(uint(t.lo+t.hi) >> 1)
		t.hi = right.lo
		worksteal.JoinFunc(w, q.partFn, t, q.partFn, right)
		return struct{}{}
	}
	start := t.lo * t.chunk
	c := t.r[start:min(start+t.chunk, len(t.r))]
	t.bounds[t.lo] = start + q.partitionAround(c, t.pivot)
	return struct{}{}
}

// partitionAround partitions c around pivot (Hoare's scheme: elements
// equal to the pivot stop both scans and are swapped, so equal keys split
// in the middle) and returns b: c[:b] <= pivot <= c[b:].
func (q *quicker[T]) partitionAround(c []T, pivot T) int {
	cmp := q.cmp
	i, j := 0, len(c)-1
	for {
		for i <= j && cmp(c[i], pivot) < 0 {
			i++
		}
		for i <= j && cmp(c[j], pivot) > 0 {
			j--
		}
		if i >= j {
			// Here i <= j+1: at i == j, c[i] stopped both scans, so it
			// equals the pivot and may go right.
			return i
		}
		c[i], c[j] = c[j], c[i]
		i++
		j--
	}
}

// swapRun swaps r[a+i] with r[b+i] for i in [0, n).
type swapRun struct{ a, b, n int }

// swapPlan lists the swaps that finish a parallel partition of r (length
// n) whose chunks of chunk elements have their right parts at bounds, with
// m elements on the left in all: the out-of-place right parts in r[:m],
// in order, paired with the out-of-place left parts in r[m:], in order,
// as runs of at most chunk/2 swaps each.
func swapPlan(bounds []int, chunk, n, m int) []swapRun {
	type span struct{ lo, hi int }
	var rights, lefts []span // out of place: right parts below m, left parts at or above m
	for c, b := range bounds {
		lo, hi := c*chunk, min((c+1)*chunk, n)
		if e := min(hi, m); b < e {
			rights = append(rights, span{b, e})
		}
		if s := max(lo, m); s < b {
			lefts = append(lefts, span{s, b})
		}
	}
	most := max(1, chunk/2)
	var runs []swapRun
	i, j := 0, 0
	for i < len(rights) && j < len(lefts) {
		x, y := &rights[i], &lefts[j]
		k := min(x.hi-x.lo, y.hi-y.lo, most)
		runs = append(runs, swapRun{x.lo, y.lo, k})
		x.lo += k
		y.lo += k
		if x.lo == x.hi {
			i++
		}
		if y.lo == y.hi {
			j++
		}
	}
	if i != len(rights) || j != len(lefts) {
		panic("par: parallel partition's out-of-place counts differ") // m was not the left parts' total
	}
	return runs
}

// swapTask carries out runs on r.
type swapTask[T any] struct {
	r    []T
	runs []swapRun
}

// swapRuns carries out t's runs, forking halves of the list until one run
// is left.
func (q *quicker[T]) swapRuns(w *worksteal.Worker, t swapTask[T]) struct{} {
	if len(t.runs) > 1 {
		h := len(t.runs) / 2
		worksteal.JoinFunc(w, q.swapFn, swapTask[T]{t.r, t.runs[:h]}, q.swapFn, swapTask[T]{t.r, t.runs[h:]})
		return struct{}{}
	}
	run := t.runs[0]
	a, b := t.r[run.a:run.a+run.n], t.r[run.b:run.b+run.n]
	for i := range a {
		a[i], b[i] = b[i], a[i]
	}
	return struct{}{}
}
