package worksteal_test

import (
	"fmt"
	"log"
	"sync/atomic"
	"time"

	"github.com/worksteal/worksteal"
)

// A loop that keeps its own range in local variables asks Surplus between
// steps: when a resize left its worker out, it offers the rest (here by
// forking it as a Join's second half, which Surplus has just made public)
// so the active workers take it, and the resize acts within one step.
func ExampleWorker_Surplus() {
	pool, err := worksteal.New(worksteal.Config{Workers: 2})
	if err != nil {
		log.Fatal(err)
	}
	defer pool.Close()
	var sum atomic.Int64
	var walk func(w *worksteal.Worker, lo, hi int)
	walk = func(w *worksteal.Worker, lo, hi int) {
		for i := lo; i < hi; i++ {
			if w.Surplus() && hi-i > 1 {
				mid := i + (hi-i)/2
				worksteal.Join(w,
					func(w *worksteal.Worker) struct{} { walk(w, i, mid); return struct{}{} },
					func(w *worksteal.Worker) struct{} { walk(w, mid, hi); return struct{}{} })
				return
			}
			sum.Add(int64(i))
		}
	}
	worksteal.Run(pool, func(w *worksteal.Worker) int { walk(w, 0, 1000); return 0 })
	fmt.Println(sum.Load())
	// Output: 499500
}

// The stall monitor reports a worker that makes no progress while others
// are idle: here a first half that waits, without polling, for its own
// second half, which stays latent (the other worker was busy at the fork).
// The report names the worker and carries its stack; this program then
// lets the first half go.
func ExampleStall() {
	reported := make(chan worksteal.Stall, 1)
	pool, err := worksteal.New(worksteal.Config{Workers: 2, StallReport: 50 * time.Millisecond,
		OnStall: func(s worksteal.Stall) {
			select {
			case reported <- s:
			default:
			}
		}})
	if err != nil {
		log.Fatal(err)
	}
	defer pool.Close()
	var hold atomic.Bool
	hold.Store(true)
	started := make(chan struct{})
	pool.Submit(func(*worksteal.Worker) { // keeps the other worker busy at the fork
		close(started)
		for hold.Load() {
		}
	})
	<-started
	release := make(chan struct{})
	go func() {
		s := <-reported
		fmt.Println("stalled worker reported, stack included:", s.Stack != "")
		close(release)
	}()
	worksteal.Run(pool, func(w *worksteal.Worker) int {
		a, b := worksteal.Join(w, func(w *worksteal.Worker) int {
			hold.Store(false)
			<-release // stands for a wait on the second half: no poll, no Blocking
			return 1
		}, func(w *worksteal.Worker) int { return 2 })
		return a + b
	})
	// Output: stalled worker reported, stack included: true
}
