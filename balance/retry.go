package balance

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"time"
)

// NoJitter, as Backoff.Jitter, turns jitter off: every delay is exactly
// the exponential one.
const NoJitter = -1.0

// Backoff configures Retry: how many attempts, and how long to wait between
// them. The zero value is useful: 3 attempts, waits drawn from [5ms, 10ms]
// then [10ms, 20ms].
//
// The wait before retry k (k = 1 after the first failure) is
//
//	d = min(Max, Initial · Multiplier^(k−1)),
//
// drawn uniformly from [d·(1−Jitter), d]. Jitter spreads the retries of many
// callers that failed together (the "thundering herd"), at the price of
// waiting less on average: Jitter 1 is "full jitter", 0.5 "equal jitter"
// (Brooker, "Exponential Backoff And Jitter", 2015).
type Backoff struct {
	// Attempts is the total number of tries, the first included; ≤ 0 means
	// 3.
	Attempts int
	// Initial is the wait before the first retry, before jitter; ≤ 0 means
	// 10ms.
	Initial time.Duration
	// Max caps every wait, before jitter; ≤ 0 means no cap.
	Max time.Duration
	// Multiplier is the growth of the wait per retry; < 1 means 2.
	Multiplier float64
	// Jitter is the fraction of each wait that is random, in (0, 1]; 0
	// means 0.5, and NoJitter (any negative value) means none.
	Jitter float64
	// Retryable says whether an error is worth another try; nil means
	// every error except those wrapped by Permanent and ctx's own errors
	// (context.Canceled, context.DeadlineExceeded).
	Retryable func(error) bool
}

// Wait returns the range [lo, hi] that the wait before retry k (k ≥ 1) is
// drawn from.
//
// Panics: if k < 1.
func (b Backoff) Wait(k int) (lo, hi time.Duration) {
	if k < 1 {
		panic(fmt.Sprintf("balance: Backoff.Wait with retry %d < 1", k))
	}
	initial := b.Initial
	if initial <= 0 {
		initial = 10 * time.Millisecond
	}
	mult := b.Multiplier
	if mult < 1 {
		mult = 2
	}
	d := float64(initial) * math.Pow(mult, float64(k-1))
	if b.Max > 0 {
		d = math.Min(d, float64(b.Max))
	}
	d = math.Min(d, float64(math.MaxInt64/2)) // keep the conversion in range
	jitter := b.Jitter
	switch {
	case jitter < 0:
		jitter = 0
	case jitter == 0:
		jitter = 0.5
	case jitter > 1:
		jitter = 1
	}
	return time.Duration(d * (1 - jitter)), time.Duration(d)
}

func (b Backoff) retryable(err error) bool {
	if IsPermanent(err) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	return b.Retryable == nil || b.Retryable(err)
}

// Permanent wraps err so that Retry gives up at once and returns err (the
// unwrapped error). Permanent(nil) is nil.
func Permanent(err error) error {
	if err == nil {
		return nil
	}
	return &permanentError{err}
}

type permanentError struct{ err error }

// IsPermanent reports whether err, or an error it wraps, was marked by
// Permanent: no retry can fix it. Package cluster uses the same mark for a
// handler's error that must not be retried.
func IsPermanent(err error) bool {
	var p *permanentError
	return errors.As(err, &p)
}

func (p *permanentError) Error() string { return p.err.Error() }
func (p *permanentError) Unwrap() error { return p.err }

// Retry runs task until it succeeds, up to b.Attempts times, waiting
// between attempts with exponential backoff and jitter (see Backoff). It
// returns the first success; an error that is not retryable (see
// Backoff.Retryable), without the Permanent wrapper; or, after the last attempt,
// an error that wraps the last attempt's error:
// "balance: 3 attempts failed: …". If ctx is done during a wait, Retry
// stops and returns an error that wraps ctx.Err() and mentions the last
// attempt's error. Each attempt gets ctx itself; combine with TimeoutOr or
// Hedged for a per-attempt limit.
//
// Retry only for transient failures of idempotent work: an attempt that
// failed may have had effects.
func Retry[T any](ctx context.Context, b Backoff, task Task[T]) (T, error) {
	attempts := b.Attempts
	if attempts <= 0 {
		attempts = 3
	}
	var zero T
	for k := 1; ; k++ {
		v, err := task(ctx)
		if err == nil {
			return v, nil
		}
		if !b.retryable(err) {
			if p, ok := err.(*permanentError); ok {
				return v, p.err
			}
			return v, err // errors.Is and errors.As see through a wrapped Permanent
		}
		if k == attempts {
			return v, fmt.Errorf("balance: %d attempts failed: %w", attempts, err)
		}
		lo, hi := b.Wait(k)
		wait := lo
		if hi > lo {
			wait += rand.N(hi - lo + 1)
		}
		timer := time.NewTimer(wait)
		select {
		case <-timer.C:
		case <-ctx.Done():
			timer.Stop()
			return zero, fmt.Errorf("balance: retry stopped after %d attempts: %w (last error: %v)", k, ctx.Err(), err)
		}
	}
}
