package worksteal_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/worksteal/worksteal"
	"github.com/worksteal/worksteal/policy"
)

// Go has no thread-locals, so the worker handle travels explicitly (like a ctx).
func fib(w *worksteal.Worker, n int) int {
	if n < 2 {
		return n
	}
	a, b := worksteal.Join(w,
		func(w *worksteal.Worker) int { return fib(w, n-1) },
		func(w *worksteal.Worker) int { return fib(w, n-2) })
	return a + b
}

func ExampleNew() {
	pool, err := worksteal.New(worksteal.Config{Workers: 4})
	if err != nil {
		log.Fatal(err)
	}
	defer pool.Close()
	fmt.Println(pool.Workers())

	// An invalid Config is refused with an error naming the field.
	_, err = worksteal.New(worksteal.Config{Workers: -1})
	fmt.Println(err != nil)
	// Output:
	// 4
	// true
}

func ExampleRun() {
	pool, err := worksteal.New(worksteal.Config{})
	if err != nil {
		log.Fatal(err)
	}
	defer pool.Close()
	// Run blocks the calling goroutine until f has run on a worker.
	n, err := worksteal.Run(pool, func(w *worksteal.Worker) int { return fib(w, 20) })
	fmt.Println(n, err)
	// Output: 6765 <nil>
}

func ExampleJoin() {
	pool, err := worksteal.New(worksteal.Config{})
	if err != nil {
		log.Fatal(err)
	}
	defer pool.Close()
	fmt.Println(worksteal.Run(pool, func(w *worksteal.Worker) int { return fib(w, 20) }))
	// Output: 6765 <nil>
}

// The two halves of a Join may return different types.
func ExampleJoin_differentTypes() {
	pool, err := worksteal.New(worksteal.Config{})
	if err != nil {
		log.Fatal(err)
	}
	defer pool.Close()
	words := []string{"pear", "fig", "apple", "kiwi"}
	out, _ := worksteal.Run(pool, func(w *worksteal.Worker) string {
		longest, total := worksteal.Join(w,
			func(*worksteal.Worker) string {
				return slices.MaxFunc(words, func(a, b string) int { return len(a) - len(b) })
			},
			func(*worksteal.Worker) int {
				n := 0
				for _, s := range words {
					n += len(s)
				}
				return n
			})
		return fmt.Sprint(longest, " ", total)
	})
	fmt.Println(out)
	// Output: apple 16
}

// fibFunc is fib with JoinFunc: top-level functions and plain arguments, so
// a Join allocates nothing.
func fibFunc(w *worksteal.Worker, n int) int {
	if n < 2 {
		return n
	}
	a, b := worksteal.JoinFunc(w, fibFunc, n-1, fibFunc, n-2)
	return a + b
}

// Worker.Join is Join for halves that return nothing: here a parallel
// in-place transform of a slice, split in halves until pieces are small.
func ExampleWorker_Join() {
	p, err := worksteal.New(worksteal.Config{Workers: 2})
	if err != nil {
		panic(err)
	}
	defer p.Close()

	var double func(w *worksteal.Worker, a []int)
	double = func(w *worksteal.Worker, a []int) {
		if len(a) <= 1024 {
			for i := range a {
				a[i] *= 2
			}
			return
		}
		m := len(a) / 2
		w.Join(func(w *worksteal.Worker) { double(w, a[:m]) },
			func(w *worksteal.Worker) { double(w, a[m:]) })
	}
	a := make([]int, 100_000)
	for i := range a {
		a[i] = i
	}
	if err := p.Do(func(w *worksteal.Worker) { double(w, a) }); err != nil {
		panic(err)
	}
	fmt.Println(a[0], a[1], a[99_999])
	// Output: 0 2 199998
}

func ExampleJoinFunc() {
	pool, err := worksteal.New(worksteal.Config{})
	if err != nil {
		log.Fatal(err)
	}
	defer pool.Close()
	n, _ := worksteal.Run(pool, func(w *worksteal.Worker) int { return fibFunc(w, 25) })
	fmt.Println(n)
	// Output: 75025
}

// sumSpan adds up a slice by halving it: JoinFunc with a struct argument.
type span struct{ xs []int }

