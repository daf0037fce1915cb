package schedule_test

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/worksteal/worksteal"
	"github.com/worksteal/worksteal/balance"
	"github.com/worksteal/worksteal/par/schedule"
)

func ExampleForPool() {
	p, _ := worksteal.New(worksteal.Config{Workers: 2})
	defer p.Close()
	// The same loop under each strategy: same answer, different measurements.
	schedules := []balance.Schedule{balance.Static{}, balance.Dynamic{Chunk: 64}, balance.Guided{}, balance.Stealing{}}
	for _, s := range schedules {
		var sum atomic.Int64
		st, err := schedule.ForPool(context.Background(), p, 1000, s, func(w *worksteal.Worker, lo, hi int) {
			local := 0
			for i := lo; i < hi; i++ {
				local += i * i
			}
			sum.Add(int64(local))
		})
		fmt.Println(st.Schedule, sum.Load(), st.Done, err)
	}
	// Output:
	// static 332833500 1000 <nil>
	// dynamic(64) 332833500 1000 <nil>
	// guided(1) 332833500 1000 <nil>
	// stealing 332833500 1000 <nil>
}

func ExampleFor() {
	p, _ := worksteal.New(worksteal.Config{Workers: 2})
	defer p.Close()
	// Inside the pool: a loop over rows, each row a nested loop over columns.
	var cells atomic.Int64
	worksteal.Run(p, func(w *worksteal.Worker) struct{} {
		st := schedule.For(w, 100, balance.Dynamic{Chunk: 10}, func(w *worksteal.Worker, lo, hi int) {
			for range hi - lo {
				schedule.For(w, 50, balance.Stealing{}, func(w *worksteal.Worker, lo, hi int) {
					cells.Add(int64(hi - lo))
				})
			}
		})
		fmt.Println(st.Schedule, "rows:", st.Done, "in", st.TotalChunks(), "chunks")
		return struct{}{}
	})
	fmt.Println("cells:", cells.Load())
	// Output:
	// dynamic(10) rows: 100 in 10 chunks
	// cells: 5000
}

func ExampleForContext() {
	p, _ := worksteal.New(worksteal.Config{Workers: 2})
	defer p.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	worksteal.Run(p, func(w *worksteal.Worker) struct{} {
		st, err := schedule.ForContext(ctx, w, 1_000_000, balance.Dynamic{Chunk: 100}, func(w *worksteal.Worker, lo, hi int) {
			cancel() // e.g. an answer was found: no new chunk starts
		})
		fmt.Println(errors.Is(err, context.Canceled), st.Done < st.N)
		return struct{}{}
	})
	// Output: true true
}

func Example_stealing() {
	// On the pool, Stealing is the runtime's own adaptive loop. Its Chunker
	// (for Loop) is range stealing: worker 0, alone, runs its own block
	// [0,4) and then steals the back half of worker 1's block, again and
	// again.
	c := balance.Stealing{}.Start(8, 2)
	for r, ok := c.Next(0); ok; r, ok = c.Next(0) {
		fmt.Print(r, " ")
	}
	fmt.Println()
	// Output: [0,1) [1,2) [2,3) [3,4) [6,7) [7,8) [5,6) [4,5)
}

func ExampleLoopStats() {
	p, _ := worksteal.New(worksteal.Config{Workers: 2})
	defer p.Close()
	st, _ := schedule.ForPool(context.Background(), p, 64, balance.Static{Chunk: 8}, func(w *worksteal.Worker, lo, hi int) {})
	fmt.Println(st.Schedule, st.N, st.TotalChunks(), len(st.Busy))
	// The run's measurements feed the metrics and the report.
	r := balance.Analyze(st.Profile())
	fmt.Println(r.Imbalance == st.Imbalance(), r.Utilization == st.Utilization())
	// Output:
	// static(8) 64 8 2
	// true true
}
