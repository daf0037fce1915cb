package policy

import (
	"fmt"
	"slices"
)

// Groups assigns workers to locality groups (for example the cores that share
// a last-level cache). A thief under [Locality] tries its own group first.
// The zero value puts every worker in group 0.
type Groups struct {
	of      []int   // worker -> group
	members [][]int // group -> workers, ascending
}

// NewGroups builds Groups from the group of each worker. Group numbers must
// be non-negative.
func NewGroups(of []int) (*Groups, error) {
	g := &Groups{of: slices.Clone(of)}
	for w, x := range of {
		if x < 0 {
			return nil, fmt.Errorf("policy: worker %d has negative group %d", w, x)
		}
		for len(g.members) <= x {
			g.members = append(g.members, nil)
		}
		g.members[x] = append(g.members[x], w)
	}
	return g, nil
}

// EvenGroups splits n workers into groups of size consecutive workers.
func EvenGroups(n, size int) *Groups {
	if size < 1 {
		size = 1
	}
	of := make([]int, n)
	for i := range of {
		of[i] = i / size
	}
	g, _ := NewGroups(of)
	return g
}

// Of returns the group of worker w (0 for workers beyond the table).
func (g *Groups) Of(w int) int {
	if g == nil || w >= len(g.of) {
		return 0
	}
	return g.of[w]
}

// Members returns the workers of group x, ascending. The slice must not be
// modified.
func (g *Groups) Members(x int) []int {
	if g == nil || x >= len(g.members) {
		return nil
	}
	return g.members[x]
}

// Len returns the number of groups.
func (g *Groups) Len() int {
	if g == nil {
		return 1
	}
	return len(g.members)
}
