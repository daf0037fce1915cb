package schedule

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/worksteal/worksteal"
	"github.com/worksteal/worksteal/balance"
	"github.com/worksteal/worksteal/internal/testdeadline"
)

// poolSchedules are the schedules every pool test runs under; nil stands for
// Stealing{}.
var poolSchedules = []balance.Schedule{
	balance.Static{}, balance.Static{Chunk: 7}, balance.Dynamic{}, balance.Dynamic{Chunk: 16}, balance.Guided{}, balance.Guided{MinChunk: 5},
	balance.Stealing{}, balance.Stealing{MinGrain: 4, MaxGrain: 32}, nil,
}

func newPool(t testing.TB, workers int) *worksteal.Pool {
	t.Helper()
	p, err := worksteal.New(worksteal.Config{Workers: workers})
	if err != nil {
		t.Fatalf("worksteal.New(%d workers): %v", workers, err)
	}
	t.Cleanup(func() {
		if err := p.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return p
}

// deadline fails the test (with a panic, since it fires on its own
// goroutine) if stop is not called before the test's own deadline nears
// (testdeadline.Left): a deadlock shows up as a failure, not a hung test
// binary, and a loaded machine only makes the test slower.
func deadline(t testing.TB) (stop func()) {
	d := testdeadline.Left(t)
	done := make(chan struct{})
	go func() {
		select {
		case <-done:
		case <-time.After(d):
			panic("balance test still running near its deadline (" + d.String() + " after it began): deadlock?")
		}
	}()
	return func() { close(done) }
}

// TestForExactlyOnce runs loops of several sizes on pools of several sizes
// under every schedule and checks that each index runs exactly once, in
// non-empty chunks, and that the measurements add up.
func TestForExactlyOnce(t *testing.T) {
	defer deadline(t)()
	for _, workers := range []int{1, 2, 4} {
		p := newPool(t, workers)
		for _, s := range poolSchedules {
			for _, n := range []int{0, 1, 3, 1000, 4099} {
				t.Run(fmt.Sprintf("workers=%d/%v/n=%d", workers, s, n), func(t *testing.T) {
					seen := make([]atomic.Int32, n)
					var empty atomic.Int32
					st, err := ForPool(context.Background(), p, n, s, func(w *worksteal.Worker, lo, hi int) {
						if hi <= lo {
							empty.Add(1)
						}
						for i := lo; i < hi; i++ {
							seen[i].Add(1)
						}
					})
					if err != nil {
						t.Fatalf("ForPool = %v; want nil", err)
					}
					if e := empty.Load(); e > 0 {
						t.Errorf("%d empty chunks", e)
					}
					for i := range seen {
						if k := seen[i].Load(); k != 1 {
							t.Fatalf("index %d ran %d times; want 1", i, k)
						}
					}
					checkStats(t, st, n, workers)
				})
			}
		}
	}
}

// checkStats checks the invariants of a complete run's LoopStats.
func checkStats(t *testing.T, st LoopStats, n, workers int) {
	t.Helper()
	if st.N != n || st.Done != n {
		t.Errorf("N, Done = %d, %d; want %d, %d", st.N, st.Done, n, n)
	}
	if len(st.Busy) < workers || len(st.Chunks) != len(st.Busy) || len(st.Iterations) != len(st.Busy) {
		t.Errorf("len(Busy, Chunks, Iterations) = %d, %d, %d; want ≥ %d, all equal", len(st.Busy), len(st.Chunks), len(st.Iterations), workers)
	}
	iters := 0
	for i := range st.Iterations {
		iters += st.Iterations[i]
		if st.Iterations[i] < st.Chunks[i] {
			t.Errorf("worker %d ran %d iterations in %d chunks", i, st.Iterations[i], st.Chunks[i])
		}
		if st.Busy[i] < 0 || st.Busy[i] > st.Wall {
			t.Errorf("worker %d busy %v outside [0, wall %v]", i, st.Busy[i], st.Wall)
		}
	}
	if iters != n {
		t.Errorf("Σ Iterations = %d; want %d", iters, n)
	}
	if c := st.TotalChunks(); (n > 0) != (c > 0) {
		t.Errorf("TotalChunks = %d for n = %d", c, n)
	}
	if u := st.Utilization(); u < 0 || u > 1 {
		t.Errorf("Utilization = %g; want in [0, 1]", u)
	}
}

// TestForChunkCounts: the schedules' chunk counts are deterministic (or
// bounded) however the chunks land on the workers.
func TestForChunkCounts(t *testing.T) {
	p := newPool(t, 2)
	cases := []struct {
		s        balance.Schedule
		n        int
		min, max int
	}{
		{balance.Static{}, 100, 2, 2},
		{balance.Static{Chunk: 10}, 100, 10, 10},
		{balance.Dynamic{Chunk: 10}, 100, 10, 10},
		{balance.Dynamic{Chunk: 30}, 100, 4, 4},
		{balance.Guided{}, 100, 2, 100},
		{balance.Static{}, 1, 1, 1}, // one driver only: n < workers
		{balance.Stealing{}, 100, 1, 100},
		{balance.Stealing{MinGrain: 50}, 100, 1, 2},
		{&balance.Stealing{MinGrain: 50}, 100, 1, 2},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprintf("%v/n=%d", tc.s, tc.n), func(t *testing.T) {
			st, err := ForPool(context.Background(), p, tc.n, tc.s, func(*worksteal.Worker, int, int) {})
			if err != nil {
				t.Fatal(err)
			}
			if c := st.TotalChunks(); c < tc.min || c > tc.max {
				t.Errorf("TotalChunks = %d; want in [%d, %d]", c, tc.min, tc.max)
			}
			if st.Schedule != fmt.Sprint(tc.s) {
				t.Errorf("Schedule = %q; want %q", st.Schedule, fmt.Sprint(tc.s))
			}
		})
	}
}

// TestAsStealing: a *Stealing runs the runtime loop too, not the
// range-stealing Chunker.
func TestAsStealing(t *testing.T) {
	cases := []struct {
		s    balance.Schedule
		want bool
	}{
		{balance.Stealing{MinGrain: 3}, true}, {&balance.Stealing{MinGrain: 3}, true}, {(*balance.Stealing)(nil), false},
		{balance.Dynamic{}, false}, {&balance.Guided{}, false},
	}
	for _, tc := range cases {
		st, ok := asStealing(tc.s)
		if ok != tc.want || ok && st.MinGrain != 3 {
			t.Errorf("asStealing(%#v) = %v, %v; want ok = %v", tc.s, st, ok, tc.want)
		}
	}
}

// TestForNested runs loops three deep under every pairing of schedules on a
// 2-worker pool: a worker that waits for an inner loop must keep running
// tasks, so nothing deadlocks even when all workers wait at once.
func TestForNested(t *testing.T) {
	defer deadline(t)()
	p := newPool(t, 2)
	for _, outer := range poolSchedules {
		for _, inner := range poolSchedules {
			t.Run(fmt.Sprintf("%v/%v", outer, inner), func(t *testing.T) {
				var sum atomic.Int64
				st, err := ForPool(context.Background(), p, 6, outer, func(w *worksteal.Worker, lo, hi int) {
					for range hi - lo {
						For(w, 5, inner, func(w *worksteal.Worker, lo, hi int) {
							for range hi - lo {
								For(w, 10, outer, func(w *worksteal.Worker, lo, hi int) {
									sum.Add(int64(hi - lo))
								})
							}
						})
					}
				})
				if err != nil || sum.Load() != 300 || st.Done != 6 {
					t.Errorf("nested loops = %v, sum %d, outer done %d; want nil, 300, 6", err, sum.Load(), st.Done)
				}
			})
		}
	}
}

// TestForInsideScope: For from a task spawned in a Scope, and from inside
// a Join, on every worker at once.
func TestForInsideScope(t *testing.T) {
	defer deadline(t)()
	p := newPool(t, 2)
	var sum atomic.Int64
	err := p.Scope(context.Background(), func(w *worksteal.Worker, s *worksteal.Scope) error {
		for range 8 {
			s.Spawn(w, func(w *worksteal.Worker) {
				worksteal.Join(w, func(w *worksteal.Worker) int {
					For(w, 100, balance.Dynamic{Chunk: 3}, func(_ *worksteal.Worker, lo, hi int) { sum.Add(int64(hi - lo)) })
					return 0
				}, func(w *worksteal.Worker) int {
					For(w, 100, balance.Static{}, func(_ *worksteal.Worker, lo, hi int) { sum.Add(int64(hi - lo)) })
					return 0
				})
			})
		}
		return nil
	})
	if err != nil || sum.Load() != 1600 {
		t.Errorf("loops in tasks = %v, sum %d; want nil, 1600", err, sum.Load())
	}
}

func TestForContextCancel(t *testing.T) {
	p := newPool(t, 2)
	for _, s := range poolSchedules {
		if s == (balance.Static{}) {
			continue // one chunk per worker: nothing is left to skip once both run
		}
		t.Run(fmt.Sprint(s), func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			// The first chunk cancels, holding mu so that no other chunk can
			// run meanwhile (the canceller could be preempted before it
			// cancels, while the other worker ran the whole loop).
			var (
				mu     sync.Mutex
				chunks int
			)
			st, err := ForPool(ctx, p, 1_000_000, s, func(w *worksteal.Worker, lo, hi int) {
				mu.Lock()
				defer mu.Unlock()
				chunks++
				if chunks == 1 {
					cancel()
				}
			})
			if !errors.Is(err, context.Canceled) {
				t.Errorf("ForPool after cancel = %v; want context.Canceled", err)
			}
			if st.Done >= st.N {
				t.Errorf("Done = %d of %d after cancel; want fewer", st.Done, st.N)
			}
			// The other worker may be in a chunk, or past its check of ctx,
			// when the cancel comes: one more chunk, then it stops.
			if chunks > 3 {
				t.Errorf("%d chunks ran with a cancel in the 1st; want at most 3", chunks)
			}
		})
	}
}

