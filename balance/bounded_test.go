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

var errBoom = errors.New("boom")

func TestBoundedLimit(t *testing.T) {
	cases := []struct {
		name     string
		n, limit int
		wantTime time.Duration // each task sleeps 1s: ⌈n/limit⌉ rounds
	}{
		{"no tasks", 0, 3, 0},
		{"limit 1 is sequential", 4, 1, 4 * time.Second},
		{"limit 3", 10, 3, 4 * time.Second},
		{"limit above n", 5, 100, time.Second},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var inFlight, peak, ran atomic.Int32
				start := time.Now()
				err := Bounded(t.Context(), tc.n, tc.limit, func(ctx context.Context, i int) error {
					now := inFlight.Add(1)
					for p := peak.Load(); now > p && !peak.CompareAndSwap(p, now); p = peak.Load() {
					}
					time.Sleep(time.Second)
					inFlight.Add(-1)
					ran.Add(1)
					return nil
				})
				if err != nil {
					t.Fatalf("Bounded(%d, %d) = %v; want nil", tc.n, tc.limit, err)
				}
				if got := time.Since(start); got != tc.wantTime {
					t.Errorf("Bounded(%d, %d) took %v; want %v", tc.n, tc.limit, got, tc.wantTime)
				}
				if got, want := int(peak.Load()), min(tc.n, tc.limit); got != want {
					t.Errorf("Bounded(%d, %d) peak in flight %d; want %d", tc.n, tc.limit, got, want)
				}
				if int(ran.Load()) != tc.n {
					t.Errorf("Bounded(%d, %d) ran %d tasks; want %d", tc.n, tc.limit, ran.Load(), tc.n)
				}
			})
		})
	}
}

func TestBoundedFirstErrorCancels(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var started, cancelled atomic.Int32
		begin := time.Now()
		// Tasks 0, 2 and 3 would run for an hour; task 1 fails after a
		// second, which must cancel them and stop further launches.
		err := Bounded(t.Context(), 100, 4, func(ctx context.Context, i int) error {
			started.Add(1)
			if i == 1 {
				time.Sleep(time.Second)
				return errBoom
			}
			select {
			case <-time.After(time.Hour):
				return nil
			case <-ctx.Done():
				cancelled.Add(1)
				return ctx.Err() // a later error: dropped
			}
		})
		if err != errBoom {
			t.Errorf("Bounded = %v; want the first error %v", err, errBoom)
		}
		if got := time.Since(begin); got != time.Second {
			t.Errorf("Bounded returned after %v; want 1s", got)
		}
		// The launcher may win one more slot in the instant of the failure;
		// that task then sees a cancelled ctx at once.
		if s, c := started.Load(), cancelled.Load(); s > 5 || c != s-1 {
			t.Errorf("started %d, cancelled %d; want at most 5 started, all but the failed one cancelled", s, c)
		}
	})
}

func TestBoundedParentCancel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		time.AfterFunc(1500*time.Millisecond, cancel)
		var ran atomic.Int32
		err := Bounded(ctx, 10, 2, func(ctx context.Context, i int) error {
			time.Sleep(time.Second)
			ran.Add(1)
			return nil
		})
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Bounded after parent cancel = %v; want context.Canceled", err)
		}
		if got := ran.Load(); got != 4 {
			t.Errorf("ran %d tasks; want 4 (two rounds of 2 before the cancel at 1.5s)", got)
		}
	})
}

func TestBoundedPanic(t *testing.T) {
	got := catchAny(func() {
		Bounded(context.Background(), 10, 3, func(ctx context.Context, i int) error {
			if i == 2 {
				panic("task 2 panicked")
			}
			return nil
		})
	})
	if got != "task 2 panicked" {
		t.Errorf("Bounded re-panicked with %v; want %q", got, "task 2 panicked")
	}
}

func TestBoundedNested(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var leaves atomic.Int32
		err := Bounded(t.Context(), 3, 1, func(ctx context.Context, i int) error {
			return Bounded(ctx, 3, 1, func(ctx context.Context, j int) error {
				time.Sleep(time.Millisecond)
				leaves.Add(1)
				return nil
			})
		})
		if err != nil || leaves.Load() != 9 {
			t.Errorf("nested Bounded = %v with %d leaves; want nil, 9", err, leaves.Load())
		}
	})
}

func TestBoundedMap(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		got, err := BoundedMap(t.Context(), 5, 2, func(ctx context.Context, i int) (string, error) {
			time.Sleep(time.Duration(5-i) * time.Second) // finish out of order
			return string(rune('a' + i)), nil
		})
		if want := []string{"a", "b", "c", "d", "e"}; err != nil || !slices.Equal(got, want) {
			t.Errorf("BoundedMap = %v, %v; want %v, nil", got, err, want)
		}
		got, err = BoundedMap(t.Context(), 5, 2, func(ctx context.Context, i int) (string, error) {
			if i == 3 {
				return "", errBoom
			}
			return "x", nil
		})
		if err != errBoom || got != nil {
			t.Errorf("BoundedMap with a failing task = %v, %v; want nil, %v", got, err, errBoom)
		}
	})
}
