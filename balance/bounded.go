package balance

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"golang.org/x/sync/semaphore"
)

// Bounded runs task(ctx, i) for every i in [0, n), each on its own
// goroutine, with at most limit of them in flight at once. It is for work
// that mostly waits (network calls, disk, subprocesses), where the limit
// protects the thing waited on, not the CPUs; CPU-bound loops belong on Loop
// or the work-stealing pool instead, whose worker count is the limit.
//
// Tasks start in index order. The first task to return an error cancels the
// ctx passed to all tasks, no further tasks start, and Bounded returns that
// error after every started task has returned (errgroup's contract). If ctx
// itself is cancelled first, Bounded stops starting tasks and returns
// ctx.Err(). Bounded may be called from inside a task: each call has its own
// limit, so nesting cannot deadlock (but the limits multiply).
//
// The limit is a golang.org/x/sync/semaphore.Weighted: Acquire blocks the
// launching loop, not the tasks, and a cancelled ctx unblocks it.
//
// Panics: if n < 0 or limit < 1, or with the first panic of a task (its
// value, without the task's stack), re-raised in the caller after every
// started task has returned.
func Bounded(ctx context.Context, n, limit int, task func(ctx context.Context, i int) error) error {
	if n < 0 {
		panic(fmt.Sprintf("balance: Bounded with n = %d < 0", n))
	}
	if limit < 1 {
		panic(fmt.Sprintf("balance: Bounded with limit = %d < 1", limit))
	}
	parent := ctx
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	sem := semaphore.NewWeighted(int64(limit))
	var (
		wg       sync.WaitGroup
		firstErr error
		errOnce  sync.Once
		panicked atomic.Pointer[panicValue]
	)
	fail := func(err error) {
		errOnce.Do(func() { firstErr = err })
		cancel(err)
	}
	started := 0
	for i := range n {
		// Acquire may succeed on a done ctx when a slot is free, so check
		// first: a failed task must stop the launches at once.
		if ctx.Err() != nil {
			break
		}
		if err := sem.Acquire(ctx, 1); err != nil {
			break // ctx cancelled: by the parent, a task error or a panic
		}
		started++
		wg.Go(func() {
			defer sem.Release(1)
			defer func() {
				if v := recover(); v != nil {
					panicked.CompareAndSwap(nil, &panicValue{v})
					cancel(errTaskPanicked)
				}
			}()
			if err := task(ctx, i); err != nil {
				fail(err)
			}
		})
	}
	wg.Wait() // every task has returned: firstErr and panicked are settled
	if p := panicked.Load(); p != nil {
		panic(p.v)
	}
	if firstErr != nil {
		return firstErr
	}
	if started < n {
		return parent.Err() // only the parent can have stopped the launches now
	}
	return nil
}

// errTaskPanicked is the cancellation cause while a task's panic is on its
// way to Bounded's caller; it is never returned.
var errTaskPanicked = fmt.Errorf("balance: task panicked")

// BoundedMap is Bounded for tasks with results: it runs f(ctx, i) for every
// i in [0, n) with at most limit in flight and returns the results in index
// order. On error it returns the first error and a nil slice.
//
// Panics: as Bounded.
func BoundedMap[T any](ctx context.Context, n, limit int, f func(ctx context.Context, i int) (T, error)) ([]T, error) {
	out := make([]T, n)
	err := Bounded(ctx, n, limit, func(ctx context.Context, i int) error {
		v, err := f(ctx, i)
		out[i] = v // each goroutine writes its own slot; wg.Wait publishes them
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
