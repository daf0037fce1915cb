package bench

import (
	"math/bits"
	"sync"
)

// nqueens: count the placements of n non-attacking queens, one per row.
// A partial board holding queens in rows 0..row−1 is one uint64 whose bits
// [4i, 4i+4) hold the column of the queen of row i (so n <= 16). The safety
// test is the deliberate O(row) scan of the anchor suite, so each task does
// roughly 50–200 ns of work. The children of a board are given as a column
// mask (bit c set: a queen fits at column c of the next row); every set bit
// is one child task.

// nqCutoffRow: WGCutoff forks only at rows < nqCutoffRow.
const nqCutoffRow = 3

// nqSolutions[n] is the number of solutions of the n-queens problem (OEIS A000170).
var nqSolutions = [...]uint64{1, 1, 0, 0, 2, 10, 4, 40, 92, 352, 724, 2680, 14200, 73712, 365596, 2279184, 14772512}

// nqJoins holds published fork counts (anchors' WORKLOADS.md).
var nqJoins = map[int]int64{12: 314729, 13: 1716651}

func init() {
	register(&workload{
		name:       "nqueens",
		doc:        "n-queens solutions, O(row) safety scan, every valid child a task (no cutoff); size = n",
		sizes:      []string{"12", "13"},
		quickSizes: []string{"11"},
		parse:      parseNQueens,
	})
}

func parseNQueens(size string) (*problem, error) {
	n, err := atoiIn("nqueens", size, 1, 16)
	if err != nil {
		return nil, err
	}
	return &problem{
		seq:      func() Result { return Result{Value: nqSeq(n, 0, 0)} },
		wg:       func() Result { return Result{Value: nqWG(n, 0, 0, n+1)} },
		wgCutoff: func() Result { return Result{Value: nqWG(n, 0, 0, nqCutoffRow)} },
		ref:      Result{Value: nqSolutions[n]},
		hasRef:   true,
		joins: func() int64 {
			if j, ok := nqJoins[n]; ok {
				return j
			}
			return nqCountJoins(n, 0, 0)
		},
		param: n,
	}, nil
}

// nqSafe reports whether a queen at column c of row row is attacked by none
// of the queens of rows 0..row−1 of board b.
func nqSafe(b uint64, row, c int) bool {
	// Rows 0..row−1 from the first: the queen of row i sits at distance
	// d = row−i, and b shifts down one queen per step (a constant shift,
	// where indexing by i costs a variable one).
	for d := row; d > 0; d-- {
		q := int(b & 15)
		b >>= 4
		if q == c || q-c == d || c-q == d {
			return false
		}
	}
	return true
}

// nqCols returns the children of board b as a column mask for row row.
func nqCols(n, row int, b uint64) uint16 {
	var m uint16
	for c := range n {
		if nqSafe(b, row, c) {
			m |= 1 << uint(c)
		}
	}
	return m
}

// nqPlace puts a queen at column c of row row.
func nqPlace(b uint64, row, c int) uint64 { return b | uint64(c)<<(4*uint(row)) }

// nqSplit splits a column mask of k >= 2 children into its lowest ⌊k/2⌋
// children and the rest (the balanced binary split: k children, k−1 joins).
func nqSplit(m uint16) (lo, hi uint16) {
	hi = m
	for range bits.OnesCount16(m) / 2 {
		hi &= hi - 1 // drop the lowest child
	}
	return m &^ hi, hi
}

func nqSeq(n, row int, b uint64) uint64 {
	if row == n {
		return 1
	}
	var t uint64
	for m := nqCols(n, row, b); m != 0; m &= m - 1 {
		t += nqSeq(n, row+1, nqPlace(b, row, bits.TrailingZeros16(m)))
	}
	return t
}

// nqWG forks every child but the last as a goroutine and runs the last one
// inline, while row < cutoff; below that it runs sequentially.
func nqWG(n, row int, b uint64, cutoff int) uint64 {
	if row == n {
		return 1
	}
	if row >= cutoff {
		return nqSeq(n, row, b)
	}
	m := nqCols(n, row, b)
	if m == 0 {
		return 0
	}
	var res [16]uint64
	var wg sync.WaitGroup
	wg.Add(bits.OnesCount16(m) - 1)
	i := 0
	for ; m&(m-1) != 0; m &= m - 1 {
		go func(i int, child uint64) {
			res[i] = nqWG(n, row+1, child, cutoff)
			wg.Done()
		}(i, nqPlace(b, row, bits.TrailingZeros16(m)))
		i++
	}
	t := nqWG(n, row+1, nqPlace(b, row, bits.TrailingZeros16(m)), cutoff)
	wg.Wait()
	for _, r := range res[:i] {
		t += r
	}
	return t
}

// nqCountJoins walks the tree: a board with k children adds k−1 joins.
func nqCountJoins(n, row int, b uint64) int64 {
	if row == n {
		return 0
	}
	m := nqCols(n, row, b)
	var j int64
	if k := bits.OnesCount16(m); k > 1 {
		j = int64(k - 1)
	}
	for ; m != 0; m &= m - 1 {
		j += nqCountJoins(n, row+1, nqPlace(b, row, bits.TrailingZeros16(m)))
	}
	return j
}
