package worksteal

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/worksteal/worksteal/policy"
)

// TestScopeNestedSpawnsCountExactly: nested spawns count exactly.
func TestScopeNestedSpawnsCountExactly(t *testing.T) {
	defer watchdog(t)()
	ctx := context.Background()
	depth, chain, levels := 12, 5000, 40
	if testing.Short() {
		depth, chain, levels = 9, 1000, 15
	}
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	shapes := []struct {
		name string
		want int64
		body func(w *Worker, s *Scope, count func())
	}{
		{fmt.Sprintf("binary tree of depth %d", depth), 1<<(depth+1) - 1,
			func(w *Worker, s *Scope, count func()) {
				var node func(w *Worker, d int)
				node = func(w *Worker, d int) {
					count()
					if d > 0 {
						s.Spawn(w, func(w *Worker) { node(w, d-1) })
						s.Go(w, func(w *Worker) error { node(w, d-1); return nil })
					}
				}
				node(w, depth)
			}},
		{fmt.Sprintf("chain of %d spawns", chain), int64(chain),
			func(w *Worker, s *Scope, count func()) {
				var link func(w *Worker, i int)
				link = func(w *Worker, i int) {
					count()
					if i+1 < chain {
						s.Spawn(w, func(w *Worker) { link(w, i+1) })
					}
				}
				s.Spawn(w, func(w *Worker) { link(w, 0) })
			}},
		{"random tree", randomTreeSize(seed, 7),
			func(w *Worker, s *Scope, count func()) {
				var node func(w *Worker, id uint64, d int)
				node = func(w *Worker, id uint64, d int) {
					count()
					for c := range randomTreeFanout(seed, id, d) {
						child := id*4 + uint64(c) + 1
						SpawnValue(s, w, func(w *Worker) int { node(w, child, d-1); return 0 })
					}
				}
				node(w, 0, 7)
			}},
		{fmt.Sprintf("%d nested scopes", levels), int64(levels * 4),
			func(w *Worker, s *Scope, count func()) {
				var level func(w *Worker, d int)
				level = func(w *Worker, d int) {
					var mine atomic.Int64
					err := w.Scope(ctx, func(w *Worker, s *Scope) error {
						for range 4 {
							s.Spawn(w, func(*Worker) { mine.Add(1); count() })
						}
						if d > 1 {
							s.Spawn(w, func(w *Worker) { level(w, d-1) })
						}
						return nil
					})
					if err != nil || mine.Load() != 4 {
						panic(fmt.Sprintf("level %d: Scope = %v after %d of 4 tasks", d, err, mine.Load()))
					}
				}
				s.Spawn(w, func(w *Worker) { level(w, levels) })
			}},
	}
	for _, shape := range shapes {
		for _, cfg := range []Config{{Workers: 1}, {Workers: 2}, {Workers: 4, Steal: policy.StealHalf}} {
			t.Run(fmt.Sprintf("%s/workers=%d/%v", shape.name, cfg.Workers, cfg.Steal), func(t *testing.T) {
				p := newTestPool(t, cfg)
				var n atomic.Int64
				err := p.Scope(ctx, func(w *Worker, s *Scope) error {
					shape.body(w, s, func() { n.Add(1) })
					return nil
				})
				if err != nil {
					t.Fatalf("Scope = %v; want nil", err)
				}
				if got := n.Load(); got != shape.want {
					t.Fatalf("%d tasks ran; want %d", got, shape.want)
				}
			})
		}
	}
}

// TestScopeFirstErrorCancelsAndSkipsLaterTasks: first error is returned and cancels Context; later tasks are skipped.
func TestScopeFirstErrorCancelsAndSkipsLaterTasks(t *testing.T) {
	defer watchdog(t)()
	ctx := context.Background()
	p := newTestPool(t, Config{Workers: 2})
	errFirst, errLater := errors.New("first"), errors.New("later")
	var late atomic.Int32
	var sawCancel atomic.Bool
	err := p.Scope(ctx, func(w *Worker, s *Scope) error {
		started := make(chan struct{})
		s.Go(w, func(w *Worker) error {
			close(started)
			w.Blocking(func() { <-s.Context().Done() }) // only errFirst cancels it
			sawCancel.Store(errors.Is(s.Context().Err(), context.Canceled))
			// Everything spawned now is skipped.
			s.Spawn(w, func(*Worker) { late.Add(1) })
			s.Go(w, func(*Worker) error { late.Add(1); return nil })
			SpawnValue(s, w, func(*Worker) int { late.Add(1); return 0 })
			return errLater
		})
		w.Blocking(func() { <-started })
		s.Go(w, func(*Worker) error { return errFirst })
		return nil
	})
	if err != errFirst {
		t.Errorf("Scope = %v; want the first error %v", err, errFirst)
	}
	if !sawCancel.Load() {
		t.Errorf("the first error did not cancel the scope's Context with context.Canceled")
	}
	if n := late.Load(); n != 0 {
		t.Errorf("%d tasks spawned after the first error ran; want them skipped", n)
	}
}

