package balance

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestSplit(t *testing.T) {
	cases := []struct {
		name     string
		n, parts int
		want     []Range
	}{
		{"empty", 0, 3, []Range{{0, 0}, {0, 0}, {0, 0}}},
		{"one part", 5, 1, []Range{{0, 5}}},
		{"even", 6, 3, []Range{{0, 2}, {2, 4}, {4, 6}}},
		{"remainder goes first", 10, 3, []Range{{0, 4}, {4, 7}, {7, 10}}},
		{"numpy array_split(range(7), 4)", 7, 4, []Range{{0, 2}, {2, 4}, {4, 6}, {6, 7}}},
		{"more parts than items", 2, 4, []Range{{0, 1}, {1, 2}, {2, 2}, {2, 2}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := Split(tc.n, tc.parts); !slices.Equal(got, tc.want) {
				t.Errorf("Split(%d, %d) = %v; want %v", tc.n, tc.parts, got, tc.want)
			}
		})
	}
}

// TestSplitProperties checks every (n, parts) up to 60×12: the ranges tile
// [0, n) in order and their lengths differ by at most one, longest first.
func TestSplitProperties(t *testing.T) {
	for n := range 61 {
		for parts := 1; parts <= 12; parts++ {
			got := Split(n, parts)
			if len(got) != parts {
				t.Fatalf("Split(%d, %d) has %d ranges; want %d", n, parts, len(got), parts)
			}
			lo := 0
			for i, r := range got {
				if r.Lo != lo || r.Hi < r.Lo {
					t.Fatalf("Split(%d, %d)[%d] = %v; want a range starting at %d", n, parts, i, r, lo)
				}
				if i > 0 && r.Len() > got[i-1].Len() {
					t.Fatalf("Split(%d, %d) = %v; want lengths non-increasing", n, parts, got)
				}
				lo = r.Hi
			}
			if lo != n {
				t.Fatalf("Split(%d, %d) = %v; want it to end at %d", n, parts, got, n)
			}
			if d := got[0].Len() - got[parts-1].Len(); d > 1 {
				t.Fatalf("Split(%d, %d) = %v; lengths differ by %d > 1", n, parts, got, d)
			}
		}
	}
}

func TestChunks(t *testing.T) {
	cases := []struct {
		name    string
		n, size int
		want    []Range
	}{
		{"empty", 0, 4, nil},
		{"exact", 8, 4, []Range{{0, 4}, {4, 8}}},
		{"short tail", 10, 4, []Range{{0, 4}, {4, 8}, {8, 10}}},
		{"size above n", 3, 10, []Range{{0, 3}}},
		{"size one", 3, 1, []Range{{0, 1}, {1, 2}, {2, 3}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := Chunks(tc.n, tc.size); !slices.Equal(got, tc.want) {
				t.Errorf("Chunks(%d, %d) = %v; want %v", tc.n, tc.size, got, tc.want)
			}
		})
	}
}

func TestRoundRobin(t *testing.T) {
	cases := []struct {
		name       string
		n, workers int
		want       [][]int
	}{
		{"empty", 0, 2, [][]int{{}, {}}},
		{"one worker", 3, 1, [][]int{{0, 1, 2}}},
		{"dealt", 7, 3, [][]int{{0, 3, 6}, {1, 4}, {2, 5}}},
		{"more workers than items", 2, 3, [][]int{{0}, {1}, {}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := RoundRobin(tc.n, tc.workers)
			if !slices.EqualFunc(got, tc.want, slices.Equal) {
				t.Errorf("RoundRobin(%d, %d) = %v; want %v", tc.n, tc.workers, got, tc.want)
			}
		})
	}
}

func TestQuantileBounds(t *testing.T) {
	cases := []struct {
		name  string
		keys  []int
		parts int
		want  []int
	}{
		{"empty", nil, 3, nil},
		{"one part", []int{1, 2, 3}, 1, nil},
		{"quartiles", []int{10, 20, 30, 40, 50, 60, 70, 80}, 4, []int{30, 50, 70}},
		{"uneven", []int{1, 2, 3, 4, 5, 6, 7}, 3, []int{3, 5}},
		{"duplicates", []int{1, 1, 1, 1, 2, 3}, 3, []int{1, 2}},
		{"all equal repeats the bound", []int{4, 4, 4, 4}, 2, []int{4}},
		{"more parts than keys", []int{5, 9}, 4, []int{5, 9, 9}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := QuantileBounds(tc.keys, tc.parts); !slices.Equal(got, tc.want) {
				t.Errorf("QuantileBounds(%v, %d) = %v; want %v", tc.keys, tc.parts, got, tc.want)
			}
		})
	}
}

func TestRangeIndex(t *testing.T) {
	bounds := []string{"g", "n", "t"}
	cases := []struct {
		key  string
		want int
	}{
		{"", 0}, {"apple", 0}, {"g", 1}, {"golf", 1}, {"n", 2}, {"s", 2}, {"t", 3}, {"zebra", 3},
	}
	for _, tc := range cases {
		t.Run(tc.key, func(t *testing.T) {
			if got := RangeIndex(bounds, tc.key); got != tc.want {
				t.Errorf("RangeIndex(%q, %q) = %d; want %d", bounds, tc.key, got, tc.want)
			}
		})
	}
	if got := RangeIndex(nil, 42); got != 0 {
		t.Errorf("RangeIndex(nil, 42) = %d; want 0", got)
	}
}