func sumSpan(w *worksteal.Worker, s span) int {
	if len(s.xs) <= 64 {
		t := 0
		for _, x := range s.xs {
			t += x
		}
		return t
	}
	mid := len(s.xs) / 2
	a, b := worksteal.JoinFunc(w, sumSpan, span{s.xs[:mid]}, sumSpan, span{s.xs[mid:]})
	return a + b
}

func ExampleJoinFunc_divideAndConquer() {
	pool, err := worksteal.New(worksteal.Config{})
	if err != nil {
		log.Fatal(err)
	}
	defer pool.Close()
	xs := make([]int, 10000)
	for i := range xs {
		xs[i] = i + 1
	}
	sum, _ := worksteal.Run(pool, func(w *worksteal.Worker) int { return sumSpan(w, span{xs}) })
	fmt.Println(sum)
	// Output: 50005000
}

// Worker.Scope runs a group of tasks from inside the pool and returns when
// all of them (and what they spawn) have finished.
func ExampleWorker_Scope() {
	pool, err := worksteal.New(worksteal.Config{})
	if err != nil {
		log.Fatal(err)
	}
	defer pool.Close()
	total, _ := worksteal.Run(pool, func(w *worksteal.Worker) int64 {
		var sum atomic.Int64
		err := w.Scope(context.Background(), func(w *worksteal.Worker, s *worksteal.Scope) error {
			for i := 1; i <= 10; i++ {
				s.Spawn(w, func(w *worksteal.Worker) { sum.Add(int64(fib(w, i))) })
			}
			return nil
		})
		if err != nil {
			log.Fatal(err)
		}
		return sum.Load() // every task has finished
	})
	fmt.Println(total)
	// Output: 143
}

// Pool.Scope is Worker.Scope for a plain goroutine outside the pool.
func ExamplePool_Scope() {
	pool, err := worksteal.New(worksteal.Config{})
	if err != nil {
		log.Fatal(err)
	}
	defer pool.Close()
	squares := make([]int, 8)
	err = pool.Scope(context.Background(), func(w *worksteal.Worker, s *worksteal.Scope) error {
		for i := range squares {
			s.Spawn(w, func(*worksteal.Worker) { squares[i] = i * i }) // each task owns its slot
		}
		return nil
	})
	fmt.Println(squares, err)
	// Output: [0 1 4 9 16 25 36 49] <nil>
}

type node struct {
	name     string
	children []*node
}

// Spawn from inside a task forks through the handle the task received, so
// a whole tree is walked in parallel within one Scope.
func ExampleScope_Spawn() {
	pool, err := worksteal.New(worksteal.Config{})
	if err != nil {
		log.Fatal(err)
	}
	defer pool.Close()
	tree := &node{"root", []*node{
		{"a", []*node{{"a1", nil}, {"a2", nil}}},
		{"b", []*node{{"b1", []*node{{"b1x", nil}}}}},
	}}
	var mu sync.Mutex
	var names []string
	var visit func(w *worksteal.Worker, s *worksteal.Scope, n *node)
	visit = func(w *worksteal.Worker, s *worksteal.Scope, n *node) {
		mu.Lock()
		names = append(names, n.name)
		mu.Unlock()
		for _, c := range n.children {
			s.Spawn(w, func(w *worksteal.Worker) { visit(w, s, c) })
		}
	}
	err = pool.Scope(context.Background(), func(w *worksteal.Worker, s *worksteal.Scope) error {
		visit(w, s, tree)
		return nil
	})
	slices.Sort(names) // the visiting order is not deterministic
	fmt.Println(names, err)
	// Output: [a a1 a2 b b1 b1x root] <nil>
}

// Go is Spawn for tasks that can fail: the first error cancels the scope's
// Context and is what Scope returns.
func ExampleScope_Go() {
	pool, err := worksteal.New(worksteal.Config{})
	if err != nil {
		log.Fatal(err)
	}
	defer pool.Close()
	inputs := []int{4, 8, 15, -16, 23, 42}
	var valid atomic.Int32
	err = pool.Scope(context.Background(), func(w *worksteal.Worker, s *worksteal.Scope) error {
		for _, x := range inputs {
			s.Go(w, func(*worksteal.Worker) error {
				if x < 0 {
					return fmt.Errorf("negative input %d", x)
				}
				valid.Add(1)
				return nil
			})
		}
		return nil
	})
	fmt.Println(err)
	// Output: negative input -16
}

