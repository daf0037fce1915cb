package balance

import (
	"context"
	"errors"
	"slices"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

const ms = time.Millisecond

// sleepTask returns after d with v, or earlier with ctx's error. It counts
// the calls that saw their ctx cancelled.
func sleepTask(d time.Duration, v int, cancelled *atomic.Int32) Task[int] {
	return func(ctx context.Context) (int, error) {
		select {
		case <-time.After(d):
			return v, nil
		case <-ctx.Done():
			if cancelled != nil {
				cancelled.Add(1)
			}
			return 0, ctx.Err()
		}
	}
}

func TestTimeoutOr(t *testing.T) {
	cases := []struct {
		name         string
		timeout      *Timeout
		task         Task[int]
		want         int
		wantErr      error
		wantTook     time.Duration
		wantTimeouts int64
	}{
		{"nil timeout runs the task", nil, sleepTask(5*time.Second, 1, nil), 1, nil, 5 * time.Second, 0},
		{"zero value has no limit", &Timeout{}, sleepTask(5*time.Second, 1, nil), 1, nil, 5 * time.Second, 0},
		{"fast task", &Timeout{After: time.Second}, sleepTask(100*ms, 1, nil), 1, nil, 100 * ms, 0},
		{"slow task gets the fallback", &Timeout{After: time.Second}, sleepTask(time.Hour, 1, nil), -1, nil, time.Second, 1},
		{"task error is returned", &Timeout{After: time.Second},
			func(ctx context.Context) (int, error) { time.Sleep(10 * ms); return 0, errBoom }, 0, errBoom, 10 * ms, 0},
		{"task that ignores ctx is not waited for", &Timeout{After: time.Second},
			func(ctx context.Context) (int, error) { time.Sleep(time.Hour); return 1, nil }, -1, nil, time.Second, 1},
		{"task giving up at its deadline is a timeout", &Timeout{After: time.Second},
			func(ctx context.Context) (int, error) { <-ctx.Done(); return 0, ctx.Err() }, -1, nil, time.Second, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				start := time.Now()
				got, err := TimeoutOr(t.Context(), tc.timeout, -1, tc.task)
				took := time.Since(start)
				if got != tc.want || err != tc.wantErr {
					t.Errorf("TimeoutOr = %d, %v; want %d, %v", got, err, tc.want, tc.wantErr)
				}
				if took != tc.wantTook {
					t.Errorf("TimeoutOr took %v; want %v", took, tc.wantTook)
				}
				if tc.timeout != nil && tc.timeout.Timeouts() != tc.wantTimeouts {
					t.Errorf("Timeouts() = %d; want %d", tc.timeout.Timeouts(), tc.wantTimeouts)
				}
				time.Sleep(2 * time.Hour) // let an abandoned task that ignores its ctx end
			})
		})
	}
}

func TestTimeoutOrCancelsWithCause(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var cause error
		var deadline time.Time
		start := time.Now()
		TimeoutOr(t.Context(), &Timeout{After: 2 * time.Second}, 0, func(ctx context.Context) (int, error) {
			deadline, _ = ctx.Deadline()
			<-ctx.Done()
			cause = context.Cause(ctx)
			return 0, ctx.Err()
		})
		synctest.Wait() // the task has returned
		if cause != ErrTimeout {
			t.Errorf("task ctx cause = %v; want ErrTimeout", cause)
		}
		if want := start.Add(2 * time.Second); !deadline.Equal(want) {
			t.Errorf("task ctx deadline = %v; want %v", deadline, want)
		}
	})
}

func TestTimeoutOrParentCancel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		time.AfterFunc(time.Second, cancel)
		got, err := TimeoutOr(ctx, &Timeout{After: time.Minute}, -1, sleepTask(time.Hour, 1, nil))
		if got != 0 || !errors.Is(err, context.Canceled) {
			t.Errorf("TimeoutOr after parent cancel = %d, %v; want 0, context.Canceled", got, err)
		}
	})
}

func TestTimeoutOrPanic(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		got := catchAny(func() {
			TimeoutOr(t.Context(), &Timeout{After: time.Second}, 0, func(ctx context.Context) (int, error) {
				panic("task panicked")
			})
		})
		if got != "task panicked" {
			t.Errorf("TimeoutOr re-panicked with %v; want %q", got, "task panicked")
		}
	})
}

