package par

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/worksteal/worksteal"
)

// waitAll is a barrier for the iterations of a loop: each waits in
// Blocking until n have arrived. A loop that keeps some of them back
// until others have finished never ends (the watchdog then fails the test
// with every stack).
type waitAll struct {
	n, in atomic.Int64
	all   chan struct{}
	once  sync.Once
}

func newWaitAll(n int) *waitAll {
	b := &waitAll{all: make(chan struct{})}
	b.n.Store(int64(n))
	return b
}

func (b *waitAll) wait(w *worksteal.Worker) {
	w.Blocking(func() {
		if b.in.Add(1) == b.n.Load() {
			b.once.Do(func() { close(b.all) })
		}
		<-b.all
	})
}

// TestLoopsWithBlockingHaveEveryWaitInFlight: a loop whose iterations wait
// in Worker.Blocking has all its waits in flight at once, as a goroutine
// per iteration would (up to Config.MaxBlocking): here each of the n
// iterations waits until all n are waiting, the first one included. The
// loop runs its first chunk (iteration 0) with the rest of its range as a
// lazy Join's second half; iteration 0's Blocking publishes the rest and
// flags the loop's body as one that waits, and whoever takes the rest
// hands every iteration out as a task of its own.
//
// Red, by hanging (the watchdog then fails with every stack): before stop
// 39, when the loop halved its range level by level and ran each half's
// first iteration before splitting it again (at most a few dozen waited
// at once); before stop 40, when the loop learned that its body waits
// only once its first chunk had ended (iteration 0 waits for ever,
// alone); and with Blocking's flag store removed (the rest, taken while
// iteration 0 waits, probes again instead of fanning out: a few more
// waits, then one that holds the rest of the range). Results still
// combine in index order.
func TestLoopsWithBlockingHaveEveryWaitInFlight(t *testing.T) {
	// 1,000 iterations: more than one fanOut spawns (fanWidth), so the
	// pieces fan out in turn.
	for _, n := range []int{64, 1000} {
		t.Run(fmt.Sprint(n), func(t *testing.T) { testEveryWaitInFlight(t, n) })
	}
}

func testEveryWaitInFlight(t *testing.T, n int) {
	body := func(w *worksteal.Worker, b *waitAll, i int) { b.wait(w) }
	p := newTestPool(t, worksteal.Config{Workers: 2, MaxBlocking: n})
	defer watchdog(t)()

	t.Run("For", func(t *testing.T) {
		b := newWaitAll(n)
		ran := make([]atomic.Int32, n)
		if err := p.Do(func(w *worksteal.Worker) {
			For(w, 0, n, func(w *worksteal.Worker, i int) { body(w, b, i); ran[i].Add(1) })
		}); err != nil {
			t.Fatal(err)
		}
		for i := range ran {
			if c := ran[i].Load(); c != 1 {
				t.Errorf("iteration %d ran %d times; want 1", i, c)
			}
		}
	})
	t.Run("MapReduce", func(t *testing.T) {
		b := newWaitAll(n)
		idx := make([]int, n)
		for i := range idx {
			idx[i] = i
		}
		var got string
		if err := p.Do(func(w *worksteal.Worker) {
			got = MapReduce(w, idx, "", func(w *worksteal.Worker, i int) string {
				body(w, b, i)
				return fmt.Sprint(i, ",")
			}, func(a, b string) string { return a + b })
		}); err != nil {
			t.Fatal(err)
		}
		var want strings.Builder
		for i := range n {
			fmt.Fprint(&want, i, ",")
		}
		if got != want.String() {
			t.Errorf("MapReduce combined %q; want %q (index order)", got, want.String())
		}
	})
}

// TestLoopWithBlockingStopsAtAPanic: a panic in an iteration of a loop
// that has handed its iterations out as tasks re-panics from the loop as a
// *PanicError, and iterations not started by then do not run. Every
// iteration but the first (the chunk that teaches the loop its body waits)
// panics after its wait, and at most Workers + MaxBlocking = 4 run at once,
// so only a handful can start before the first panic stops the loop.
func TestLoopWithBlockingStopsAtAPanic(t *testing.T) {
	const n = 200
	p := newTestPool(t, worksteal.Config{Workers: 2, MaxBlocking: 2})
	defer watchdog(t)()
	var ran atomic.Int64
	var got any
	func() {
		defer func() { got = recover() }()
		p.Do(func(w *worksteal.Worker) {
			For(w, 0, n, func(w *worksteal.Worker, i int) {
				w.Blocking(func() { time.Sleep(time.Millisecond) })
				if i > 0 {
					ran.Add(1)
					panic("iteration panics")
				}
			})
		})
	}()
	if pe, ok := got.(*worksteal.PanicError); !ok || pe.Value != "iteration panics" {
		t.Fatalf("Do panicked with %v; want a *PanicError of an iteration", got)
	}
	if r := ran.Load(); r > 20 {
		t.Errorf("%d iterations started after the loop learned its body waits; want a handful (the first panic stops the loop)", r)
	}
}

// TestLoopWithBlockingStopsAtItsContext: once the loop's context is done,
// the iterations it handed out as tasks and that have not started do not
// run (WithContext), as for a loop that runs in chunks.
func TestLoopWithBlockingStopsAtItsContext(t *testing.T) {
	const n = 200
	p := newTestPool(t, worksteal.Config{Workers: 2, MaxBlocking: 2})
	defer watchdog(t)()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var ran atomic.Int64
	if err := p.Do(func(w *worksteal.Worker) {
		For(w, 0, n, func(w *worksteal.Worker, i int) {
			w.Blocking(func() { time.Sleep(time.Millisecond) })
			if i > 0 {
				ran.Add(1)
				cancel()
			}
		}, WithContext(ctx))
	}); err != nil {
		t.Fatal(err)
	}
	if r := ran.Load(); r > 20 {
		t.Errorf("%d iterations ran after the loop learned its body waits; want a handful (the first cancels the context)", r)
	}
}