// A long task watches the scope's Context to give up when a sibling fails.
func ExampleScope_Context() {
	pool, err := worksteal.New(worksteal.Config{Workers: 2})
	if err != nil {
		log.Fatal(err)
	}
	defer pool.Close()
	var gaveUp atomic.Bool
	err = pool.Scope(context.Background(), func(w *worksteal.Worker, s *worksteal.Scope) error {
		started := make(chan struct{})
		s.Go(w, func(w *worksteal.Worker) error {
			close(started)
			// Waiting is blocking: say so, so that the pool compensates.
			w.Blocking(func() { <-s.Context().Done() })
			gaveUp.Store(true)
			return s.Context().Err()
		})
		w.Blocking(func() { <-started })
		s.Go(w, func(*worksteal.Worker) error { return errors.New("disk full") })
		return nil
	})
	fmt.Println(err, gaveUp.Load())
	// Output: disk full true
}

func ExampleSpawnValue() {
	pool, err := worksteal.New(worksteal.Config{})
	if err != nil {
		log.Fatal(err)
	}
	defer pool.Close()
	err = pool.Scope(context.Background(), func(w *worksteal.Worker, s *worksteal.Scope) error {
		fa := worksteal.SpawnValue(s, w, func(w *worksteal.Worker) int { return fib(w, 15) })
		fb := worksteal.SpawnValue(s, w, func(*worksteal.Worker) string { return "fib(15)" })
		fmt.Println(fb.Wait(w), "=", fa.Wait(w))
		return nil
	})
	if err != nil {
		log.Fatal(err)
	}
	// Output: fib(15) = 610
}

// Wait does not block the worker: it runs other tasks until the result is in.
func ExampleFuture_Wait() {
	pool, err := worksteal.New(worksteal.Config{})
	if err != nil {
		log.Fatal(err)
	}
	defer pool.Close()
	var total int
	err = pool.Scope(context.Background(), func(w *worksteal.Worker, s *worksteal.Scope) error {
		var futures []*worksteal.Future[int]
		for i := range 10 {
			futures = append(futures, worksteal.SpawnValue(s, w, func(w *worksteal.Worker) int { return fib(w, i) }))
		}
		for _, f := range futures {
			total += f.Wait(w)
		}
		return nil
	})
	fmt.Println(total, err)
	// Output: 88 <nil>
}

// Get reads a result without waiting: after Scope returned, every task has
// finished.
func ExampleFuture_Get() {
	pool, err := worksteal.New(worksteal.Config{})
	if err != nil {
		log.Fatal(err)
	}
	defer pool.Close()
	var f *worksteal.Future[string]
	err = pool.Scope(context.Background(), func(w *worksteal.Worker, s *worksteal.Scope) error {
		f = worksteal.SpawnValue(s, w, func(*worksteal.Worker) string { return "ready" })
		return nil
	})
	v, ok := f.Get()
	fmt.Println(v, ok, err)
	// Output: ready true <nil>
}

// Submit is fire and forget; wait for the tasks with a sync.WaitGroup.
func ExamplePool_Submit() {
	pool, err := worksteal.New(worksteal.Config{})
	if err != nil {
		log.Fatal(err)
	}
	defer pool.Close()
	var sum atomic.Int64
	var wg sync.WaitGroup
	for i := 1; i <= 100; i++ {
		wg.Add(1)
		if err := pool.Submit(func(*worksteal.Worker) { defer wg.Done(); sum.Add(int64(i)) }); err != nil {
			log.Fatal(err)
		}
	}
	wg.Wait()
	fmt.Println(sum.Load())
	// Output: 5050
}

// SubmitTo hints which worker should run a task (say, the one whose cache
// holds its data); an idle worker may still take it.
func ExamplePool_SubmitTo() {
	pool, err := worksteal.New(worksteal.Config{Workers: 4})
	if err != nil {
		log.Fatal(err)
	}
	defer pool.Close()
	shards := make([]int, pool.Workers())
	var wg sync.WaitGroup
	for i := range shards {
		wg.Add(1)
		if err := pool.SubmitTo(i, func(*worksteal.Worker) { defer wg.Done(); shards[i] = 10 * i }); err != nil {
			log.Fatal(err)
		}
	}
	wg.Wait()
	fmt.Println(shards)
	fmt.Println(pool.SubmitTo(pool.Workers(), func(*worksteal.Worker) {}) != nil) // out of range
	// Output:
	// [0 10 20 30]
	// true
}

