package balance_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
	"time"

	"github.com/worksteal/worksteal/balance"
)

func ExampleSplit() {
	// 10 items on 3 workers: the first 10 mod 3 = 1 range gets the extra one.
	fmt.Println(balance.Split(10, 3))
	// Output: [[0,4) [4,7) [7,10)]
}

func ExampleChunks() {
	fmt.Println(balance.Chunks(10, 4))
	// Output: [[0,4) [4,8) [8,10)]
}

func ExampleRange() {
	r := balance.Range{Lo: 3, Hi: 7}
	fmt.Println(r, r.Len())
	// Output: [3,7) 4
}

func ExampleRoundRobin() {
	fmt.Println(balance.RoundRobin(7, 3))
	// Output: [[0 3 6] [1 4] [2 5]]
}

func ExampleQuantileBounds() {
	// Sample the keys, sort the sample, take its quantiles as split points.
	sample := []string{"ant", "bee", "cat", "dog", "eel", "fox", "gnu", "hen"}
	bounds := balance.QuantileBounds(sample, 4)
	fmt.Println(bounds)
	// Output: [cat eel gnu]
}

func ExampleRangeIndex() {
	bounds := []string{"cat", "eel", "gnu"}
	for _, k := range []string{"ape", "cat", "emu", "yak"} {
		fmt.Println(k, "→ range", balance.RangeIndex(bounds, k))
	}
	// Output:
	// ape → range 0
	// cat → range 1
	// emu → range 2
	// yak → range 3
}

func ExampleSplitByBounds() {
	keys := []int{1, 3, 3, 5, 8, 9, 12}
	fmt.Println(balance.SplitByBounds(keys, []int{3, 9}))
	// Output: [[0,1) [1,5) [5,7)]
}

func ExampleJump() {
	// Growing from 4 to 5 workers moves only keys onto the new worker.
	moved := 0
	for key := range uint64(10000) {
		before, after := balance.Jump(key, 4), balance.Jump(key, 5)
		if before != after {
			if after != 4 {
				panic("a key moved between old workers")
			}
			moved++
		}
	}
	fmt.Printf("moved %.0f%% of the keys (1/5 = 20%%)\n", float64(moved)/100)
	// Output: moved 20% of the keys (1/5 = 20%)
}

func ExampleHashKey() {
	// The hash is fixed: the same in every process and version.
	fmt.Printf("%#x\n", balance.HashKey("user:42"))
	// Output: 0xd68cb863fc5e0c34
}

// A string key's owner: its fixed hash, routed by Jump (stable and
// minimal-movement).
func ExampleJump_stringKeys() {
	for _, user := range []string{"alice", "bob", "carol"} {
		fmt.Println(user, "→ worker", balance.Jump(balance.HashKey(user), 4))
	}
	// Output:
	// alice → worker 2
	// bob → worker 2
	// carol → worker 1
}

func ExampleLPT() {
	costs := []float64{3, 3, 2, 2, 2}
	a := balance.LPT(costs, 2)
	fmt.Println(a.Items(), a)
	// Output: [[0 2 4] [1 3]] loads [7 5] makespan 7 imbalance 1.167
}

func ExampleListSchedule() {
	// In the given order, each item to the least-loaded worker: the big
	// item comes last and lands on a loaded worker.
	a := balance.ListSchedule([]float64{1, 1, 2}, 2)
	fmt.Println(a)
	// Output: loads [3 1] makespan 3 imbalance 1.500
}

func ExampleLPTSpeeds() {
	// One machine twice as fast as the other takes twice the work.
	a := balance.LPTSpeeds([]float64{4, 4, 4, 4, 4, 4}, []float64{2, 1})
	fmt.Println(a.Items(), a)
	// Output: [[0 1 3 4] [2 5]] loads [8 8] makespan 8 imbalance 1.000
}

func ExampleImprove() {
	costs := []float64{3, 3, 2, 2, 2}
	lpt := balance.LPT(costs, 2)
	better := balance.Improve(costs, lpt)
	fmt.Println("LPT:    ", lpt.Items(), lpt.Makespan())
	fmt.Println("Improve:", better.Items(), better.Makespan())
	// Output:
	// LPT:     [[0 2 4] [1 3]] 7
	// Improve: [[2 3 4] [0 1]] 6
}

func ExampleAssignment_Imbalance() {
	a := balance.Assignment{Loads: []float64{9, 6, 6}}
	fmt.Printf("%.2f\n", a.Imbalance()) // 9 / mean 7
	// Output: 1.29
}

