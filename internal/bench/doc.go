// Package bench holds the benchmark workloads of the worksteal runtime,
// each written once in several implementations so that they can be compared
// in one run:
//
//   - [Seq] ("go-seq"): plain sequential Go, the baseline of every ratio;
//   - [WG] ("go-wg"): a goroutine and a [sync.WaitGroup] for every fork, no
//     cutoff (what a Go programmer writes first);
//   - [WGCutoff] ("go-wg-cutoff"): the same with a hand-tuned cutoff below
//     which the work runs sequentially (fib n < 20, nqueens rows >= 3, UTS
//     depth >= 2, as in the anchor suite);
//   - [WS] ("ws"): the worksteal runtime, forking through the zero-allocation
//     worksteal.JoinFunc at every fork point, no cutoff;
//   - [WSClosure] ("ws-closure"): the same through the closure form
//     worksteal.Join, to measure what the closure costs;
//   - [Counter] ("go-counter"), outside the tables: no scheduler at all,
//     GOMAXPROCS goroutines taking coarse's leaves or mandel's rows from an
//     atomic counter, to tell what Go costs at several threads from what a
//     scheduler costs (scripts/coarse-rayon's rust-counter is its Rust twin).
//
// The workloads are those of the project's WORKLOADS.md, with results that
// match the published references exactly:
//
//   - "fib": naive Fibonacci with a fork-join at every call n >= 2
//     (sizes 30 and 35: 832040 and 9227465);
//   - "nqueens": n-queens counted over a 4-bit-per-row board with an O(row)
//     safety scan, every valid child a task (12 and 13: 14200 and 73712);
//   - "uts": the anchor suite's binomial UTS-like tree over splitmix64,
//     size = root children (6000: 4317473 nodes);
//   - "uts-sha1": the Unbalanced Tree Search benchmark proper, with the
//     SHA-1 splittable generator of the reference implementation; sizes are
//     the named standard trees (see [StandardTrees]) or explicit parameters
//     (see [ParseUTSTree]);
//   - the anchor suite's parallel loops, for its sort, mapreduce and mandel
//     tables: "sort" (a fresh copy of n pseudo-random uint64 each iteration,
//     copy and order check untimed; ws is par.Sort), "mapreduce" (Σ x·x mod
//     1,000,000,007 over [0, n); ws is par.ReduceRange with no grain) and
//     "mandel" (escape counts of a size×size image, a task per row; ws is
//     par.ReduceRange, go-wg a goroutine per row). They have no closure form
//     and no fixed join tree, and no goroutine-per-fork form but mandel's;
//     they are not in the default plans. "mapreduce-mulhi" is mapreduce
//     with the remainder computed by the instructions LLVM emits for rayon's
//     leaf, unrolled, to compare the schedulers on leaves that run as fast
//     as rayon's ([MapReduceMulhiSeq]); "mandel-unrolled" is mandel with
//     the inner loop unrolled by two as LLVM unrolls rayon's
//     ([MandelRowUnrolled]).
//
// A fork point with k children is written as a balanced binary split of the
// children into k−1 joins, so every implementation performs the same number
// of joins ([Joins]) as the anchors' rayon and oneTBB versions.
//
// [Prepare] builds one (workload, size, impl, workers) instance to run by
// hand; a [Suite] runs a whole plan with warm-up and repetitions and builds
// the comparison tables (time at 1 and 2 workers, ns per join, overhead
// against sequential Go, speedup, steals). The worksteal command's "bench"
// subcommand drives both, and "worksteal bench cell" speaks the anchors'
// one-line-per-iteration protocol (see anchors.md in this folder).
package bench