// SubmitSpread deals a batch of tasks round-robin over the workers' inboxes.
func ExamplePool_SubmitSpread() {
	pool, err := worksteal.New(worksteal.Config{Workers: 3})
	if err != nil {
		log.Fatal(err)
	}
	defer pool.Close()
	var done atomic.Int32
	var wg sync.WaitGroup
	for range 30 {
		wg.Add(1)
		if err := pool.SubmitSpread(func(*worksteal.Worker) { defer wg.Done(); done.Add(1) }); err != nil {
			log.Fatal(err)
		}
	}
	wg.Wait()
	fmt.Println(done.Load())
	// Output: 30
}

// Close waits for every queued task, then refuses new work.
func ExamplePool_Close() {
	pool, err := worksteal.New(worksteal.Config{})
	if err != nil {
		log.Fatal(err)
	}
	var ran atomic.Int32
	for range 1000 {
		pool.Submit(func(*worksteal.Worker) { ran.Add(1) })
	}
	fmt.Println(pool.Close(), ran.Load())
	_, err = worksteal.Run(pool, func(*worksteal.Worker) int { return 0 })
	fmt.Println(errors.Is(err, worksteal.ErrClosed), pool.Close())
	// Output:
	// <nil> 1000
	// true <nil>
}

// Close returns the first panic of a submitted task when Config.OnPanic is
// not set.
func ExamplePool_Close_panic() {
	pool, err := worksteal.New(worksteal.Config{Workers: 1})
	if err != nil {
		log.Fatal(err)
	}
	pool.Submit(func(*worksteal.Worker) { panic("lost") })
	err = pool.Close()
	var pe *worksteal.PanicError
	fmt.Println(errors.As(err, &pe), pe.Value)
	// Output: true lost
}

// A handler for the panics of submitted tasks that also logs them as a pool
// without a handler does.
func ExampleLogPanic() {
	var failed atomic.Int64
	pool, err := worksteal.New(worksteal.Config{OnPanic: func(pe *worksteal.PanicError) {
		failed.Add(1)
		worksteal.LogPanic(pe)
	}})
	if err != nil {
		log.Fatal(err)
	}
	pool.Submit(func(*worksteal.Worker) { panic("lost") })
	pool.Close()
	fmt.Println("failed tasks:", failed.Load())
}

// Two workers both wait for a value that only a third task produces: with
// Blocking, the pool starts a spare worker to run it instead of deadlocking.
func ExampleWorker_Blocking() {
	pool, err := worksteal.New(worksteal.Config{Workers: 2})
	if err != nil {
		log.Fatal(err)
	}
	defer pool.Close()
	ch := make(chan int)
	results := make(chan int, 2)
	var waiting sync.WaitGroup
	waiting.Add(2)
	for range 2 {
		pool.Submit(func(w *worksteal.Worker) {
			waiting.Done()
			var v int
			w.Blocking(func() { v = <-ch })
			results <- v
		})
	}
	waiting.Wait() // both workers are taken
	pool.Submit(func(*worksteal.Worker) { ch <- 20; ch <- 22 })
	fmt.Println(<-results + <-results)
	// Output: 42
}

// Stats are published at quiet moments; after Close they are complete.
func ExamplePool_Stats() {
	pool, err := worksteal.New(worksteal.Config{Workers: 2})
	if err != nil {
		log.Fatal(err)
	}
	worksteal.Run(pool, func(w *worksteal.Worker) int { return fib(w, 20) })
	pool.Close()
	st := pool.Stats()
	t := st.Total()
	fmt.Println(len(st.Workers), t.Executed > 0, t.Executed == t.Spawned+1, t.Stolen == t.StolenFrom)
	// Output: 2 true true true
}

func ExampleStats_Total() {
	st := worksteal.Stats{Workers: []worksteal.WorkerStats{
		{Executed: 90, Spawned: 80, Stolen: 3},
		{Executed: 10, Spawned: 20, Stolen: 7},
	}}
	t := st.Total()
	fmt.Println(t.Executed, t.Spawned, t.Stolen)
	// Output: 100 100 10
}

func ExampleStats_StealRate() {
	st := worksteal.Stats{Workers: []worksteal.WorkerStats{
		{Executed: 90, Stolen: 3},
		{Executed: 10, Stolen: 7},
	}}
	fmt.Println(st.StealRate()) // 10 stolen of 100 executed
	// Output: 0.1
}

