package balance

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// Straggler mitigation for tasks whose durations are unknown: cut a task
// that runs too long and use a fallback (Timeout, TimeoutOr), or start a
// second copy and take whichever finishes first (Hedge, Hedged). Retries are
// in retry.go. The tools compose, since each takes and returns a Task:
//
//	Retry(ctx, backoff, func(ctx context.Context) (T, error) {
//		return Hedged(ctx, hedge, task)
//	})
//
// Each task runs on a goroutine of its own, so that the caller gets its
// answer on time even from a task that ignores its ctx. A task that is cut
// or loses is told so by the cancellation of its ctx; it should return soon
// after, and its result is discarded. A task that never looks at its ctx
// keeps its goroutine until it returns.

// Task is a unit of work that produces a T. It must honour ctx: return soon
// after ctx is done (its result is then ignored).
type Task[T any] func(ctx context.Context) (T, error)

// Timeout is a per-task time limit, fixed or relative to the tasks already
// finished. Use it with TimeoutOr. Set the fields before first use and do
// not change them after; a Timeout may then be shared by any number of
// goroutines. A Timeout must not be copied after first use.
//
// The limit for the next task is:
//
//   - Factor × the median of the finished tasks (e.g. Factor 2 is 200% of
//     the median), once History holds at least MinSamples durations (a
//     median of zero gives no limit);
//   - otherwise After; 0 means no limit.
//
// The zero value has no limit (it only records durations).
type Timeout struct {
	// After is the fixed limit, and the limit while History is too short
	// for the relative rule. 0 means none.
	After time.Duration
	// Factor enables the relative rule: the limit is Factor × median. 0
	// turns it off. Values below 1 would cut half the tasks or more.
	Factor float64
	// MinSamples is how many finished tasks the relative rule needs; ≤ 0
	// means 10.
	MinSamples int
	// History receives the duration of every task that succeeds, and the
	// limit of every task cut by it (see History on censoring). nil means a
	// History of the Timeout's own that keeps the last 1,024.
	History *History

	own      History
	timeouts atomic.Int64
}

func (t *Timeout) history() *History {
	if t.History != nil {
		return t.History
	}
	return &t.own
}

// Limit returns the limit the next task gets, 0 meaning none.
func (t *Timeout) Limit() time.Duration {
	if t.Factor > 0 {
		h := t.history()
		minSamples := t.MinSamples
		if minSamples <= 0 {
			minSamples = 10
		}
		if h.Len() >= minSamples {
			return time.Duration(t.Factor * float64(h.Quantile(0.5)))
		}
	}
	return t.After
}

// Timeouts returns how many tasks this Timeout has cut.
func (t *Timeout) Timeouts() int64 { return t.timeouts.Load() }

// TimeoutOr runs task with the limit t.Limit(). If task returns within the
// limit, TimeoutOr returns its result (value and error). If not, TimeoutOr
// cancels the task's ctx (with cause ErrTimeout; the task also sees the
// limit as its ctx deadline) and returns (fallback, nil) at once, without
// waiting for the task to return. If ctx is done first, it returns the zero
// T and ctx.Err().
//
// With no limit the task runs on the calling goroutine, with no overhead but
// the clock reads. A nil t means no limit.
//
// Panics: with the task's panic, if it panics while TimeoutOr is waiting for
// it; a panic after the limit is dropped with the task's result.
func TimeoutOr[T any](ctx context.Context, t *Timeout, fallback T, task Task[T]) (T, error) {
	if t == nil {
		return task(ctx)
	}
	limit := t.Limit()
	start := time.Now()
	if limit <= 0 {
		v, err := task(ctx)
		if err == nil {
			t.history().Observe(time.Since(start))
		}
		return v, err
	}
	tctx, cancel := context.WithTimeoutCause(ctx, limit, ErrTimeout)
	defer cancel()
	done := make(chan attempt[T], 1) // buffered: an abandoned task never blocks
	go func() {
		done <- runAttempt(tctx, task)
	}()
	var zero T
	select {
	case a := <-done:
		switch {
		case a.panicked != nil:
			panic(a.panicked.v)
		case a.err == nil:
			t.history().Observe(time.Since(start))
			return a.v, nil
		case ctx.Err() != nil:
			return zero, ctx.Err()
		case context.Cause(tctx) == ErrTimeout:
			// The task saw its deadline and gave up just as the timer fired:
			// that is a timeout, not a failure of the task.
			t.timeouts.Add(1)
			t.history().Observe(limit)
			return fallback, nil
		}
		return a.v, a.err
	case <-tctx.Done():
		if ctx.Err() != nil {
			return zero, ctx.Err()
		}
		t.timeouts.Add(1)
		t.history().Observe(limit) // censored at the limit: see History
		return fallback, nil
	}
}

