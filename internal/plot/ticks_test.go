package plot

import (
	"fmt"
	"slices"
	"testing"
)

func TestNiceTicks(t *testing.T) {
	cases := []struct {
		lo, hi float64
		n      int
		want   []float64
	}{
		{0, 46.6e6, 8, []float64{0, 1e7, 2e7, 3e7, 4e7}},
		{0, 1, 10, []float64{0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1}},
		{0.05, 0.95, 4, []float64{0.5}},
		{0.05, 0.95, 9, []float64{0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9}},
		{0, 3e-6, 3, []float64{0, 1e-6, 2e-6, 3e-6}},
		{-1, 1, 4, []float64{-1, -0.5, 0, 0.5, 1}},
		{-10, -2, 4, []float64{-10, -8, -6, -4, -2}},
		{5, 5, 8, []float64{5}},
		{5, 4, 8, []float64{5}},
		{0, 1, 0, []float64{0}},
	}
	for _, c := range cases {
		if got := NiceTicks(c.lo, c.hi, c.n); !slices.Equal(got, c.want) {
			t.Errorf("NiceTicks(%v, %v, %d) = %v; want %v", c.lo, c.hi, c.n, got, c.want)
		}
	}
}

func ExampleNiceTicks() {
	fmt.Println(NiceTicks(0, 46.6, 8))
	fmt.Println(NiceTicks(0, 1, 5))
	// Output:
	// [0 10 20 30 40]
	// [0 0.2 0.4 0.6 0.8 1]
}