func ExampleStats_Utilization() {
	st := worksteal.Stats{Workers: []worksteal.WorkerStats{
		{Busy: 3e9, Idle: 1e9},
		{Busy: 1e9, Idle: 3e9},
	}}
	fmt.Println(st.Utilization())
	// Output: 0.5
}

func ExampleStats_Imbalance() {
	st := worksteal.Stats{Workers: []worksteal.WorkerStats{
		{Busy: 3e9},
		{Busy: 1e9},
	}}
	fmt.Println(st.Imbalance()) // max 3 s over a mean of 2 s
	// Output: 1.5
}

// Sub isolates one phase of a long-lived pool.
func ExampleStats_Sub() {
	before := worksteal.Stats{Workers: []worksteal.WorkerStats{{Executed: 100}, {Executed: 50}}}
	after := worksteal.Stats{Workers: []worksteal.WorkerStats{{Executed: 130}, {Executed: 90}}}
	phase := after.Sub(before)
	fmt.Println(phase.Workers[0].Executed, phase.Workers[1].Executed, phase.Total().Executed)
	// Output: 30 40 70
}

// Policies: thieves try workers that share their last-level cache first, and
// take half a victim's queue at a time.
func ExampleConfig() {
	pool, err := worksteal.New(worksteal.Config{
		Workers:     4,
		Victim:      policy.Locality,
		CacheGroups: true, // groups from the cache topology (Linux; one group elsewhere)
		Steal:       policy.StealHalf,
	})
	if err != nil {
		log.Fatal(err)
	}
	defer pool.Close()
	cfg := pool.Config()
	fmt.Println(cfg.Victim, cfg.Steal, cfg.Groups.Len() >= 1)
	fmt.Println(worksteal.Run(pool, func(w *worksteal.Worker) int { return fib(w, 20) }))
	// Output:
	// locality half true
	// 6765 <nil>
}

// Explicit groups: workers 0–1 and 2–3 form two locality groups.
func ExampleConfig_groups() {
	pool, err := worksteal.New(worksteal.Config{
		Workers: 4,
		Victim:  policy.Locality,
		Groups:  policy.EvenGroups(4, 2),
	})
	if err != nil {
		log.Fatal(err)
	}
	defer pool.Close()
	fmt.Println(pool.Config().Groups.Members(1))
	fmt.Println(worksteal.Run(pool, func(w *worksteal.Worker) int { return fibFunc(w, 20) }))
	// Output:
	// [2 3]
	// 6765 <nil>
}

// A panic in a task reaches the caller of Run (or Scope) as a *PanicError
// that keeps the panic value and the original stack; errors.Is and
// errors.As see through it to an error value.
func ExamplePanicError() {
	pool, err := worksteal.New(worksteal.Config{})
	if err != nil {
		log.Fatal(err)
	}
	defer pool.Close()
	defer func() {
		pe := recover().(*worksteal.PanicError)
		fmt.Println(pe.Value)
		fmt.Println(errors.Is(pe, fs.ErrNotExist), len(pe.Stack) > 0)
	}()
	worksteal.Run(pool, func(w *worksteal.Worker) int {
		a, b := worksteal.Join(w,
			func(w *worksteal.Worker) int { return fib(w, 10) },
			func(*worksteal.Worker) int { panic(fmt.Errorf("config: %w", fs.ErrNotExist)) })
		return a + b
	})
	// Output:
	// config: file does not exist
	// true true
}

// Inside a task, a Join passes a panic on as a plain call of its halves
// does: a recover in the function that called Join sees the value as it
// was raised, once the other half has finished — or, when the first half
// panicked before another worker took the second, with the second half
// dropped, never run.
func ExampleJoin_panic() {
	pool, err := worksteal.New(worksteal.Config{Workers: 1})
	if err != nil {
		log.Fatal(err)
	}
	defer pool.Close()
	worksteal.Run(pool, func(w *worksteal.Worker) int {
		defer func() { fmt.Println("recovered:", recover()) }()
		worksteal.Join(w,
			func(*worksteal.Worker) int { panic("first half") },
			func(*worksteal.Worker) int { fmt.Println("second half ran"); return 0 })
		return 0
	})
	// Output:
	// recovered: first half
}