// TestTimeoutRelative: with Factor 2 the limit is 200% of the median of
// the tasks finished so far, once there are MinSamples of them.
func TestTimeoutRelative(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		to := &Timeout{Factor: 2, MinSamples: 3}
		steps := []struct {
			took      time.Duration // how long the task would take
			wantLimit time.Duration // the limit before the call
			want      int
		}{
			{100 * ms, 0, 1}, // warming up: no limit
			{100 * ms, 0, 1},
			{400 * ms, 0, 1},        // still no limit: a slow one passes
			{150 * ms, 200 * ms, 1}, // median 100ms → limit 200ms
			{time.Hour, 250 * ms, -1},
			{time.Hour, 300 * ms, -1}, // the cut task counts at its limit, 250ms: median 150ms
		}
		for i, s := range steps {
			if got := to.Limit(); got != s.wantLimit {
				t.Errorf("step %d: Limit() = %v; want %v", i, got, s.wantLimit)
			}
			got, err := TimeoutOr(t.Context(), to, -1, sleepTask(s.took, 1, nil))
			if got != s.want || err != nil {
				t.Errorf("step %d: TimeoutOr = %d, %v; want %d, nil", i, got, err, s.want)
			}
		}
		if got := to.Timeouts(); got != 2 {
			t.Errorf("Timeouts() = %d; want 2", got)
		}
	})
}

func TestTimeoutSharedHistory(t *testing.T) {
	h := NewHistory(0)
	for range 10 {
		h.Observe(time.Second)
	}
	to := &Timeout{Factor: 1.5, History: h}
	if got := to.Limit(); got != 1500*ms {
		t.Errorf("Limit() with a shared history of 1s tasks = %v; want 1.5s", got)
	}
}

func TestHedged(t *testing.T) {
	// Each case gives the durations of the first copy and the hedge; the
	// hedge starts after 100ms.
	cases := []struct {
		name          string
		first, second time.Duration
		firstErr      error // returned by the first copy when it ends
		secondErr     error
		want          int
		wantErr       error
		wantTook      time.Duration
		wantStats     HedgeStats
	}{
		{"first copy in time: no hedge", 80 * ms, 0, nil, nil, 1, nil, 80 * ms, HedgeStats{}},
		{"hedge wins", time.Second, 50 * ms, nil, nil, 2, nil, 150 * ms,
			HedgeStats{Started: 1, Won: 1, Wasted: 150 * ms}},
		{"first copy wins after the hedge started", 130 * ms, time.Second, nil, nil, 1, nil, 130 * ms,
			HedgeStats{Started: 1, Won: 0, Wasted: 30 * ms}},
		{"first copy fails early: no hedge", 20 * ms, 0, errBoom, nil, 0, errBoom, 20 * ms, HedgeStats{}},
		{"first copy fails late: hedge still wins", 300 * ms, 50 * ms, errBoom, nil, 2, nil, 150 * ms,
			HedgeStats{Started: 1, Won: 1, Wasted: 150 * ms}},
		{"failed hedge does not end the race", 300 * ms, 50 * ms, nil, errBoom, 1, nil, 300 * ms,
			HedgeStats{Started: 1, Won: 0, Wasted: 50 * ms}},
		{"both fail: the first copy's error", 300 * ms, 50 * ms, errBoom, errors.New("second"), 0, errBoom, 300 * ms,
			HedgeStats{Started: 1, Won: 0, Wasted: 50 * ms}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				h := &Hedge{Delay: 100 * ms}
				var calls, cancelled atomic.Int32
				task := func(ctx context.Context) (int, error) {
					k := calls.Add(1)
					d, v, err := tc.first, 1, tc.firstErr
					if k == 2 {
						d, v, err = tc.second, 2, tc.secondErr
					}
					select {
					case <-time.After(d):
						if err != nil {
							return 0, err
						}
						return v, nil
					case <-ctx.Done():
						cancelled.Add(1)
						return 0, ctx.Err()
					}
				}
				start := time.Now()
				got, err := Hedged(t.Context(), h, task)
				took := time.Since(start)
				if got != tc.want || err != tc.wantErr {
					t.Errorf("Hedged = %d, %v; want %d, %v", got, err, tc.want, tc.wantErr)
				}
				if took != tc.wantTook {
					t.Errorf("Hedged took %v; want %v", took, tc.wantTook)
				}
				synctest.Wait() // the loser, if any, has seen its cancellation and returned
				if got := h.Stats(); got != tc.wantStats {
					t.Errorf("Stats() = %+v; want %+v", got, tc.wantStats)
				}
				// A copy still running when the race was decided is cancelled.
				wantCancelled := int32(0)
				if tc.wantStats.Started == 1 && tc.wantErr == nil && max(tc.first, tc.second+100*ms) > took {
					wantCancelled = 1
				}
				if got := cancelled.Load(); got != wantCancelled {
					t.Errorf("%d copies saw their ctx cancelled; want %d", got, wantCancelled)
				}
			})
		})
	}
}

