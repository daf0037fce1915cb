package balance

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
)

// drain asks c for chunks on behalf of workers 0, 1, …, workers−1 in turn,
// skipping workers that are done, until all are done, and returns the
// chunks each worker got in order. With one goroutine the order of requests
// is fixed, so the result is deterministic.
func drain(c Chunker, workers int) [][]Range {
	out := make([][]Range, workers)
	done := make([]bool, workers)
	for left := workers; left > 0; {
		for w := range workers {
			if done[w] {
				continue
			}
			if r, ok := c.Next(w); ok {
				out[w] = append(out[w], r)
			} else {
				done[w] = true
				left--
			}
		}
	}
	return out
}

func TestScheduleChunks(t *testing.T) {
	cases := []struct {
		name       string
		s          Schedule
		n, workers int
		want       [][]Range
	}{
		{"static: one block each", Static{}, 10, 3, [][]Range{{{0, 4}}, {{4, 7}}, {{7, 10}}}},
		{"static: more workers than items", Static{}, 2, 3, [][]Range{{{0, 1}}, {{1, 2}}, nil}},
		{"static: chunks dealt round-robin", Static{Chunk: 2}, 10, 3, [][]Range{{{0, 2}, {6, 8}}, {{2, 4}, {8, 10}}, {{4, 6}}}},
		{"static: short last chunk", Static{Chunk: 4}, 10, 2, [][]Range{{{0, 4}, {8, 10}}, {{4, 8}}}},
		{"dynamic: chunk 3", Dynamic{Chunk: 3}, 10, 2, [][]Range{{{0, 3}, {6, 9}}, {{3, 6}, {9, 10}}}},
		{"dynamic: zero value is chunk 1", Dynamic{}, 3, 2, [][]Range{{{0, 1}, {2, 3}}, {{1, 2}}}},
		{"guided: shrinking", Guided{}, 20, 2, [][]Range{{{0, 10}, {15, 18}, {19, 20}}, {{10, 15}, {18, 19}}}},
		{"guided: min chunk", Guided{MinChunk: 4}, 20, 2, [][]Range{{{0, 10}, {15, 19}}, {{10, 15}, {19, 20}}}},
		{"empty loop", Guided{}, 0, 2, [][]Range{nil, nil}},
		{"stealing: own blocks first", Stealing{}, 4, 2, [][]Range{{{0, 1}, {1, 2}}, {{2, 3}, {3, 4}}}},
		{"stealing: grain", Stealing{MinGrain: 2}, 7, 2, [][]Range{{{0, 2}, {2, 4}}, {{4, 6}, {6, 7}}}},
		{"stealing: uneven blocks", Stealing{}, 5, 2, [][]Range{{{0, 1}, {1, 2}, {2, 3}}, {{3, 4}, {4, 5}}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := drain(tc.s.Start(tc.n, tc.workers), tc.workers)
			if !slices.EqualFunc(got, tc.want, slices.Equal) {
				t.Errorf("%v.Start(%d, %d) chunks = %v; want %v", tc.s, tc.n, tc.workers, got, tc.want)
			}
		})
	}
}

// TestStealingAlone: one worker drains the whole loop, stealing the back
// half of the other's block each time its own runs dry.
func TestStealingAlone(t *testing.T) {
	cases := []struct {
		s    Stealing
		n    int
		want []Range
	}{
		{Stealing{}, 8, []Range{{0, 1}, {1, 2}, {2, 3}, {3, 4}, {6, 7}, {7, 8}, {5, 6}, {4, 5}}},
		{Stealing{MinGrain: 2}, 10, []Range{{0, 2}, {2, 4}, {4, 5}, {7, 9}, {9, 10}, {5, 7}}},
	}
	for _, tc := range cases {
		c := tc.s.Start(tc.n, 2)
		var got []Range
		for r, ok := c.Next(0); ok; r, ok = c.Next(0) {
			got = append(got, r)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%v.Start(%d, 2): worker 0 alone got %v; want %v", tc.s, tc.n, got, tc.want)
		}
		if r, ok := c.Next(1); ok {
			t.Errorf("worker 1 got %v after worker 0 took everything", r)
		}
	}
}