// TestScopeBodyErrorIsReturned: body error is returned.
func TestScopeBodyErrorIsReturned(t *testing.T) {
	defer watchdog(t)()
	ctx := context.Background()
	p := newTestPool(t, Config{Workers: 2})
	errBody := errors.New("body")
	var sc *Scope
	err := p.Scope(ctx, func(w *Worker, s *Scope) error {
		sc = s
		s.Go(w, func(*Worker) error { return nil })
		return errBody
	})
	if err != errBody {
		t.Errorf("Scope = %v; want %v", err, errBody)
	}
	if sc.Context().Err() == nil {
		t.Errorf("Context().Err() = nil after the body failed; want cancelled")
	}
}

// TestScopeContextDerivedAndCancelledOnReturn: Context is derived from ctx and cancelled when Scope returns.
func TestScopeContextDerivedAndCancelledOnReturn(t *testing.T) {
	defer watchdog(t)()
	ctx := context.Background()
	p := newTestPool(t, Config{Workers: 2})
	type key struct{}
	parent := context.WithValue(ctx, key{}, "v")
	var sc *Scope
	var during error
	var value any
	err := p.Scope(parent, func(w *Worker, s *Scope) error {
		sc = s
		during = s.Context().Err()
		s.Spawn(w, func(*Worker) { value = s.Context().Value(key{}) })
		return nil
	})
	if err != nil || during != nil {
		t.Fatalf("Scope = %v, Context().Err() in body = %v; want nil, nil", err, during)
	}
	if value != "v" {
		t.Errorf("Context().Value in a task = %v; want the parent's value \"v\"", value)
	}
	if !errors.Is(sc.Context().Err(), context.Canceled) {
		t.Errorf("Context().Err() after Scope returned = %v; want context.Canceled", sc.Context().Err())
	}
}

// TestScopeNilCtxMeansBackground: nil ctx means Background.
func TestScopeNilCtxMeansBackground(t *testing.T) {
	defer watchdog(t)()
	p := newTestPool(t, Config{Workers: 1})
	var n atomic.Int32
	got, _ := Run(p, func(w *Worker) error {
		//lint:ignore SA1012 the documented nil-means-Background case is what this tests
		return w.Scope(nil, func(w *Worker, s *Scope) error {
			s.Spawn(w, func(*Worker) { n.Add(1) })
			return nil
		})
	})
	if got != nil || n.Load() != 1 {
		t.Fatalf("Scope(nil, …) = %v after %d tasks; want nil after 1", got, n.Load())
	}
}

// TestScopeParentCancelledSkipsUnstartedTasks: parent ctx cancelled: unstarted tasks skipped, ctx.Err returned.
func TestScopeParentCancelledSkipsUnstartedTasks(t *testing.T) {
	defer watchdog(t)()
	ctx := context.Background()
	expired, cancelExpired := context.WithDeadline(ctx, time.Now().Add(-time.Second))
	defer cancelExpired()
	cases := []struct {
		name    string
		parent  func() (context.Context, context.CancelFunc)
		inBody  bool // cancel inside the body rather than before Scope
		wantErr error
	}{
		{"cancelled before Scope", func() (context.Context, context.CancelFunc) {
			c, cancel := context.WithCancel(ctx)
			cancel()
			return c, cancel
		}, false, context.Canceled},
		{"cancelled in the body", func() (context.Context, context.CancelFunc) { return context.WithCancel(ctx) }, true, context.Canceled},
		{"deadline passed", func() (context.Context, context.CancelFunc) { return expired, func() {} }, false, context.DeadlineExceeded},
	}
	for _, tc := range cases {
		for _, workers := range []int{1, 3} {
			t.Run(fmt.Sprintf("%s/workers=%d", tc.name, workers), func(t *testing.T) {
				p := newTestPool(t, Config{Workers: workers})
				parent, cancel := tc.parent()
				defer cancel()
				var ran atomic.Int32
				var futures []*Future[int]
				err := p.Scope(parent, func(w *Worker, s *Scope) error {
					if tc.inBody {
						cancel()
					}
					for range 20 {
						s.Spawn(w, func(*Worker) { ran.Add(1) })
						s.Go(w, func(*Worker) error { ran.Add(1); return nil })
						futures = append(futures, SpawnValue(s, w, func(*Worker) int { ran.Add(1); return 1 }))
					}
					return nil
				})
				if !errors.Is(err, tc.wantErr) {
					t.Errorf("Scope = %v; want %v", err, tc.wantErr)
				}
				if n := ran.Load(); n != 0 {
					t.Errorf("%d tasks ran after the parent ctx was done; want 0", n)
				}
				for i, fu := range futures {
					if v, ok := fu.Get(); v != 0 || !ok {
						t.Fatalf("future %d: Get() = %d, %v; want 0, true (skipped, finished)", i, v, ok)
					}
				}
			})
		}
	}
}

