package docs

import "sync"

// The plain-Go half of the README's "Plain goroutines against worksteal"
// (the worksteal half is in readme_test.go, package docs_test: both are
// named fib).

// Go: a goroutine and a WaitGroup per fork (~1 µs each).
func fib(n int) int {
	if n < 2 {
		return n
	}
	var a int
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); a = fib(n - 1) }()
	b := fib(n - 2)
	wg.Wait()
	return a + b
}

var _ = fib