func TestGuidedSizes(t *testing.T) {
	// ⌈remaining/4⌉ each time: the classic guided sequence for n = 100.
	want := []int{25, 19, 14, 11, 8, 6, 5, 3, 3, 2, 1, 1, 1, 1}
	c := Guided{}.Start(100, 4)
	var got []int
	for r, ok := c.Next(0); ok; r, ok = c.Next(0) {
		got = append(got, r.Len())
	}
	if !slices.Equal(got, want) {
		t.Errorf("Guided{}.Start(100, 4) sizes = %v; want %v", got, want)
	}
}

// TestScheduleCoversOnce hammers each schedule from many goroutines at once
// and checks that every index is handed out exactly once, in non-empty
// chunks.
func TestScheduleCoversOnce(t *testing.T) {
	schedules := []Schedule{Static{}, Static{Chunk: 7}, Dynamic{}, Dynamic{Chunk: 16}, Guided{}, Guided{MinChunk: 5}, Stealing{}, Stealing{MinGrain: 3}}
	sizes := []struct{ n, workers int }{{0, 4}, {1, 4}, {1000, 1}, {1000, 3}, {4099, 8}}
	for _, s := range schedules {
		for _, sz := range sizes {
			t.Run(fmt.Sprintf("%v/n=%d/workers=%d", s, sz.n, sz.workers), func(t *testing.T) {
				c := s.Start(sz.n, sz.workers)
				seen := make([]atomic.Int32, sz.n)
				var empty atomic.Int32
				var wg sync.WaitGroup
				for w := range sz.workers {
					wg.Go(func() {
						for r, ok := c.Next(w); ok; r, ok = c.Next(w) {
							if r.Len() <= 0 {
								empty.Add(1)
							}
							for i := r.Lo; i < r.Hi; i++ {
								seen[i].Add(1)
							}
						}
						if _, ok := c.Next(w); ok {
							t.Errorf("worker %d got a chunk after Next said false", w)
						}
					})
				}
				wg.Wait()
				if e := empty.Load(); e > 0 {
					t.Errorf("%d empty chunks", e)
				}
				for i := range seen {
					if k := seen[i].Load(); k != 1 {
						t.Fatalf("index %d handed out %d times; want 1", i, k)
					}
				}
			})
		}
	}
}

func TestSchedulePanics(t *testing.T) {
	cases := []struct {
		name string
		call func()
		want string
	}{
		{"Static n < 0", func() { Static{}.Start(-1, 2) }, "balance: Static.Start with n = -1 < 0"},
		{"Dynamic workers < 1", func() { Dynamic{}.Start(5, 0) }, "balance: Dynamic.Start with workers = 0 < 1"},
		{"Guided workers < 1", func() { Guided{}.Start(5, -2) }, "balance: Guided.Start with workers = -2 < 1"},
		{"Next worker too big", func() { Static{}.Start(5, 2).Next(2) }, "balance: Next for worker 2 outside [0,2)"},
		{"Next worker negative", func() { Guided{}.Start(5, 2).Next(-1) }, "balance: Next for worker -1 outside [0,2)"},
		{"Dynamic Next worker too big", func() { Dynamic{}.Start(5, 1).Next(1) }, "balance: Next for worker 1 outside [0,1)"},
		{"Stealing n < 0", func() { Stealing{}.Start(-1, 2) }, "balance: Stealing.Start with n = -1 < 0"},
		{"Stealing Next worker too big", func() { Stealing{}.Start(5, 2).Next(2) }, "balance: Next for worker 2 outside [0,2)"},
		{"Loop n < 0", func() { Loop(context.Background(), -1, 2, Static{}, func(int, int) {}) }, "balance: Static.Start with n = -1 < 0"},
		{"Bounded limit < 1", func() { Bounded(context.Background(), 1, 0, nil) }, "balance: Bounded with limit = 0 < 1"},
		{"Bounded n < 0", func() { Bounded(context.Background(), -1, 1, nil) }, "balance: Bounded with n = -1 < 0"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := catchPanic(tc.call); got != tc.want {
				t.Errorf("panic = %q; want %q", got, tc.want)
			}
		})
	}
}

func TestScheduleString(t *testing.T) {
	cases := []struct {
		s    Schedule
		want string
	}{
		{Static{}, "static"}, {Static{Chunk: 8}, "static(8)"},
		{Dynamic{}, "dynamic(1)"}, {Dynamic{Chunk: 64}, "dynamic(64)"},
		{Guided{}, "guided(1)"}, {Guided{MinChunk: 4}, "guided(4)"},
		{Stealing{}, "stealing"}, {Stealing{MinGrain: 1}, "stealing"}, {Stealing{MinGrain: 4}, "stealing(min 4)"},
		{Stealing{MaxGrain: 64}, "stealing(max 64)"}, {Stealing{MinGrain: 4, MaxGrain: 64}, "stealing(min 4, max 64)"},
	}
	for _, tc := range cases {
		if got := fmt.Sprint(tc.s); got != tc.want {
			t.Errorf("fmt.Sprint(%#v) = %q; want %q", tc.s, got, tc.want)
		}
	}
}

