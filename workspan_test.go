package worksteal

import (
	"context"
	"runtime"
	"strings"
	"testing"
	"time"
)

// spin busy-waits for at least d of wall time.
func spin(d time.Duration) {
	t0 := time.Now()
	for time.Since(t0) < d {
	}
}

// tree is a balanced binary fork-join tree of the given depth whose leaves
// spin for leaf: T1 ≈ 2^depth · leaf, T∞ ≈ leaf.
func spinTree(w *Worker, a spinArgs) int {
	if a.depth == 0 {
		spin(a.leaf)
		return 1
	}
	x, y := JoinFunc(w, spinTree, spinArgs{a.depth - 1, a.leaf}, spinTree, spinArgs{a.depth - 1, a.leaf})
	return x + y
}

type spinArgs struct {
	depth int
	leaf  time.Duration
}

func TestProfileBalancedTree(t *testing.T) {
	const depth, leaf = 6, 200 * time.Microsecond
	for _, workers := range []int{1, 2, 4} {
		p := newTestPool(t, Config{Workers: workers})
		n, ws, err := Profile(p, func(w *Worker) int { return spinTree(w, spinArgs{depth, leaf}) })
		if err != nil || n != 1<<depth {
			t.Fatalf("leaves = %d, %v", n, err)
		}
		t.Logf("workers=%d: %v", workers, ws)
		if ws.Forks != 1<<depth-1 {
			t.Errorf("Forks = %d; want %d (the joins of the tree)", ws.Forks, 1<<depth-1)
		}
		if ws.Work < (1<<depth)*leaf {
			t.Errorf("Work %v < %d leaves × %v", ws.Work, 1<<depth, leaf)
		}
		if ws.Span < leaf || ws.Span > ws.Work {
			t.Errorf("Span %v outside [leaf %v, Work %v]", ws.Span, leaf, ws.Work)
		}
		if ws.BurdenedSpan < ws.Span {
			t.Errorf("BurdenedSpan %v < Span %v", ws.BurdenedSpan, ws.Span)
		}
		// The ideal parallelism is 64; how close a run gets depends on the
		// machine's load (strands are wall-clock timed), so that is measured
		// by BenchmarkProfile, not asserted here. It can never exceed 64:
		// every strand lies on one of the 64 root-to-leaf paths, so the work
		// is at most 64 times the longest path, whatever the timings.
		if par := ws.Parallelism(); par > 1<<depth*1.2 {
			t.Errorf("Parallelism %.1f exceeds the %d leaves", par, 1<<depth)
		}
		lo, hi := ws.SpeedupRange(2)
		if lo > hi || hi > 2 {
			t.Errorf("SpeedupRange(2) = %.2f..%.2f", lo, hi)
		}
	}
}

// A sequential chain: each level spins, then forks the next level beside an
// empty half, so work and span are both (depth+1) leaves: parallelism 1.
func chain(w *Worker, a spinArgs) int {
	spin(a.leaf)
	if a.depth == 0 {
		return 1
	}
	x, y := JoinFunc(w, chain, spinArgs{a.depth - 1, a.leaf}, func(*Worker, spinArgs) int { return 0 }, a)
	return x + y
}

func TestProfileChainAndScope(t *testing.T) {
	const leaf = 100 * time.Microsecond
	p := newTestPool(t, Config{Workers: 2})
	_, ws, _ := Profile(p, func(w *Worker) int { return chain(w, spinArgs{20, leaf}) })
	t.Logf("chain: %v", ws)
	if ws.Forks != 20 || ws.Span < 21*leaf || ws.Work < 21*leaf {
		t.Errorf("chain: forks %d span %v work %v; want 20, ≥ %v, ≥ %v", ws.Forks, ws.Span, ws.Work, 21*leaf, 21*leaf)
	}
	// The path through the chain is one of the paths, so it is never longer
	// than all strands together. (How close the parallelism comes to 1 — the
	// empty halves' strands are timed too — is BenchmarkProfile's chain.)
	if ws.Span > ws.Work {
		t.Errorf("chain: span %v > work %v", ws.Span, ws.Work)
	}
	// A scope of 16 independent leaves: span about one leaf.
	_, ws, _ = Profile(p, func(w *Worker) int {
		w.Scope(context.Background(), func(w *Worker, s *Scope) error {
			for i := 0; i < 16; i++ {
				s.Spawn(w, func(*Worker) { spin(leaf) })
			}
			return nil
		})
		return 0
	})
	t.Logf("scope: %v", ws)
	if ws.Forks != 16 || ws.Work < 16*leaf || ws.Span < leaf || ws.Span > ws.Work {
		t.Errorf("scope: forks %d work %v span %v", ws.Forks, ws.Work, ws.Span)
	}
	if !strings.Contains(ws.String(), "1024") {
		t.Errorf("String() lacks the P = 1024 row:\n%s", ws)
	}
}