func ExampleImbalance() {
	busy := []time.Duration{900 * time.Millisecond, 600 * time.Millisecond, 600 * time.Millisecond}
	fmt.Printf("%.2f\n", balance.Imbalance(busy))
	fmt.Printf("%.2f\n", balance.Imbalance([]float64{5, 5, 5}))
	// Output:
	// 1.29
	// 1.00
}

func ExampleStragglerRatio() {
	ms := time.Millisecond
	fmt.Println(balance.StragglerRatio([]time.Duration{10 * ms, 12 * ms, 11 * ms, 55 * ms, 10 * ms}))
	// Output: 5
}

func ExampleUtilization() {
	busy := []time.Duration{9 * time.Second, 8 * time.Second}
	idle := []time.Duration{1 * time.Second, 2 * time.Second}
	fmt.Println(balance.Utilization(busy, idle))
	// Output: 0.85
}

func ExampleQueueDepthStdDev() {
	fmt.Println(balance.QueueDepthStdDev([]int{2, 4, 4, 4, 5, 5, 7, 9}))
	// Output: 2
}

// The median is Quantile(xs, 0.5): the mean of the two middle values for an
// even count.
func ExampleQuantile_median() {
	fmt.Println(balance.Quantile([]float64{7, 1, 3, 5}, 0.5))
	// Output: 4
}

func ExampleQuantile() {
	ms := time.Millisecond
	durs := []time.Duration{10 * ms, 20 * ms, 30 * ms, 40 * ms, 50 * ms}
	fmt.Println(time.Duration(balance.Quantile(durs, 0.75)))
	// Output: 40ms
}

func ExampleAnalyze() {
	ms := time.Millisecond
	r := balance.Analyze(balance.Profile{
		Loads:     []float64{9, 6, 6},
		Durations: []time.Duration{10 * ms, 12 * ms, 11 * ms, 90 * ms, 10 * ms, 9 * ms, 14 * ms},
	})
	fmt.Println(r)
	fmt.Println("missed:", len(r.Missed()), "ok:", r.OK())
	// Output:
	// imbalance 1.29 (target < 1.20): missed
	// straggler ratio 8.18 (target < 2.00): missed
	// suggest: stealing + hedging (long tail (p99 = 7.8× median))
	// missed: 2 ok: false
}

func ExampleStrategy() {
	r := balance.Analyze(balance.Profile{
		Durations:  []time.Duration{1, 3, 2, 5, 1, 2},
		CostsKnown: true,
	})
	fmt.Println(r.Suggest)
	// Output: weighted (LPT)
}

func ExampleStatic() {
	c := balance.Static{}.Start(10, 3)
	for w := range 3 {
		r, _ := c.Next(w)
		fmt.Println("worker", w, r)
	}
	// Output:
	// worker 0 [0,4)
	// worker 1 [4,7)
	// worker 2 [7,10)
}

func ExampleDynamic() {
	c := balance.Dynamic{Chunk: 4}.Start(10, 2)
	// Whichever worker asks next gets the next chunk.
	for _, w := range []int{1, 1, 0, 1} {
		r, ok := c.Next(w)
		fmt.Println("worker", w, r, ok)
	}
	// Output:
	// worker 1 [0,4) true
	// worker 1 [4,8) true
	// worker 0 [8,10) true
	// worker 1 [0,0) false
}

func ExampleGuided() {
	c := balance.Guided{}.Start(100, 4)
	var sizes []int
	for r, ok := c.Next(0); ok; r, ok = c.Next(0) {
		sizes = append(sizes, r.Len())
	}
	fmt.Println(sizes)
	// Output: [25 19 14 11 8 6 5 3 3 2 1 1 1 1]
}

func ExampleLoop() {
	// Sum of squares under each schedule: same loop body, same answer.
	for _, s := range []balance.Schedule{balance.Static{}, balance.Dynamic{Chunk: 64}, balance.Guided{}} {
		var sum atomic.Int64
		err := balance.Loop(context.Background(), 1000, 4, s, func(lo, hi int) {
			local := 0
			for i := lo; i < hi; i++ {
				local += i * i
			}
			sum.Add(int64(local))
		})
		fmt.Println(s, sum.Load(), err)
	}
	// Output:
	// static 332833500 <nil>
	// dynamic(64) 332833500 <nil>
	// guided(1) 332833500 <nil>
}

func ExampleBounded() {
	var inFlight, peak atomic.Int32
	err := balance.Bounded(context.Background(), 20, 3, func(ctx context.Context, i int) error {
		n := inFlight.Add(1)
		defer inFlight.Add(-1)
		for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
		}
		time.Sleep(time.Millisecond) // a network call
		return nil
	})
	fmt.Println(err, peak.Load() <= 3)
	// Output: <nil> true
}

