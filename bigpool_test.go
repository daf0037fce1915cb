//go:build !race

// (The race detector allows at most 8,128 live goroutines.)

package worksteal

import (
	"runtime"
	"testing"
)

// A pool of the most workers New accepts is cheap to make and to close:
// creation is O(P) (each worker's victim selector is O(1)), its workers
// start parked instead of searching an empty pool, and Close lets them exit
// without a search. The bound allows 16 KiB of heap and stack per worker
// (measured: 3.4 KiB of heap — deque, padded worker, channel, selector —
// and a 2 KiB goroutine stack); a selector of O(P) per worker, as before,
// took 27 s and 635 MB for 8,192 workers. Time is BenchmarkNewBigPool's
// to report.
func TestNewBigPoolIsSmall(t *testing.T) {
	const n = 1 << 16
	defer watchdog(t)()
	runtime.GC()
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	p, err := New(Config{Workers: n})
	if err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&m1)
	heap := m1.TotalAlloc - m0.TotalAlloc
	stacks := m1.StackInuse - min(m0.StackInuse, m1.StackInuse)
	t.Logf("New(%d workers): %d MiB allocated, %d MiB of stacks in use", n, heap>>20, stacks>>20)
	if perWorker := (heap + stacks) / n; perWorker > 16<<10 {
		t.Errorf("New took %d bytes of heap and stack per worker; want at most 16 KiB", perWorker)
	}
	if got, err := Run(p, func(w *Worker) int { return fibJoin(w, 10) }); err != nil || got != 55 {
		t.Errorf("fib(10) on %d workers = %d, %v", n, got, err)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
}

// BenchmarkNewBigPool: New and Close of a pool of 65,536 workers.
func BenchmarkNewBigPool(b *testing.B) {
	for b.Loop() {
		p, err := New(Config{Workers: 1 << 16})
		if err != nil {
			b.Fatal(err)
		}
		p.Close()
	}
}
