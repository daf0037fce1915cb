package balance

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"testing/synctest"
	"time"
)

func TestBackoffWait(t *testing.T) {
	cases := []struct {
		name   string
		b      Backoff
		k      int
		lo, hi time.Duration
	}{
		{"zero value, first retry", Backoff{}, 1, 5 * ms, 10 * ms},
		{"zero value, second retry", Backoff{}, 2, 10 * ms, 20 * ms},
		{"no jitter", Backoff{Initial: 100 * ms, Jitter: NoJitter}, 3, 400 * ms, 400 * ms},
		{"full jitter", Backoff{Initial: 100 * ms, Jitter: 1}, 2, 0, 200 * ms},
		{"jitter above 1 is full", Backoff{Initial: 100 * ms, Jitter: 3}, 1, 0, 100 * ms},
		{"multiplier", Backoff{Initial: time.Second, Multiplier: 1.5, Jitter: NoJitter}, 3, 2250 * ms, 2250 * ms},
		{"multiplier 1 is constant", Backoff{Initial: time.Second, Multiplier: 1, Jitter: NoJitter}, 9, time.Second, time.Second},
		{"capped", Backoff{Initial: time.Second, Max: 5 * time.Second, Jitter: NoJitter}, 10, 5 * time.Second, 5 * time.Second},
		{"huge retry count does not overflow", Backoff{Initial: time.Second, Jitter: NoJitter}, 200, 1 << 62, 1 << 62},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			lo, hi := tc.b.Wait(tc.k)
			if lo != tc.lo || hi != tc.hi {
				t.Errorf("%+v.Wait(%d) = %v, %v; want %v, %v", tc.b, tc.k, lo, hi, tc.lo, tc.hi)
			}
		})
	}
	if msg := catchPanic(func() { Backoff{}.Wait(0) }); msg != "balance: Backoff.Wait with retry 0 < 1" {
		t.Errorf("Wait(0) panic = %q", msg)
	}
}

// flaky fails its first fails calls with err, then returns the call number.
// It records the fake time of each call.
func flaky(fails int, err error, at *[]time.Duration, start time.Time) Task[int] {
	calls := 0
	return func(ctx context.Context) (int, error) {
		calls++
		*at = append(*at, time.Since(start))
		if calls <= fails {
			return 0, err
		}
		return calls, nil
	}
}

func TestRetry(t *testing.T) {
	noJitter := Backoff{Attempts: 4, Initial: 10 * ms, Jitter: NoJitter}
	cases := []struct {
		name     string
		b        Backoff
		fails    int
		err      error
		want     int
		wantErr  string
		wantCall []time.Duration // fake times of the calls
	}{
		{"first try", noJitter, 0, errBoom, 1, "", []time.Duration{0}},
		{"third try", noJitter, 2, errBoom, 3, "", []time.Duration{0, 10 * ms, 30 * ms}},
		{"exhausted", noJitter, 9, errBoom, 0, "balance: 4 attempts failed: boom", []time.Duration{0, 10 * ms, 30 * ms, 70 * ms}},
		{"permanent stops at once", noJitter, 9, Permanent(errBoom), 0, "boom", []time.Duration{0}},
		{"ctx errors are not retried", noJitter, 9, context.DeadlineExceeded, 0, "context deadline exceeded", []time.Duration{0}},
		{"Retryable says no", Backoff{Retryable: func(err error) bool { return err != errBoom }}, 9, errBoom, 0, "boom", []time.Duration{0}},
		{"zero value: 3 attempts", Backoff{Jitter: NoJitter}, 9, errBoom, 0, "balance: 3 attempts failed: boom", []time.Duration{0, 10 * ms, 30 * ms}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var at []time.Duration
				got, err := Retry(t.Context(), tc.b, flaky(tc.fails, tc.err, &at, time.Now()))
				errStr := ""
				if err != nil {
					errStr = err.Error()
				}
				if got != tc.want || errStr != tc.wantErr {
					t.Errorf("Retry = %d, %q; want %d, %q", got, errStr, tc.want, tc.wantErr)
				}
				if fmt.Sprint(at) != fmt.Sprint(tc.wantCall) {
					t.Errorf("calls at %v; want %v", at, tc.wantCall)
				}
			})
		})
	}
}

func TestRetryErrors(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var at []time.Duration
		_, err := Retry(t.Context(), Backoff{}, flaky(9, errBoom, &at, time.Now()))
		if !errors.Is(err, errBoom) {
			t.Errorf("exhausted Retry error %v does not wrap %v", err, errBoom)
		}
		_, err = Retry(t.Context(), Backoff{}, flaky(9, Permanent(errBoom), &at, time.Now()))
		if err != errBoom {
			t.Errorf("Retry with Permanent(errBoom) = %v; want errBoom itself", err)
		}
		wrapped := fmt.Errorf("fetch: %w", Permanent(errBoom))
		_, err = Retry(t.Context(), Backoff{}, flaky(9, wrapped, &at, time.Now()))
		if err != wrapped || !errors.Is(err, errBoom) {
			t.Errorf("Retry with a wrapped Permanent = %v; want it unchanged", err)
		}
		if Permanent(nil) != nil {
			t.Errorf("Permanent(nil) != nil")
		}
	})
}

// TestRetryJitter checks that every wait falls in its jitter range, and
// that the waits are not all equal (jitter is on).
func TestRetryJitter(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := Backoff{Attempts: 6, Initial: 100 * ms, Jitter: 0.5}
		distinct := map[time.Duration]bool{}
		for range 20 {
			var at []time.Duration
			Retry(t.Context(), b, flaky(9, errBoom, &at, time.Now()))
			for k := 1; k < len(at); k++ {
				wait := at[k] - at[k-1]
				lo, hi := b.Wait(k)
				if wait < lo || wait > hi {
					t.Fatalf("wait before retry %d = %v; want within [%v, %v]", k, wait, lo, hi)
				}
				if k == 1 {
					distinct[wait] = true
				}
			}
		}
		if len(distinct) < 2 {
			t.Errorf("20 first waits took %d distinct values; want jitter to vary them", len(distinct))
		}
	})
}

func TestRetryCancelDuringWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		time.AfterFunc(15*ms, cancel)
		var at []time.Duration
		start := time.Now()
		_, err := Retry(ctx, Backoff{Attempts: 10, Initial: 10 * ms, Jitter: NoJitter}, flaky(99, errBoom, &at, start))
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Retry cancelled during a wait = %v; want it to wrap context.Canceled", err)
		}
		if want := "balance: retry stopped after 2 attempts: context canceled (last error: boom)"; err == nil || err.Error() != want {
			t.Errorf("Retry error = %v; want %q", err, want)
		}
		if took := time.Since(start); took != 15*ms {
			t.Errorf("Retry returned after %v; want 15ms, at the cancellation", took)
		}
	})
}

// TestRetryHedged composes the tools: each attempt is hedged.
func TestRetryHedged(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := &Hedge{Delay: 100 * ms}
		calls := 0
		got, err := Retry(t.Context(), Backoff{Jitter: NoJitter}, func(ctx context.Context) (int, error) {
			return Hedged(ctx, h, func(ctx context.Context) (int, error) {
				calls++ // copies of one attempt never overlap here: both fail fast
				if calls <= 1 {
					return 0, errBoom
				}
				return calls, nil
			})
		})
		if got != 2 || err != nil {
			t.Errorf("Retry(Hedged) = %d, %v; want 2, nil", got, err)
		}
	})
}
