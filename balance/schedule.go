package balance

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
)

// Loop schedules. A Schedule decides how a parallel loop over [0, n) is cut
// into chunks at run time; it knows nothing about goroutines or pools. One
// loop is driven like this, by Loop below or by any other runner (For, in
// pool.go, runs the same Chunker from one task per worker of the
// work-stealing pool):
//
//	c := s.Start(n, workers)
//	for w := range workers { // in parallel, one driver per worker
//		for r, ok := c.Next(w); ok; r, ok = c.Next(w) {
//			body(r.Lo, r.Hi)
//		}
//	}
//
// Every index of [0, n) is handed out exactly once across all workers, in
// chunks that do not overlap, provided each worker keeps asking until Next
// says false.

// Schedule cuts a loop into chunks; Static, Dynamic, Guided and Stealing
// implement it.
// A Schedule is a small value that can be reused for any number of loops.
type Schedule interface {
	// Start begins one loop over [0, n) run by workers workers, numbered 0
	// to workers−1, and returns the source of its chunks.
	//
	// Panics: if n < 0 or workers < 1.
	Start(n, workers int) Chunker
}

// Chunker hands out the chunks of one loop.
type Chunker interface {
	// Next returns the next chunk for worker, or ok == false when there is
	// no more work for it (then every later call for that worker returns
	// false too). Chunks are never empty. Next is safe for concurrent use by
	// any number of goroutines. Static, Dynamic and Guided claim a chunk
	// with one atomic operation (an add, or a CAS loop for Guided), so they
	// never block; Stealing locks a worker's block for a moment.
	//
	// Panics: if worker is outside [0, workers).
	Next(worker int) (r Range, ok bool)
}

// Static is static scheduling: the iterations are divided among the workers
// before the loop starts, so a chunk costs one uncontended atomic add and
// nothing adapts to uneven iterations. Use it when iterations cost the same.
//
// With Chunk ≤ 0 (the zero value) worker w gets exactly one chunk,
// Split(n, workers)[w]: contiguous ranges that differ in length by at most
// one. With Chunk = c > 0 the loop is cut into chunks of c iterations dealt
// round-robin: worker w gets chunks w, w+workers, w+2·workers, … (OpenMP's
// schedule(static, c)), which evens out costs that drift with the index.
type Static struct {
	// Chunk is the chunk size for round-robin dealing; ≤ 0 means one
	// contiguous chunk per worker.
	Chunk int
}

// Dynamic is self-scheduling: every worker that is free takes the next Chunk
// iterations from a shared counter (OpenMP's schedule(dynamic, c)). It adapts
// to any imbalance down to one chunk's cost, at the price of one contended
// atomic add per chunk; raise Chunk until that add is negligible next to the
// chunk's work (a few µs of work per chunk is enough).
type Dynamic struct {
	// Chunk is the number of iterations per chunk; ≤ 0 means 1, the OpenMP
	// default.
	Chunk int
}

// Guided is guided self-scheduling (Polychronopoulos and Kuck, 1987;
// OpenMP's schedule(guided)): like Dynamic, but each chunk is the remaining
// iterations divided by the number of workers, rounded up, and at least
// MinChunk. Chunks start large (few atomic operations) and shrink towards the
// end (fine balance where it matters): about workers·ln(n/workers) chunks in
// all. Its first chunk is n/workers, so a loop whose costly iterations are at
// its start is balanced worse than by Dynamic.
type Guided struct {
	// MinChunk is the smallest chunk handed out (the last one may be
	// smaller); ≤ 0 means 1.
	MinChunk int
}

// String returns "static" or "static(c)".
func (s Static) String() string {
	if s.Chunk <= 0 {
		return "static"
	}
	return fmt.Sprintf("static(%d)", s.Chunk)
}

// String returns "dynamic(c)".
func (s Dynamic) String() string { return fmt.Sprintf("dynamic(%d)", max(s.Chunk, 1)) }

// String returns "guided(m)".
func (s Guided) String() string { return fmt.Sprintf("guided(%d)", max(s.MinChunk, 1)) }

func checkLoop(name string, n, workers int) {
	if n < 0 {
		panic(fmt.Sprintf("balance: %s.Start with n = %d < 0", name, n))
	}
	if workers < 1 {
		panic(fmt.Sprintf("balance: %s.Start with workers = %d < 1", name, workers))
	}
}

func checkWorker(worker, workers int) {
	if worker < 0 || worker >= workers {
		panic(fmt.Sprintf("balance: Next for worker %d outside [0,%d)", worker, workers))
	}
}

// Start begins a statically scheduled loop.
//
// Panics: if n < 0 or workers < 1.
func (s Static) Start(n, workers int) Chunker {
	checkLoop("Static", n, workers)
	return &staticChunks{n: n, workers: workers, chunk: s.Chunk, taken: make([]paddedCount, workers)}
}

// staticChunks: worker w's k-th call gets block w + k·workers.
//
// Ownership: taken[w] is normally touched only by worker w's driver; it is
// atomic so that a misbehaving runner that calls Next(w) from two goroutines
// still hands each block out once.
type staticChunks struct {
	n, workers, chunk int
	taken             []paddedCount
}