// attempt is the outcome of one run of a task on its own goroutine.
type attempt[T any] struct {
	v        T
	err      error
	panicked *panicValue
	took     time.Duration
	idx      int // 0 for the first copy, 1 for the hedge
}

// runAttempt runs task and catches its panic, so that a task on a goroutine
// of ours cannot crash the program behind its caller's back.
func runAttempt[T any](ctx context.Context, task Task[T]) (a attempt[T]) {
	start := time.Now()
	defer func() {
		a.took = time.Since(start)
		if v := recover(); v != nil {
			a.panicked = &panicValue{v}
		}
	}()
	a.v, a.err = task(ctx)
	return a
}

// Hedge configures speculative copies ("hedged requests", Dean and Barroso,
// "The Tail at Scale", 2013; "speculative execution" in MapReduce and
// Spark): when a task runs longer than a threshold, Hedged starts a second
// copy, takes the first successful result and cancels the other copy.
// Only for idempotent work: both copies may run to completion and both may
// have side effects. Use it with Hedged. Set the fields before first use
// and do not change them after; a Hedge may then be shared by any number of
// goroutines, and its counters cover all of them. A Hedge must not be copied
// after first use.
//
// The threshold is Delay if Delay > 0. Otherwise it is Multiplier × the
// Quantile of the durations of finished tasks (default 1.5 × p75, the rule of
// the cluster engines' speculative execution), once History holds at least
// MinSamples durations; before that, no copy is started. The zero value uses
// that default rule.
type Hedge struct {
	// Delay, if positive, is a fixed threshold, and the relative rule is
	// off.
	Delay time.Duration
	// Multiplier and Quantile set the relative threshold, Multiplier ×
	// Quantile(History); ≤ 0 mean 1.5 and 0.75.
	Multiplier, Quantile float64
	// MinSamples is how many finished tasks the relative rule needs; ≤ 0
	// means 10.
	MinSamples int
	// History receives, for every successful call, the time from the start
	// of the first copy to the winning result (censored when the hedge won;
	// see History). nil means a History of the Hedge's own.
	History *History

	own                    History
	started, won, wastedNs atomic.Int64
}

func (h *Hedge) history() *History {
	if h.History != nil {
		return h.History
	}
	return &h.own
}

// Threshold returns how long the next call lets its first copy run before it
// starts a hedge, and false when it would start none (relative rule with too
// few samples yet, or a quantile of zero).
func (h *Hedge) Threshold() (time.Duration, bool) {
	if h.Delay > 0 {
		return h.Delay, true
	}
	minSamples := h.MinSamples
	if minSamples <= 0 {
		minSamples = 10
	}
	hist := h.history()
	if hist.Len() < minSamples {
		return 0, false
	}
	mult, q := h.Multiplier, h.Quantile
	if mult <= 0 {
		mult = 1.5
	}
	if q <= 0 || q > 1 {
		q = 0.75
	}
	d := time.Duration(mult * float64(hist.Quantile(q)))
	return d, d > 0 // instantaneous tasks: nothing to gain from a copy
}

// HedgeStats are the counters of a Hedge, summed over all its calls.
type HedgeStats struct {
	// Started is the number of hedge copies started.
	Started int64
	// Won is the number of calls whose returned result came from the hedge
	// copy.
	Won int64
	// Wasted is the run time of copies whose outcome was discarded: the
	// loser of each race (counted up to when it returned, after its
	// cancellation), a failed copy superseded by the other's success, and
	// copies abandoned because the caller's ctx was done.
	Wasted time.Duration
}

// String formats s as e.g. "hedges 12 won 9 wasted 1.2s".
func (s HedgeStats) String() string {
	return fmt.Sprintf("hedges %d won %d wasted %v", s.Started, s.Won, s.Wasted)
}

// Stats returns the counters. The Wasted time of a losing copy is added when
// that copy returns, which may be after Hedged has returned.
func (h *Hedge) Stats() HedgeStats {
	return HedgeStats{
		Started: h.started.Load(),
		Won:     h.won.Load(),
		Wasted:  time.Duration(h.wastedNs.Load()),
	}
}

