package runcmd

import "testing"

// TestNoSwapHoldsStartsWhileSwappingInAndOut: --noswap starts nothing
// while pages went both in and out since the reading before, and asks
// --limit otherwise.
func TestNoSwapHoldsStartsWhileSwappingInAndOut(t *testing.T) {
	readings := [][2]int64{{10, 10}, {10, 12}, {11, 13}, {11, 13}, {20, 13}, {21, 14}}
	want := []int{7, 7, 1, 7, 7, 1} // 7 is --limit's answer; the first reading has nothing to compare with
	i := 0
	read := func() (int64, int64, error) {
		r := readings[i]
		i++
		return r[0], r[1], nil
	}
	f := noSwap(func() int { return 7 }, read, 0)
	for k, w := range want {
		if got := f(); got != w {
			t.Errorf("answer %d (reading %v): %d, want %d", k, readings[k], got, w)
		}
	}
}