// paddedCount keeps each worker's counter on its own cache line, so workers
// advancing their own counters do not invalidate each other's line.
type paddedCount struct {
	atomic.Int64
	_ [120]byte
}

func (c *staticChunks) Next(worker int) (Range, bool) {
	checkWorker(worker, c.workers)
	k := int(c.taken[worker].Add(1) - 1) // claims the k-th block of this worker
	if c.chunk <= 0 {
		if k > 0 {
			return Range{}, false
		}
		r := splitAt(c.n, c.workers, worker)
		return r, r.Len() > 0
	}
	blocks := (c.n + c.chunk - 1) / c.chunk
	b := worker + k*c.workers
	if k >= blocks || b >= blocks { // k check first: k·workers cannot overflow
		return Range{}, false
	}
	lo := b * c.chunk
	return Range{lo, min(lo+c.chunk, c.n)}, true
}

// Start begins a dynamically scheduled loop.
//
// Panics: if n < 0 or workers < 1.
func (s Dynamic) Start(n, workers int) Chunker {
	checkLoop("Dynamic", n, workers)
	return &dynamicChunks{n: int64(n), workers: workers, chunk: int64(max(s.Chunk, 1))}
}

// dynamicChunks: one shared counter; each Add claims the next chunk.
// Invariant: next only grows. Every call past the end adds chunk once and
// then returns false; a worker stops at its first false, so the overshoot is
// at most workers·chunk and next cannot overflow.
type dynamicChunks struct {
	next    atomic.Int64
	_       [120]byte // keep the contended counter off the read-only fields' line
	n       int64
	chunk   int64
	workers int
}

func (c *dynamicChunks) Next(worker int) (Range, bool) {
	checkWorker(worker, c.workers)
	if c.next.Load() >= c.n { // cheap exit once drained: no write to the shared line
		return Range{}, false
	}
	hi := c.next.Add(c.chunk) // the add is the commit: [hi−chunk, hi) is ours alone
	lo := hi - c.chunk
	if lo >= c.n {
		return Range{}, false
	}
	return Range{int(lo), int(min(hi, c.n))}, true
}

// Start begins a guided loop.
//
// Panics: if n < 0 or workers < 1.
func (s Guided) Start(n, workers int) Chunker {
	checkLoop("Guided", n, workers)
	return &guidedChunks{n: int64(n), workers: int64(workers), minChunk: int64(max(s.MinChunk, 1))}
}

// guidedChunks: the chunk size depends on the counter's value, so a chunk
// is claimed by CAS from lo to hi; a failed CAS means another worker claimed
// first, and we retry with the new remainder.
type guidedChunks struct {
	next     atomic.Int64
	_        [120]byte
	n        int64
	workers  int64
	minChunk int64
}

func (c *guidedChunks) Next(worker int) (Range, bool) {
	checkWorker(worker, int(c.workers))
	for {
		lo := c.next.Load()
		if lo >= c.n {
			return Range{}, false
		}
		rem := c.n - lo
		size := max((rem+c.workers-1)/c.workers, c.minChunk)
		hi := min(lo+size, c.n)
		if c.next.CompareAndSwap(lo, hi) { // commit: [lo, hi) is ours alone
			return Range{int(lo), int(hi)}, true
		}
	}
}

// Loop runs body over [0, n) on workers goroutines under schedule s: each
// goroutine asks s's Chunker for chunks until it runs dry and calls body(lo,
// hi) for each. It returns nil when every chunk has run, or ctx.Err() when
// ctx was done before every chunk was claimed: ctx is checked only between
// chunks, never inside body, so the chunks in progress finish first and the
// rest are skipped. workers ≤ 0 means
// runtime.GOMAXPROCS(0). The calling goroutine is worker 0. Loops nest: body
// may call Loop again (each call has its own goroutines).
//
// Loop runs on plain goroutines; it is the reference driver for Schedule and
// the baseline the work-stealing pool's loops are compared with.
//
// Panics: if n < 0, or with the first panic of body (its value, without the
// panicking goroutine's stack), re-raised in the caller after all workers
// have stopped; the other workers take no new chunks once one has panicked.
func Loop(ctx context.Context, n, workers int, s Schedule, body func(lo, hi int)) error {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	c := s.Start(n, workers)
	var (
		stop     atomic.Bool // set by the first panic or cancellation; workers then stop taking chunks
		panicked atomic.Pointer[panicValue]
		wg       sync.WaitGroup
	)
	run := func(w int) {
		defer func() {
			if v := recover(); v != nil {
				panicked.CompareAndSwap(nil, &panicValue{v}) // first panic wins
				stop.Store(true)
			}
		}()
		for !stop.Load() {
			if ctx.Err() != nil {
				stop.Store(true)
				return
			}
			r, ok := c.Next(w)
			if !ok {
				return
			}
			body(r.Lo, r.Hi)
		}
	}
	for w := 1; w < workers; w++ {
		wg.Go(func() { run(w) })
	}
	run(0)
	wg.Wait() // every worker has stopped: their writes happen before our return
	if p := panicked.Load(); p != nil {
		panic(p.v)
	}
	if stop.Load() {
		return ctx.Err()
	}
	return nil
}

// panicValue boxes a recovered value so that a nil-interface panic value
// can still be stored in an atomic.Pointer.
type panicValue struct{ v any }