// TestHedgedQuantileRule: the zero Hedge starts no copy until 10 tasks have
// finished, then hedges a task that runs past 1.5 × p75.
func TestHedgedQuantileRule(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := &Hedge{}
		for i := range 10 {
			if _, ok := h.Threshold(); ok {
				t.Fatalf("Threshold() ok after %d samples; want no hedging before 10", i)
			}
			// Warm-up: 80..170ms, p75 = 147.5ms.
			d := time.Duration(80+10*i) * ms
			if got, err := Hedged(t.Context(), h, sleepTask(d, 1, nil)); got != 1 || err != nil {
				t.Fatalf("warm-up Hedged = %d, %v; want 1, nil", got, err)
			}
		}
		thr, ok := h.Threshold()
		if want := time.Duration(1.5 * 147.5 * float64(ms)); !ok || thr != want {
			t.Fatalf("Threshold() = %v, %v; want %v, true", thr, ok, want)
		}
		var calls atomic.Int32
		start := time.Now()
		got, err := Hedged(t.Context(), h, func(ctx context.Context) (int, error) {
			if calls.Add(1) == 1 {
				return sleepTask(time.Hour, 1, nil)(ctx) // a straggler
			}
			return sleepTask(100*ms, 2, nil)(ctx)
		})
		if took := time.Since(start); got != 2 || err != nil || took != thr+100*ms {
			t.Errorf("Hedged on a straggler = %d, %v after %v; want 2, nil after %v", got, err, took, thr+100*ms)
		}
		synctest.Wait()
		if s := h.Stats(); s.Started != 1 || s.Won != 1 {
			t.Errorf("Stats() = %+v; want 1 started, 1 won", s)
		}
	})
}

func TestHedgedParentCancel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		time.AfterFunc(300*ms, cancel)
		h := &Hedge{Delay: 100 * ms}
		var cancelled atomic.Int32
		got, err := Hedged(ctx, h, sleepTask(time.Hour, 1, &cancelled))
		if got != 0 || !errors.Is(err, context.Canceled) {
			t.Errorf("Hedged after cancel = %d, %v; want 0, context.Canceled", got, err)
		}
		synctest.Wait()
		if s := h.Stats(); s.Started != 1 || s.Won != 0 || s.Wasted != 500*ms || cancelled.Load() != 2 {
			t.Errorf("Stats() = %+v, %d cancelled; want 1 started, 0 won, 500ms wasted, both cancelled", s, cancelled.Load())
		}
	})
}

func TestHedgedPanic(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		got := catchAny(func() {
			Hedged(t.Context(), &Hedge{Delay: time.Second}, func(ctx context.Context) (int, error) {
				panic("copy panicked")
			})
		})
		if got != "copy panicked" {
			t.Errorf("Hedged re-panicked with %v; want %q", got, "copy panicked")
		}
	})
}

func TestHedgedNil(t *testing.T) {
	got, err := Hedged(context.Background(), nil, func(context.Context) (int, error) { return 7, nil })
	if got != 7 || err != nil {
		t.Errorf("Hedged(nil hedge) = %d, %v; want 7, nil", got, err)
	}
}

