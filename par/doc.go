// Package par holds parallel loops, reductions, search and sorts that run on
// a [worksteal.Pool]: [For], [ForRange], [ForEach], [Map], [Reduce],
// [ReduceRange], [MapReduce], [Filter], [Index], [Any], [All], [Min], [Max],
// [MinFunc], [MaxFunc], [Sort], [SortFunc], [SortStableFunc] and [RadixSort].
//
// Every function takes the handle of the running task, like
// [worksteal.Join], and returns when all of its work is done:
//
//	n, _ := worksteal.Run(pool, func(w *worksteal.Worker) int {
//		par.Sort(w, keys)
//		return par.Index(w, keys, isWanted)
//	})
//
// From plain code, [worksteal.Pool.Do] (nothing to return),
// [worksteal.Pool.DoErr] (an error) and [worksteal.Run] (a value) hand the
// pool's worker in, one line for any function of this package:
//
//	err := pool.Do(func(w *worksteal.Worker) { par.For(w, 0, n, body) })
//
// rather than a second, pool-taking form of each of the functions below:
// the forms would double the package, and calls made in one Do share one
// computation (one wake-up, one wait).
//
// Bodies receive the handle of the worker that runs them; nested loops and
// joins inside a body fork through that handle. A panic in a body stops the
// loop from handing out new chunks and reaches the caller, after the chunks
// already running have finished, as a [*worksteal.PanicError] with the stack
// of the panic site. [WithContext] stops a loop when a context is done.
//
// The package uses nothing of the runtime but its public API:
// [worksteal.JoinFunc] to offer work to thieves, [worksteal.Pool.Workers],
// two hints for deciding when to split, [worksteal.Worker.PeersIdle] and
// [worksteal.Worker.HasPendingTasks], and, for bodies that wait,
// [worksteal.JoinFuncLazy], [worksteal.Worker.NotifyBlocking],
// [worksteal.Worker.BlockingCalls] and a [worksteal.Scope]. So it is also a
// worked example of writing parallel algorithms on the runtime.
//
// # Adaptive splitting
//
// Every loop runs on one driver that needs no grain argument. The algorithm
// is lazy binary splitting (Tzannes, Caragea, Barua and Vishkin, "Lazy Binary
// Splitting: A Run-Time Adaptive Work-Stealing Scheduler", PPoPP 2010): a
// worker runs its piece of the index range sequentially, in chunks, and only
// between chunks asks whether to split. It splits the rest of its piece in
// two — keeping the left half, offering the right half to thieves through a
// join — only when another worker is idle (searching for work or parked:
// PeersIdle), its own deque is empty (it has nothing else thieves could
// take: HasPendingTasks is false), and the rest is worth it (its measured
// cost per iteration times the iterations left is at least 16 µs). So a loop
// splits as far as the idle workers need and no further: with every worker
// busy it runs sequentially at full speed, and a stolen piece keeps
// splitting for as long as workers keep running dry, down to single
// iterations for a skewed loop (rayon's "split when stolen" adaptive
// splitter reaches the same effect with a split budget).
//
// Pieces whose measured remaining work is large are also split eagerly,
// down to about 50 µs of work each, so that the deque always holds stealable
// work and an idle worker never waits for the owner's next check (oneTBB's
// auto_partitioner keeps a similar stock of stealable ranges). The halves of
// an eager split inherit the estimate but run a chunk of their own before
// they split again: one chunk slowed by the OS then costs one split, not a
// range cut into pieces of a few iterations.
//
// Chunks grow geometrically, doubling while a chunk takes less than 5 µs
// (like oneTBB's auto_partitioner, which grows ranges while they are cheap),
// so the cost of the split test is amortised over cheap iterations, but a
// worker with expensive iterations checks for idle peers after every one.
//
// Bodies that wait: a body that wraps its I/O in [worksteal.Worker.Blocking]
// (the way to wait in a task) makes the loop I/O-bound, and its measured
// time is the wait's, not work. A loop runs its first chunk as the first
// half of a [worksteal.JoinFuncLazy] whose second half is the rest of its
// range: if the chunk enters Blocking, Blocking flags the loop
// ([worksteal.Worker.NotifyBlocking]) and publishes the rest, and the
// worker that takes it hands it out at once, beside the first wait. A
// chunk that waited ([worksteal.Worker.BlockingCalls] moved) does the
// same for the rest of its piece once it ends. The rest goes out as tasks
// of about 50 µs of measured time each — one iteration for waits of
// milliseconds; MinGrain iterations when nothing was measured yet — so
// that as many waits are in flight as Blocking's spares allow
// ([worksteal.Config].MaxBlocking), as with a goroutine per iteration. A
// loop that does not wait pays for this about 150–200 ns per call
// (BenchmarkLoopProbe). Results still combine in index order, and a
// panic or a done context stops the tasks not yet started. The decision
// holds for the rest of the loop: a body whose first call waited and whose
// others are cheap (it filled a cache) then runs a task per iteration;
// [MinGrain] sets the least iterations per task.
//
// [MinGrain] sets the smallest piece a loop splits into and the first chunk
// size; [MaxGrain] caps the chunk size (and so the time between checks).
//
// # Reductions and search
//
// Reductions ([Reduce], [ReduceRange], [MapReduce], [Filter], [Min], [Max])
// fold each piece sequentially and combine the pieces' results in index
// order, so an associative combine need not be commutative. Searches
// ([Index], [Any], [All]) stop handing out chunks once the answer is known.
//
// # Sorting
//
// [Sort] sorts slices of built-in integer types with [RadixSort]
// (most-significant-digit steps on the bits in which the keys differ: one
// parallel step, then the buckets in parallel) and other ordered types with
// a parallel merge sort; [SortFunc] and [SortStableFunc] take a comparison.
// All need a scratch buffer as large as the input; RadixSort keeps its
// buffer for the next sort until the garbage collector takes it back.
package par