// TestScopeParentCancelledByTaskSkipsTheRest: parent ctx cancelled by a task: the rest are skipped.
func TestScopeParentCancelledByTaskSkipsTheRest(t *testing.T) {
	defer watchdog(t)()
	ctx := context.Background()
	// One worker runs the scope's tasks newest first: the first task to
	// run cancels the parent, so the other nine never start.
	p := newTestPool(t, Config{Workers: 1})
	parent, cancel := context.WithCancel(ctx)
	defer cancel()
	var ran atomic.Int32
	err := p.Scope(parent, func(w *Worker, s *Scope) error {
		for range 10 {
			s.Spawn(w, func(*Worker) { ran.Add(1); cancel() })
		}
		return nil
	})
	if !errors.Is(err, context.Canceled) || ran.Load() != 1 {
		t.Fatalf("Scope = %v after %d tasks; want context.Canceled after 1", err, ran.Load())
	}
}

// TestPoolScopeFromManyGoroutines: Pool.Scope from many goroutines.
func TestPoolScopeFromManyGoroutines(t *testing.T) {
	defer watchdog(t)()
	ctx := context.Background()
	p := newTestPool(t, Config{Workers: 2})
	const callers, tasks = 8, 200
	var wg sync.WaitGroup
	for c := range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var n atomic.Int64
			err := p.Scope(ctx, func(w *Worker, s *Scope) error {
				for i := range tasks {
					s.Go(w, func(w *Worker) error { n.Add(int64(fibJoin(w, i%10))); return nil })
				}
				return nil
			})
			var want int64
			for i := range tasks {
				want += int64(fibSeq(i % 10))
			}
			if err != nil || n.Load() != want {
				t.Errorf("caller %d: Scope = %v, sum %d; want nil, %d", c, err, n.Load(), want)
			}
		}()
	}
	wg.Wait()
}

// TestScopeInsideJoinInsideScope: Scope inside Join inside Scope.
func TestScopeInsideJoinInsideScope(t *testing.T) {
	defer watchdog(t)()
	ctx := context.Background()
	for _, workers := range []int{1, 2, 4} {
		t.Run(fmt.Sprintf("workers=%d", workers), func(t *testing.T) {
			p := newTestPool(t, Config{Workers: workers})
			var total atomic.Int64
			// inner runs a Scope of k tasks, each a small fib, and
			// returns how many ran once it returned.
			inner := func(w *Worker, k int) int {
				var n atomic.Int64
				if err := w.Scope(ctx, func(w *Worker, s *Scope) error {
					for range k {
						s.Go(w, func(w *Worker) error {
							if fibJoin(w, 10) != 55 {
								return errors.New("fib(10) != 55")
							}
							n.Add(1)
							total.Add(1)
							return nil
						})
					}
					return nil
				}); err != nil {
					panic(err)
				}
				return int(n.Load())
			}
			err := p.Scope(ctx, func(w *Worker, s *Scope) error {
				for range 8 {
					s.Go(w, func(w *Worker) error {
						a, b := Join(w,
							func(w *Worker) int { return inner(w, 10) },
							func(w *Worker) int {
								x, y := JoinFunc(w, inner, 5, inner, 7)
								return x + y
							})
						if a != 10 || b != 12 {
							return fmt.Errorf("inner scopes saw %d and %d tasks; want 10 and 12", a, b)
						}
						return nil
					})
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if got := total.Load(); got != 8*22 {
				t.Fatalf("%d inner tasks ran; want %d", got, 8*22)
			}
		})
	}
}

// randomTreeFanout is the number of children (0–3) of node id at depth d of
// a random tree; it depends only on the seed and the node.
func randomTreeFanout(seed, id uint64, d int) int {
	if d == 0 {
		return 0
	}
	return int(rand.New(rand.NewPCG(seed, id)).Uint64() % 4)
}

// randomTreeSize counts the nodes of the random tree of the given depth.
func randomTreeSize(seed uint64, depth int) int64 {
	var size func(id uint64, d int) int64
	size = func(id uint64, d int) int64 {
		n := int64(1)
		for c := range randomTreeFanout(seed, id, d) {
			n += size(id*4+uint64(c)+1, d-1)
		}
		return n
	}
	return size(0, depth)
}