// TestHedgedConcurrent shares one Hedge among many calls: its counters sum
// over all of them.
func TestHedgedConcurrent(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := &Hedge{Delay: 100 * ms}
		_, err := BoundedMap(t.Context(), 20, 20, func(ctx context.Context, i int) (int, error) {
			// Odd calls run 150ms, past the 100ms delay; even ones 50ms.
			return Hedged(ctx, h, sleepTask(time.Duration(50+100*(i%2))*ms, i, nil))
		})
		if err != nil {
			t.Fatalf("BoundedMap of Hedged = %v", err)
		}
		synctest.Wait()
		// Odd calls take 150ms > 100ms: 10 hedges; each copy takes 150ms, so
		// the first copy wins at 150ms and the hedge wastes 50ms.
		if s := h.Stats(); s.Started != 10 || s.Won != 0 || s.Wasted != 10*50*ms {
			t.Errorf("Stats() = %+v; want 10 started, 0 won, 500ms wasted", s)
		}
	})
}

func TestHistory(t *testing.T) {
	var zero History
	if zero.Len() != 0 || zero.Quantile(0.5) != 0 || len(zero.Durations()) != 0 {
		t.Errorf("zero History: Len %d, Quantile(0.5) %v, Durations %v; want empty", zero.Len(), zero.Quantile(0.5), zero.Durations())
	}
	h := NewHistory(4)
	for _, d := range []time.Duration{5, 1, 4, 2} {
		h.Observe(d)
	}
	if got := h.Quantile(0.5); got != 3 {
		t.Errorf("Quantile(0.5) of [5 1 4 2] = %v; want 3", got)
	}
	h.Observe(10) // evicts 5
	h.Observe(0)  // evicts 1
	if got, want := h.Durations(), []time.Duration{4, 2, 10, 0}; !slices.Equal(got, want) {
		t.Errorf("Durations() = %v; want %v", got, want)
	}
	if got := h.Len(); got != 4 {
		t.Errorf("Len() = %d; want 4", got)
	}
	cases := []struct {
		q    float64
		want time.Duration
	}{{0, 0}, {0.5, 3}, {1, 10}, {0.75, 5}}
	for _, tc := range cases {
		if got := h.Quantile(tc.q); got != tc.want {
			t.Errorf("Quantile(%g) of [0 2 4 10] = %v; want %v", tc.q, got, tc.want)
		}
	}
	// Same definition as the package-level Quantile.
	if got, want := float64(h.Quantile(0.3)), Quantile(h.Durations(), 0.3); got != float64(int64(want)) {
		t.Errorf("History.Quantile(0.3) = %v; Quantile = %v", got, want)
	}
	if msg := catchPanic(func() { h.Quantile(2) }); msg != "balance: History.Quantile with q outside [0, 1]" {
		t.Errorf("Quantile(2) panic = %q", msg)
	}
}

func TestThresholdEdges(t *testing.T) {
	instant := NewHistory(0)
	for range 20 {
		instant.Observe(0)
	}
	cases := []struct {
		name   string
		h      *Hedge
		want   time.Duration
		wantOK bool
	}{
		{"fixed delay", &Hedge{Delay: time.Second}, time.Second, true},
		{"fixed delay ignores history", &Hedge{Delay: time.Second, History: instant}, time.Second, true},
		{"too few samples", &Hedge{}, 0, false},
		{"instant tasks: no hedging", &Hedge{History: instant}, 0, false},
		{"custom rule", &Hedge{Multiplier: 2, Quantile: 0.5, MinSamples: 1, History: historyOf(10 * ms)}, 20 * ms, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got, ok := tc.h.Threshold(); got != tc.want || ok != tc.wantOK {
				t.Errorf("Threshold() = %v, %v; want %v, %v", got, ok, tc.want, tc.wantOK)
			}
		})
	}
	if got := (&Timeout{After: time.Second, Factor: 2, MinSamples: 1, History: instant}).Limit(); got != 0 {
		t.Errorf("Timeout.Limit() with a zero median = %v; want 0 (no limit)", got)
	}
}

func historyOf(ds ...time.Duration) *History {
	h := NewHistory(0)
	for _, d := range ds {
		h.Observe(d)
	}
	return h
}