func TestForContextDoneBefore(t *testing.T) {
	p := newPool(t, 2)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, s := range poolSchedules {
		t.Run(fmt.Sprint(s), func(t *testing.T) {
			var ran atomic.Int32
			st, err := ForPool(ctx, p, 100, s, func(*worksteal.Worker, int, int) { ran.Add(1) })
			if !errors.Is(err, context.Canceled) || st.Done != 0 || ran.Load() != 0 {
				t.Errorf("ForPool on a done ctx = %v, done %d, %d chunks; want Canceled, 0, 0", err, st.Done, ran.Load())
			}
		})
	}
}

// TestForContextDoneAfter: a ctx that is done only once every iteration
// has run does not make the loop fail.
func TestForContextDoneAfter(t *testing.T) {
	p := newPool(t, 2)
	for _, s := range poolSchedules {
		t.Run(fmt.Sprint(s), func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var left atomic.Int32
			left.Store(10)
			_, err := ForPool(ctx, p, 10, s, func(_ *worksteal.Worker, lo, hi int) {
				if left.Add(int32(lo-hi)) == 0 {
					cancel() // the last iteration
				}
			})
			if err != nil {
				t.Errorf("ForPool with ctx done by the last iteration = %v; want nil", err)
			}
		})
	}
}

func TestForPanic(t *testing.T) {
	p := newPool(t, 2)
	for _, s := range poolSchedules {
		t.Run(fmt.Sprint(s), func(t *testing.T) {
			got := catchAny(func() {
				ForPool(context.Background(), p, 100, s, func(w *worksteal.Worker, lo, hi int) {
					if lo <= 42 && 42 < hi {
						panic("boom at 42")
					}
				})
			})
			pe, ok := got.(*worksteal.PanicError)
			if !ok || pe.Value != "boom at 42" {
				t.Errorf("ForPool re-panicked with %#v; want a *worksteal.PanicError of %q", got, "boom at 42")
			}
		})
	}
	// The pool is still usable.
	st, err := ForPool(context.Background(), p, 10, balance.Dynamic{}, func(*worksteal.Worker, int, int) {})
	if err != nil || st.Done != 10 {
		t.Errorf("ForPool after a panic = %v, done %d; want nil, 10", err, st.Done)
	}
}