func TestLoop(t *testing.T) {
	for _, s := range []Schedule{Static{}, Static{Chunk: 3}, Dynamic{Chunk: 5}, Guided{}, Stealing{}} {
		for _, workers := range []int{0, 1, 3, 8} {
			t.Run(fmt.Sprintf("%v/workers=%d", s, workers), func(t *testing.T) {
				const n = 1000
				var sum atomic.Int64
				err := Loop(context.Background(), n, workers, s, func(lo, hi int) {
					for i := lo; i < hi; i++ {
						sum.Add(int64(i))
					}
				})
				if err != nil {
					t.Fatalf("Loop(%d, %d, %v) = %v; want nil", n, workers, s, err)
				}
				if got, want := sum.Load(), int64(n*(n-1)/2); got != want {
					t.Errorf("Loop(%d, %d, %v) summed %d; want %d", n, workers, s, got, want)
				}
			})
		}
	}
}

func TestLoopCancelStopsBetweenChunks(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// The 5th chunk cancels, holding mu so that no other chunk can run
	// meanwhile (the canceller could be preempted before it cancels, while
	// the other worker ran the whole loop).
	var (
		mu     sync.Mutex
		chunks int
	)
	err := Loop(ctx, 1000, 2, Dynamic{Chunk: 10}, func(lo, hi int) {
		mu.Lock()
		defer mu.Unlock()
		chunks++
		if chunks == 5 {
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Loop after cancel = %v; want context.Canceled", err)
	}
	// The other worker may be in a chunk, or past its check of ctx, when
	// the cancel comes: one more chunk, then it stops.
	if chunks > 6 {
		t.Errorf("Loop ran %d chunks with a cancel in the 5th; want at most 6", chunks)
	}
}

func TestLoopPanic(t *testing.T) {
	var ran atomic.Int32
	got := catchAny(func() {
		Loop(context.Background(), 100, 4, Dynamic{}, func(lo, hi int) {
			ran.Add(1)
			if lo == 42 {
				panic("boom at 42")
			}
		})
	})
	if got != "boom at 42" {
		t.Errorf("Loop re-panicked with %v; want %q", got, "boom at 42")
	}
	if ran.Load() == 100 {
		t.Logf("all chunks ran before the panic was seen (allowed, but unusual)")
	}
}

func TestLoopNested(t *testing.T) {
	var sum atomic.Int64
	err := Loop(context.Background(), 8, 4, Dynamic{}, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			Loop(context.Background(), 100, 4, Guided{}, func(lo, hi int) {
				sum.Add(int64(hi - lo))
			})
		}
	})
	if err != nil || sum.Load() != 800 {
		t.Errorf("nested Loop = %v, sum %d; want nil, 800", err, sum.Load())
	}
}

// catchAny runs f and returns its panic value, or nil.
func catchAny(f func()) (v any) {
	defer func() { v = recover() }()
	f()
	return nil
}

// TestStealingRaces: workers of very different speeds drain a range-stealing
// loop together, so that steals race with claims and with each other; every
// index must still be handed out exactly once.
func TestStealingRaces(t *testing.T) {
	for _, grain := range []int{1, 3} {
		const n, workers = 20000, 4
		c := Stealing{MinGrain: grain}.Start(n, workers)
		seen := make([]atomic.Int32, n)
		var wg sync.WaitGroup
		for w := range workers {
			wg.Go(func() {
				for r, ok := c.Next(w); ok; r, ok = c.Next(w) {
					for i := r.Lo; i < r.Hi; i++ {
						seen[i].Add(1)
					}
					for range w * w { // worker w is about w² times slower
						runtime.Gosched()
					}
				}
			})
		}
		wg.Wait()
		for i := range seen {
			if k := seen[i].Load(); k != 1 {
				t.Fatalf("grain %d: index %d handed out %d times; want 1", grain, i, k)
			}
		}
		if s := c.(*stealChunks).finished.Load(); s == 0 {
			t.Errorf("grain %d: no steals; the test did not test them", grain)
		}
	}
}