func TestSplitByBounds(t *testing.T) {
	cases := []struct {
		name   string
		keys   []int
		bounds []int
		want   []Range
	}{
		{"no bounds", []int{1, 2}, nil, []Range{{0, 2}}},
		{"empty keys", nil, []int{5}, []Range{{0, 0}, {0, 0}}},
		{"quartiles", []int{10, 20, 30, 40, 50, 60, 70, 80}, []int{30, 50, 70}, []Range{{0, 2}, {2, 4}, {4, 6}, {6, 8}}},
		{"duplicates stay together", []int{1, 1, 1, 1, 2, 3}, []int{1, 1}, []Range{{0, 0}, {0, 0}, {0, 6}}},
		{"bound outside keys", []int{4, 5}, []int{0, 9}, []Range{{0, 0}, {0, 2}, {2, 2}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := SplitByBounds(tc.keys, tc.bounds)
			if !slices.Equal(got, tc.want) {
				t.Errorf("SplitByBounds(%v, %v) = %v; want %v", tc.keys, tc.bounds, got, tc.want)
			}
			// Agrees with RangeIndex, key by key.
			for i, r := range got {
				for _, k := range tc.keys[r.Lo:r.Hi] {
					if j := RangeIndex(tc.bounds, k); j != i {
						t.Errorf("SplitByBounds puts %d in range %d, RangeIndex(%v, %d) = %d", k, i, tc.bounds, k, j)
					}
				}
			}
		})
	}
}

func TestPartitionPanics(t *testing.T) {
	cases := []struct {
		name string
		call func()
		want string
	}{
		{"Split n < 0", func() { Split(-1, 2) }, "balance: Split with n = -1 < 0"},
		{"Split parts < 1", func() { Split(3, 0) }, "balance: Split with parts = 0 < 1"},
		{"Chunks size < 1", func() { Chunks(3, 0) }, "balance: Chunks with size = 0 < 1"},
		{"Chunks n < 0", func() { Chunks(-3, 1) }, "balance: Chunks with n = -3 < 0"},
		{"RoundRobin workers < 1", func() { RoundRobin(3, 0) }, "balance: RoundRobin with workers = 0 < 1"},
		{"RoundRobin n < 0", func() { RoundRobin(-1, 1) }, "balance: RoundRobin with n = -1 < 0"},
		{"QuantileBounds unsorted", func() { QuantileBounds([]int{2, 1}, 2) }, "balance: QuantileBounds keys are not sorted"},
		{"QuantileBounds parts < 1", func() { QuantileBounds([]int{1}, 0) }, "balance: QuantileBounds with parts = 0 < 1"},
		{"SplitByBounds unsorted keys", func() { SplitByBounds([]int{2, 1}, nil) }, "balance: SplitByBounds keys are not sorted"},
		{"SplitByBounds unsorted bounds", func() { SplitByBounds(nil, []int{2, 1}) }, "balance: SplitByBounds bounds are not sorted"},
		{"Jump workers < 1", func() { Jump(1, 0) }, "balance: Jump with workers = 0 < 1"},
		{"LPT workers < 1", func() { LPT([]float64{1}, 0) }, "balance: LPT with workers = 0 < 1"},
		{"LPT negative cost", func() { LPT([]float64{1, -1}, 2) }, "balance: LPT cost[1] = -1 is not finite and non-negative"},
		{"ListSchedule NaN cost", func() { ListSchedule([]float64{nanf()}, 2) }, "balance: ListSchedule cost[0] = NaN is not finite and non-negative"},
		{"LPTSpeeds no workers", func() { LPTSpeeds([]float64{1}, nil) }, "balance: LPTSpeeds with no workers"},
		{"LPTSpeeds zero speed", func() { LPTSpeeds([]float64{1}, []float64{1, 0}) }, "balance: LPTSpeeds speed[1] = 0 is not positive and finite"},
		{"Improve length mismatch", func() { Improve([]float64{1}, Assignment{Owner: []int{0, 0}, Loads: []float64{2}}) }, "balance: Improve with 1 costs for 2 items"},
		{"Improve owner out of range", func() { Improve([]float64{1}, Assignment{Owner: []int{3}, Loads: []float64{1}}) }, "balance: Improve owner[0] = 3 out of range [0,1)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := catchPanic(tc.call)
			if got != tc.want {
				t.Errorf("panic = %q; want %q", got, tc.want)
			}
		})
	}
}

// catchPanic runs f and returns its panic value formatted with %v, or ""
// if it did not panic.
func catchPanic(f func()) (msg string) {
	defer func() {
		if v := recover(); v != nil {
			msg = fmt.Sprint(v)
			if !strings.HasPrefix(msg, "balance: ") {
				msg = "missing prefix: " + msg
			}
		}
	}()
	f()
	return ""
}
