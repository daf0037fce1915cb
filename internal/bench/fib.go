package bench

import "sync"

// fib: naive binary recursion, a fork-join at every call with n >= 2.
// joins(n) = fib(n+1) − 1.

// fibCutoff: WGCutoff computes fib(n) sequentially when n < fibCutoff.
const fibCutoff = 20

func init() {
	register(&workload{
		name:       "fib",
		doc:        "naive Fibonacci, a fork-join at every call with n >= 2 (no cutoff); size = n",
		sizes:      []string{"30", "35"},
		quickSizes: []string{"27"},
		parse:      parseFib,
	})
}

func parseFib(size string) (*problem, error) {
	n, err := atoiIn("fib", size, 0, 90)
	if err != nil {
		return nil, err
	}
	return &problem{
		seq:      func() Result { return Result{Value: fibSeq(n)} },
		wg:       func() Result { return Result{Value: fibWG(n)} },
		wgCutoff: func() Result { return Result{Value: fibWGCutoff(n)} },
		ref:      Result{Value: fibIter(n)},
		hasRef:   true,
		joins:    func() int64 { return int64(fibIter(n+1)) - 1 },
		param:    n,
	}, nil
}

// fibIter is fib(n) computed in O(n), the reference.
func fibIter(n int) uint64 {
	var a, b uint64 = 0, 1
	for range n {
		a, b = b, a+b
	}
	return a
}

func fibSeq(n int) uint64 {
	if n < 2 {
		return uint64(n)
	}
	return fibSeq(n-1) + fibSeq(n-2)
}

// fibWG forks fib(n−1) as a goroutine at every call and runs fib(n−2) inline.
func fibWG(n int) uint64 {
	if n < 2 {
		return uint64(n)
	}
	var a uint64
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		a = fibWG(n - 1)
		wg.Done()
	}()
	b := fibWG(n - 2)
	wg.Wait()
	return a + b
}

// fibWGCutoff is fibWG, sequential below fibCutoff.
func fibWGCutoff(n int) uint64 {
	if n < fibCutoff {
		return fibSeq(n)
	}
	var a uint64
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		a = fibWGCutoff(n - 1)
		wg.Done()
	}()
	b := fibWGCutoff(n - 2)
	wg.Wait()
	return a + b
}