func ExampleBoundedMap() {
	lengths, err := balance.BoundedMap(context.Background(), 3, 2, func(ctx context.Context, i int) (int, error) {
		return len([]string{"a", "bb", "ccc"}[i]), nil
	})
	fmt.Println(lengths, err)
	// Output: [1 2 3] <nil>
}

func ExampleNewHistory() {
	h := balance.NewHistory(100)
	for _, d := range []time.Duration{30, 10, 20, 40} {
		h.Observe(d * time.Millisecond)
	}
	fmt.Println(h.Len(), h.Quantile(0.5), h.Quantile(0.75))
	// Output: 4 25ms 32.5ms
}

func ExampleTimeoutOr() {
	slow := func(ctx context.Context) (string, error) {
		select {
		case <-time.After(time.Hour):
			return "computed", nil
		case <-ctx.Done():
			return "", ctx.Err()
		}
	}
	to := &balance.Timeout{After: 5 * time.Millisecond}
	v, err := balance.TimeoutOr(context.Background(), to, "cached", slow)
	fmt.Println(v, err, to.Timeouts())
	// Output: cached <nil> 1
}

func ExampleTimeout() {
	// 200% of the median of the tasks finished so far, once there are 5.
	hist := balance.NewHistory(0)
	to := &balance.Timeout{After: time.Second, Factor: 2, MinSamples: 5, History: hist}
	fmt.Println("warming up:", to.Limit())
	for _, d := range []time.Duration{40, 50, 60, 50, 45} {
		hist.Observe(d * time.Millisecond) // TimeoutOr does this for each task it runs
	}
	fmt.Println("after 5 tasks:", to.Limit())
	// Output:
	// warming up: 1s
	// after 5 tasks: 100ms
}

func ExampleHedged() {
	h := &balance.Hedge{Delay: 5 * time.Millisecond} // opt-in: idempotent work only
	var calls atomic.Int32
	replica := func(ctx context.Context) (string, error) {
		if calls.Add(1) == 1 {
			<-ctx.Done() // the first copy is a straggler; it is cancelled
			return "", ctx.Err()
		}
		return "from the hedge", nil
	}
	v, err := balance.Hedged(context.Background(), h, replica)
	s := h.Stats()
	fmt.Println(v, err, s.Started, s.Won)
	// Output: from the hedge <nil> 1 1
}

func ExampleHedge_Threshold() {
	h := &balance.Hedge{} // default rule: 1.5 × p75 once 10 tasks finished
	_, ok := h.Threshold()
	fmt.Println("hedging before any history:", ok)
	hist := balance.NewHistory(0)
	for i := 1; i <= 10; i++ {
		hist.Observe(time.Duration(i) * 10 * time.Millisecond)
	}
	h = &balance.Hedge{History: hist}
	d, ok := h.Threshold()
	fmt.Println(d, ok)
	// Output:
	// hedging before any history: false
	// 116.25ms true
}

func ExampleRetry() {
	attempts := 0
	flaky := func(ctx context.Context) (string, error) {
		attempts++
		if attempts < 3 {
			return "", errors.New("connection reset")
		}
		return "ok", nil
	}
	v, err := balance.Retry(context.Background(), balance.Backoff{Attempts: 5, Initial: time.Millisecond}, flaky)
	fmt.Println(v, err, attempts)
	// Output: ok <nil> 3
}

func ExamplePermanent() {
	errNotFound := errors.New("not found")
	attempts := 0
	_, err := balance.Retry(context.Background(), balance.Backoff{}, func(ctx context.Context) (int, error) {
		attempts++
		return 0, balance.Permanent(errNotFound) // retrying will not help
	})
	fmt.Println(err == errNotFound, attempts)
	// Output: true 1
}

func ExampleIsPermanent() {
	errBadRequest := errors.New("bad request")
	wrapped := fmt.Errorf("fetching item 7: %w", balance.Permanent(errBadRequest))
	fmt.Println(balance.IsPermanent(wrapped), balance.IsPermanent(errBadRequest))
	fmt.Println(errors.Is(wrapped, errBadRequest))
	// Output:
	// true false
	// true
}

func ExampleBackoff_Wait() {
	b := balance.Backoff{Initial: 100 * time.Millisecond, Max: time.Second}
	for k := 1; k <= 5; k++ {
		lo, hi := b.Wait(k)
		fmt.Println(k, lo, hi)
	}
	// Output:
	// 1 50ms 100ms
	// 2 100ms 200ms
	// 3 200ms 400ms
	// 4 400ms 800ms
	// 5 500ms 1s
}

func ExampleAssignment_Items() {
	a := balance.LPT([]float64{5, 1, 4, 2}, 2)
	fmt.Println(a.Items(), slices.Max(a.Loads))
	// Output: [[0 1] [2 3]] 6
}