func TestForPoolErrors(t *testing.T) {
	p, err := worksteal.New(worksteal.Config{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if got := catchPanic(func() { ForPool(context.Background(), p, -1, balance.Static{}, nil) }); got != "schedule: For with n = -1 < 0" {
		t.Errorf("ForPool(n = -1) panic = %q", got)
	}
	var inner string
	ForPool(context.Background(), p, 1, balance.Static{}, func(w *worksteal.Worker, lo, hi int) {
		inner = catchPanic(func() { For(w, -3, balance.Dynamic{}, nil) })
	})
	if inner != "schedule: For with n = -3 < 0" {
		t.Errorf("For(n = -3) panic = %q", inner)
	}
	p.Close()
	if _, err := ForPool(context.Background(), p, 10, balance.Static{}, func(*worksteal.Worker, int, int) {}); !errors.Is(err, worksteal.ErrClosed) {
		t.Errorf("ForPool on a closed pool = %v; want ErrClosed", err)
	}
}

// TestForBusy: a loop whose chunks sleep a known time is measured within
// the clock's reach: busy time adds up to at least the sleeps, and a static
// loop of equal chunks on 2 workers has no reason to be very uneven.
func TestForBusy(t *testing.T) {
	p := newPool(t, 2)
	st, err := ForPool(context.Background(), p, 4, balance.Static{Chunk: 1}, func(*worksteal.Worker, int, int) {
		time.Sleep(2 * time.Millisecond)
	})
	if err != nil {
		t.Fatal(err)
	}
	var total time.Duration
	for _, b := range st.Busy {
		total += b
	}
	if total < 8*time.Millisecond {
		t.Errorf("Σ Busy = %v; want ≥ 8ms of sleeps", total)
	}
	if st.Wall < 4*time.Millisecond {
		t.Errorf("Wall = %v; want ≥ 4ms (2 chunks of 2ms per driver)", st.Wall)
	}
	if !slices.Equal(st.Iterations, []int{2, 2}) && !slices.Equal(st.Iterations, []int{4, 0}) && !slices.Equal(st.Iterations, []int{0, 4}) &&
		!slices.Equal(st.Iterations, []int{3, 1}) && !slices.Equal(st.Iterations, []int{1, 3}) {
		t.Errorf("Iterations = %v; want a split of 4 between 2 workers", st.Iterations)
	}
}

func TestLoopStatsMethods(t *testing.T) {
	ms := time.Millisecond
	st := LoopStats{
		Schedule: "dynamic(8)", N: 100, Done: 100, Wall: 10 * ms,
		Busy: []time.Duration{9 * ms, 6 * ms, 12 * ms}, Chunks: []int{5, 4, 3}, Iterations: []int{40, 35, 25},
	}
	if got, want := st.Idle(), []time.Duration{1 * ms, 4 * ms, 0}; !slices.Equal(got, want) {
		t.Errorf("Idle = %v; want %v", got, want)
	}
	if got, want := st.Imbalance(), 12.0/9; !agreeF(got, want) {
		t.Errorf("Imbalance = %g; want %g", got, want)
	}
	if got, want := st.Utilization(), 27.0/32; !agreeF(got, want) {
		t.Errorf("Utilization = %g; want %g", got, want)
	}
	if got := st.TotalChunks(); got != 12 {
		t.Errorf("TotalChunks = %d; want 12", got)
	}
	if got, want := st.String(), "dynamic(8): 100/100 iterations in 12 chunks, wall 10ms, imbalance 1.33, utilization 84%"; got != want {
		t.Errorf("String = %q; want %q", got, want)
	}
	r := balance.Analyze(st.Profile())
	if !agreeF(r.Imbalance, st.Imbalance()) || !agreeF(r.Utilization, st.Utilization()) {
		t.Errorf("Analyze(Profile()) = imbalance %g, utilization %g; want %g, %g", r.Imbalance, r.Utilization, st.Imbalance(), st.Utilization())
	}
	if (LoopStats{}).Imbalance() != 1 || (LoopStats{}).Utilization() != 0 {
		t.Errorf("empty LoopStats: imbalance %g, utilization %g; want 1, 0", (LoopStats{}).Imbalance(), (LoopStats{}).Utilization())
	}
}

func agreeF(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }

// TestRecorderSpares: chunks run on spare workers (IDs ≥ Workers()) get
// their own entries after the regular workers, in ID order.
func TestRecorderSpares(t *testing.T) {
	r := newRecorder(2)
	for _, id := range []int{7, 0, 3, 7} {
		s := r.slot(id)
		s.busy.Add(int64(time.Millisecond))
		s.chunks.Add(1)
		s.iters.Add(10)
	}
	st := r.stats("x", 40, 5*time.Millisecond)
	if !slices.Equal(st.Chunks, []int{1, 0, 1, 2}) || !slices.Equal(st.Iterations, []int{10, 0, 10, 20}) || st.Done != 40 {
		t.Errorf("stats with spares 3 and 7: chunks %v, iterations %v, done %d; want [1 0 1 2], [10 0 10 20], 40", st.Chunks, st.Iterations, st.Done)
	}
}

// TestForBlockingSpares: a body that blocks through Worker.Blocking lets
// spares run chunks; their measurements are kept.
func TestForBlockingSpares(t *testing.T) {
	defer deadline(t)()
	p := newPool(t, 2)
	for _, s := range []balance.Schedule{balance.Dynamic{}, balance.Stealing{}} {
		st, err := ForPool(context.Background(), p, 40, s, func(w *worksteal.Worker, lo, hi int) {
			w.Blocking(func() { time.Sleep(100 * time.Microsecond) })
		})
		if err != nil {
			t.Fatal(err)
		}
		checkStats(t, st, 40, 2)
	}
}
