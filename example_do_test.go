package worksteal_test

import (
	"errors"
	"fmt"
	"io/fs"
	"log"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"

	"github.com/worksteal/worksteal"
)

// Do runs a computation that returns nothing from plain code: here a loop
// written with Join (package par's loops are called the same way).
func ExamplePool_Do() {
	pool, err := worksteal.New(worksteal.Config{Workers: 2})
	if err != nil {
		log.Fatal(err)
	}
	defer pool.Close()
	squares := make([]int, 8)
	var fill func(w *worksteal.Worker, lo, hi int)
	fill = func(w *worksteal.Worker, lo, hi int) {
		if hi-lo == 1 {
			squares[lo] = lo * lo
			return
		}
		mid := (lo + hi) / 2
		worksteal.Join(w,
			func(w *worksteal.Worker) int { fill(w, lo, mid); return 0 },
			func(w *worksteal.Worker) int { fill(w, mid, hi); return 0 })
	}
	if err := pool.Do(func(w *worksteal.Worker) { fill(w, 0, len(squares)) }); err != nil {
		log.Fatal(err) // ErrClosed
	}
	fmt.Println(squares)
	// Output: [0 1 4 9 16 25 36 49]
}

// DoErr returns the computation's error (or ErrClosed after Close).
func ExamplePool_DoErr() {
	pool, err := worksteal.New(worksteal.Config{Workers: 2})
	if err != nil {
		log.Fatal(err)
	}
	defer pool.Close()
	err = pool.DoErr(func(w *worksteal.Worker) error {
		if n := fib(w, 13); n%2 == 1 {
			return fmt.Errorf("fib(13) = %d is odd", n)
		}
		return nil
	})
	fmt.Println(err)
	pool.Close()
	fmt.Println(pool.DoErr(func(*worksteal.Worker) error { return nil }))
	// Output:
	// fib(13) = 233 is odd
	// worksteal: pool closed
}

// BlockingErr wraps a blocking call that returns an error; the pool starts
// a spare worker meanwhile, as for Blocking.
func ExampleWorker_BlockingErr() {
	pool, err := worksteal.New(worksteal.Config{Workers: 2})
	if err != nil {
		log.Fatal(err)
	}
	defer pool.Close()
	dir, err := os.MkdirTemp("", "example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	err = pool.DoErr(func(w *worksteal.Worker) error {
		return w.BlockingErr(func() error {
			return os.WriteFile(filepath.Join(dir, "out.txt"), []byte("done\n"), 0o644)
		})
	})
	fmt.Println(err)
	// Output: <nil>
}

// BlockingValue wraps a blocking call that returns a value and an error.
func ExampleBlockingValue() {
	pool, err := worksteal.New(worksteal.Config{Workers: 2})
	if err != nil {
		log.Fatal(err)
	}
	defer pool.Close()
	dir, err := os.MkdirTemp("", "example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	name := filepath.Join(dir, "in.txt")
	if err := os.WriteFile(name, []byte("hello"), 0o644); err != nil {
		log.Fatal(err)
	}
	n, err := worksteal.Run(pool, func(w *worksteal.Worker) int {
		data, err := worksteal.BlockingValue(w, func() ([]byte, error) { return os.ReadFile(name) })
		if err != nil {
			return -1
		}
		return len(data)
	})
	fmt.Println(n, err)
	missing, _ := worksteal.Run(pool, func(w *worksteal.Worker) bool {
		_, err := worksteal.BlockingValue(w, func() ([]byte, error) { return os.ReadFile(filepath.Join(dir, "missing")) })
		return errors.Is(err, fs.ErrNotExist)
	})
	fmt.Println(missing)
	// Output:
	// 5 <nil>
	// true
}

// BlockingCalls tells a loop of one's own that its body waits: compared
// before and after a step, it moves only if the step entered Blocking.
// Package par's loops use it to hand I/O-bound iterations out one by one.
func ExampleWorker_BlockingCalls() {
	pool, err := worksteal.New(worksteal.Config{Workers: 2})
	if err != nil {
		log.Fatal(err)
	}
	defer pool.Close()
	step := func(w *worksteal.Worker, i int) {
		if i%2 == 1 { // odd steps wait for a (simulated) server
			w.Blocking(func() { time.Sleep(time.Millisecond) })
		}
	}
	pool.Do(func(w *worksteal.Worker) {
		for i := range 3 {
			before := w.BlockingCalls()
			step(w, i)
			fmt.Printf("step %d waited: %v\n", i, w.BlockingCalls() != before)
		}
	})
	// Output:
	// step 0 waited: false
	// step 1 waited: true
	// step 2 waited: false
}

// JoinFuncLazy runs its second half beside the first only if the first
// asks for it: here the first half waits (in Blocking) for what the second
// sends, so the second runs on another worker. A first half that neither
// waits nor polls would have run it itself, afterwards.
func ExampleJoinFuncLazy() {
	pool, err := worksteal.New(worksteal.Config{Workers: 2})
	if err != nil {
		log.Fatal(err)
	}
	defer pool.Close()
	ch := make(chan string, 1)
	got, err := worksteal.Run(pool, func(w *worksteal.Worker) [2]string {
		a, b := worksteal.JoinFuncLazy(w,
			func(w *worksteal.Worker, name string) string {
				var msg string
				w.Blocking(func() { msg = <-ch }) // publishes the second half
				return name + " received " + msg
			}, "first",
			func(w *worksteal.Worker, msg string) string {
				ch <- msg
				return "second sent " + msg
			}, "hello")
		return [2]string{a, b}
	})
	fmt.Println(got[0], err)
	fmt.Println(got[1])
	// Output:
	// first received hello <nil>
	// second sent hello
}

// NotifyBlocking tells the worker that takes a half of w's Joins why it
// was published: the flag is set when w's task enters Blocking, before
// the half becomes takeable.
func ExampleWorker_NotifyBlocking() {
	pool, err := worksteal.New(worksteal.Config{Workers: 2})
	if err != nil {
		log.Fatal(err)
	}
	defer pool.Close()
	started := make(chan struct{})
	pool.Do(func(w *worksteal.Worker) {
		var waits atomic.Bool
		prev := w.NotifyBlocking(&waits)
		defer w.NotifyBlocking(prev)
		worksteal.JoinFuncLazy(w,
			func(w *worksteal.Worker, _ int) int {
				w.Blocking(func() { <-started }) // waits for the second half
				return 0
			}, 0,
			func(w *worksteal.Worker, _ int) int {
				fmt.Println("second half taken because the first waits:", waits.Load())
				close(started)
				return 0
			}, 0)
	})
	// Output:
	// second half taken because the first waits: true
}