// An unprofiled computation running beside a profiled one is not counted.
func TestProfileOnlyItsComputation(t *testing.T) {
	p := newTestPool(t, Config{Workers: 2})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; i < 20; i++ {
			Run(p, func(w *Worker) int { return fibJoin(w, 18) })
		}
	}()
	_, ws, _ := Profile(p, func(w *Worker) int { return spinTree(w, spinArgs{4, 50 * time.Microsecond}) })
	<-done
	if ws.Forks != 15 {
		t.Errorf("Forks = %d; want 15: joins of other computations leaked into the profile", ws.Forks)
	}
}

// BenchmarkProfile reports the measured parallelism of workloads whose
// structure is known: a balanced tree of 64 spinning leaves (ideal 64) and
// fib(25) with a sequential cutoff at n < 15 (ideal ≈ T1 / T(fib(24) path)),
// and the slowdown of a profiled run against an unprofiled one on fib(25).
func BenchmarkProfile(b *testing.B) {
	p := newTestPool(b, Config{Workers: 2})
	b.Run("tree64", func(b *testing.B) {
		var par float64
		for b.Loop() {
			_, ws, _ := Profile(p, func(w *Worker) int { return spinTree(w, spinArgs{6, 50 * time.Microsecond}) })
			par += ws.Parallelism()
		}
		b.ReportMetric(par/float64(b.N), "parallelism")
	})
	b.Run("chain21", func(b *testing.B) { // ideal 1
		var par float64
		for b.Loop() {
			_, ws, _ := Profile(p, func(w *Worker) int { return chain(w, spinArgs{20, 50 * time.Microsecond}) })
			par += ws.Parallelism()
		}
		b.ReportMetric(par/float64(b.N), "parallelism")
	})
	b.Run("fib25/profiled", func(b *testing.B) {
		var par float64
		for b.Loop() {
			_, ws, _ := Profile(p, func(w *Worker) int { return fibJoin(w, 25) })
			par += ws.Parallelism()
		}
		b.ReportMetric(par/float64(b.N), "parallelism")
	})
	b.Run("fib25/plain", func(b *testing.B) {
		for b.Loop() {
			Run(p, func(w *Worker) int { return fibJoin(w, 25) })
		}
	})
}

// TestProfileGoexitInStolenHalf: a profiled Join whose stolen second half
// calls runtime.Goexit reports ErrGoexit to the caller, and the thief's last
// writes to the frame (the profile's path lengths) happen before the latch
// that releases the joiner: under -race, a write after the latch is a
// reported data race with the joiner's read.
func TestProfileGoexitInStolenHalf(t *testing.T) {
	defer watchdog(t)()
	p := newTestPool(t, Config{Workers: 2})
	for rep := 0; rep < 20; rep++ {
		started := make(chan struct{})
		r := catchPanic(func() {
			Profile(p, func(w *Worker) int {
				a, b := Join(w,
					func(w *Worker) int { awaitPolling(w, started); return 1 }, // returns once the thief runs fb
					func(*Worker) int { close(started); runtime.Goexit(); return 2 })
				return a + b
			})
		})
		pe, ok := r.(*PanicError)
		if !ok || pe.Value != ErrGoexit {
			t.Fatalf("rep %d: Profile panicked with %v; want a *PanicError of ErrGoexit", rep, r)
		}
	}
}
