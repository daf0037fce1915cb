package worksteal_test

import (
	"fmt"

	"github.com/worksteal/worksteal"
)

// sumSplit splits on demand: only when a peer is idle and this worker has
// nothing queued that a thief could take instead, the way package par's
// loops decide.
func sumSplit(w *worksteal.Worker, xs []int) int {
	if len(xs) >= 1024 && w.PeersIdle() && !w.HasPendingTasks() {
		half := len(xs) / 2
		a, b := worksteal.Join(w,
			func(w *worksteal.Worker) int { return sumSplit(w, xs[:half]) },
			func(w *worksteal.Worker) int { return sumSplit(w, xs[half:]) })
		return a + b
	}
	s := 0
	for _, x := range xs {
		s += x
	}
	return s
}

func ExampleWorker_PeersIdle() {
	pool, _ := worksteal.New(worksteal.Config{Workers: 2})
	defer pool.Close()
	xs := make([]int, 60_000) // the sum fits a 32-bit int
	for i := range xs {
		xs[i] = i
	}
	sum, _ := worksteal.Run(pool, func(w *worksteal.Worker) int { return sumSplit(w, xs) })
	fmt.Println(sum)
	// Output: 1799970000
}

// On one worker nobody steals: the second half of a Join waits on the
// worker's own deque while the first half runs.
func ExampleWorker_HasPendingTasks() {
	pool, _ := worksteal.New(worksteal.Config{Workers: 1})
	defer pool.Close()
	worksteal.Run(pool, func(w *worksteal.Worker) int {
		fmt.Println("before the join:", w.HasPendingTasks())
		worksteal.Join(w,
			func(w *worksteal.Worker) int { fmt.Println("in the first half:", w.HasPendingTasks()); return 0 },
			func(w *worksteal.Worker) int { fmt.Println("in the second half:", w.HasPendingTasks()); return 0 })
		return 0
	})
	// Output:
	// before the join: false
	// in the first half: true
	// in the second half: false
}

// sumPolling is a sequential leaf that polls every 4096 elements, so that
// while it runs an idle worker can take the second half of the Join it is
// inside (without the polls, that half waits for the leaf to end).
func sumPolling(w *worksteal.Worker, xs []int) int {
	s := 0
	for i, x := range xs {
		if i%4096 == 0 {
			w.Poll()
		}
		s += x
	}
	return s
}

func ExampleWorker_Poll() {
	pool, _ := worksteal.New(worksteal.Config{Workers: 2})
	defer pool.Close()
	xs := make([]int, 1<<20)
	for i := range xs {
		xs[i] = 1
	}
	half := len(xs) / 2
	sum, _ := worksteal.Run(pool, func(w *worksteal.Worker) int {
		a, b := worksteal.Join(w,
			func(w *worksteal.Worker) int { return sumPolling(w, xs[:half]) },
			func(w *worksteal.Worker) int { return sumPolling(w, xs[half:]) })
		return a + b
	})
	fmt.Println(sum)
	// Output: 1048576
}