// Hedged runs task, and if it has not finished after h.Threshold(), starts a
// second copy of it (on a fresh ctx derived from ctx). The first copy to
// succeed wins: Hedged returns its result and cancels the other copy's ctx,
// without waiting for it. A copy that fails does not end the race while the
// other is still running; when every started copy has failed, Hedged returns
// the first copy's error. If the first copy fails before the threshold, no
// hedge is started and its error is returned. If ctx is done first, Hedged
// returns the zero T and ctx.Err(). A nil h runs task alone.
//
// Hedging is opt-in and for idempotent tasks only: both copies may run to
// the end. It pays when durations vary for reasons outside the task (a slow
// machine, a GC pause, a cold cache) and a copy can finish in a typical
// time. It costs at most one extra copy per call, started only for calls
// slower than the threshold: with the default 1.5 × p75, typically a few
// percent of calls.
//
// Panics: with a copy's panic, if it panics while Hedged is still waiting.
func Hedged[T any](ctx context.Context, h *Hedge, task Task[T]) (T, error) {
	if h == nil {
		return task(ctx)
	}
	start := time.Now()
	after, ok := h.Threshold()
	if !ok {
		// No hedge can start: run on this goroutine, as if unhedged.
		v, err := task(ctx)
		if err == nil {
			h.history().Observe(time.Since(start))
		}
		return v, err
	}
	r := &race[T]{h: h, results: make(chan attempt[T], 2)}
	defer r.finish()
	r.launch(ctx, task, 0)
	timer := time.NewTimer(after)
	defer timer.Stop()
	timerC := timer.C
	var zero T
	var failed []attempt[T] // copies that failed, oldest first
	for {
		select {
		case a := <-r.results:
			if a.panicked != nil {
				r.close()
				panic(a.panicked.v)
			}
			if a.err == nil {
				r.win(a.idx, failed)
				h.history().Observe(time.Since(start))
				return a.v, nil
			}
			failed = append(failed, a)
			if len(failed) == r.launched {
				// Every started copy failed; a hedge not yet started is not
				// started for a failed first copy (that is Retry's job).
				// Return the first copy's error, wherever it is in failed.
				first := slices.IndexFunc(failed, func(a attempt[T]) bool { return a.idx == 0 })
				r.win(0, failed)
				return failed[first].v, failed[first].err
			}
		case <-timerC:
			timerC = nil
			h.started.Add(1)
			r.launch(ctx, task, 1)
		case <-ctx.Done():
			r.win(-1, failed)
			return zero, ctx.Err()
		}
	}
}

// race is one Hedged call: its copies and the accounting of their time.
//
// Protocol: a copy that returns locks mu; if the race is still open it
// sends its attempt on results (buffered for both copies, never blocks),
// else it adds its own run time to Wasted (unless it is the winner, which
// cannot happen: the winner's attempt was received before the close). The
// caller closes the race under mu, and so counts every attempt exactly
// once: either it received it (and accounts for it in win) or the copy
// accounts for itself after the close.
type race[T any] struct {
	h        *Hedge
	results  chan attempt[T]
	cancels  [2]context.CancelFunc
	launched int

	mu     sync.Mutex
	closed bool
}

func (r *race[T]) launch(ctx context.Context, task Task[T], idx int) {
	cctx, cancel := context.WithCancel(ctx)
	r.cancels[idx] = cancel
	r.launched++
	go func() {
		a := runAttempt(cctx, task)
		a.idx = idx
		r.mu.Lock()
		defer r.mu.Unlock()
		if r.closed {
			r.h.wastedNs.Add(int64(a.took))
			return
		}
		r.results <- a
	}()
}

// win closes the race with copy winner (−1 for none), counts a hedge win
// and charges the received but discarded attempts as waste.
func (r *race[T]) win(winner int, discarded []attempt[T]) {
	if winner == 1 {
		r.h.won.Add(1)
	}
	for _, a := range discarded {
		if a.idx != winner {
			r.h.wastedNs.Add(int64(a.took))
		}
	}
	r.close()
}

// close marks the race closed; copies still running account for themselves.
// Attempts already sent but not received are charged here.
func (r *race[T]) close() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return
	}
	r.closed = true
	for {
		select {
		case a := <-r.results:
			r.h.wastedNs.Add(int64(a.took))
		default:
			return
		}
	}
}

// finish cancels every copy; it runs when Hedged returns.
func (r *race[T]) finish() {
	r.close()
	for _, c := range r.cancels {
		if c != nil {
			c()
		}
	}
}
