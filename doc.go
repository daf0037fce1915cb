// Package worksteal is a work-stealing runtime for CPU-bound, irregular,
// nested parallel work in Go: fork-join that costs nanoseconds instead of a
// goroutine, balanced without tuning.
//
// I/O and other waits inside tasks: wrap them in [Worker.Blocking] (or
// [Worker.BlockingErr], [BlockingValue]), as in
// w.Blocking(func() { resp, err = http.Get(url) }). The pool then starts a
// spare worker at once (up to [Config].MaxBlocking, 256 by default), so a
// batch of fetches overlaps its waits as a goroutine per fetch does, while
// the CPU part stays on GOMAXPROCS workers. A wait without Blocking is
// noticed by the pool's stall monitor after [Config].StallAfter (10 ms),
// which then starts a spare for it: correct, but each such wait first holds
// up the work queued behind it for that long. A worker stuck without
// progress for [Config].StallReport (1 s) while others are idle is reported
// with its stack ([Config].OnStall), never left to hang silently.
//
// # Pools
//
// A [Pool] is a fixed set of worker goroutines (by default GOMAXPROCS), each
// with its own deque of tasks, plus a queue for work arriving from outside.
// The second half of a Join stays latent — known only to its worker, at the
// cost of a few private writes — until a poll point (every Join, Spawn, par
// chunk, [Worker.Poll]) finds some worker idle; then the worker publishes
// its latent halves on its deque, oldest first. A worker that runs dry
// steals the oldest task (usually the largest piece of work) from the top
// of another's deque, then backs off and parks until work is posted. [New] makes a pool from a [Config] whose zero
// value is useful; [Pool.Close] drains it and stops its goroutines.
//
//	pool, err := worksteal.New(worksteal.Config{})
//	if err != nil { ... }
//	defer pool.Close()
//	n, err := worksteal.Run(pool, func(w *worksteal.Worker) int { return fib(w, 30) })
//
// The parallel loops, reductions, search and sorts built on this runtime
// live in package [github.com/worksteal/worksteal/par].
//
// # The *Worker rule
//
// Go has no thread-locals, so code running on the pool receives the handle
// of the worker that runs it, a [*Worker], explicitly (like a ctx), and forks
// through it: [Join], [JoinFunc], [Worker.Scope], [Scope.Spawn].
//
// Pass the running task's handle, never keep or share it. A *Worker is valid
// only inside the task it was passed to, on the goroutine that runs that
// task: do not store it, do not send it to another goroutine, and inside a
// closure that may run elsewhere (the second closure of a Join, a spawned
// task) use the handle that closure receives, not the enclosing task's.
// A nil handle panics with a message that says so; in builds with -race,
// forks also check that the handle belongs to the calling goroutine (every
// fork through the handle of a worker that runs no task, a sample of the
// others) and panic if not.
//
// Inside a task, do not call [Run], [Pool.Do], [Pool.Scope] or [Profile]: call the
// function directly with the task's handle (or use [Worker.Scope]). Such a
// call would block the worker while it waits, and deadlock any pool whose
// workers all do so — every 1-worker pool — so it panics instead. To wait
// for work on a different pool from a task, wrap the call in
// [Worker.Blocking] (or [Worker.BlockingErr], [BlockingValue]). [Pool.Close]
// from a task of its own pool would wait for itself: it panics too.
//
// # Entry points
//
// Work enters a pool from an ordinary goroutine in one of three ways; all
// three return [ErrClosed] once [Pool.Close] has been called.
//
//   - [Run] runs a function on a worker and blocks the calling goroutine
//     until it returns, with its result. A panic in the function, or in any
//     task it joins or waits for, is re-raised in the caller of Run as a
//     [*PanicError] that carries the stack of the original panic.
//     [Pool.Do] and [Pool.DoErr] are Run for a function that returns
//     nothing or an error.
//   - [Pool.Scope] runs a body with a [Scope] in which tasks may spawn more
//     tasks, and returns when all have finished. The first error returned by
//     the body or by a task started with [Scope.Go] cancels the scope's
//     context and is returned; the first panic cancels it too and is
//     re-raised, once every started task has finished, as a *PanicError.
//   - [Pool.Submit] queues a function and returns at once (fire and forget).
//     Nobody waits for it, so its panic goes to [Config].OnPanic if set;
//     otherwise it is logged ([LogPanic]) and the first such panic is
//     returned by [Pool.Close].
//
// Inside the pool, [Join] passes a panic on as a plain call of its halves
// would — the value as it was raised, after the other half has finished
// or when it provably never started (a second half that no other worker
// took is dropped when the first half panics). A task's panic never kills
// a worker goroutine. A task that calls [runtime.Goexit] (as
// t.FailNow does) ends its goroutine, which the pool replaces; the
// computation fails with [ErrGoexit], after every half and scope task it
// started has finished.
//
// The protocols that make this work — how workers find work, post it, park
// without losing a wake-up, join a stolen half, and close — are written down
// with proof sketches in PROTOCOL.md at the root of the module
// (https://github.com/worksteal/worksteal/blob/main/PROTOCOL.md); code
// comments cite its event names.
//
// # Seeing what happened
//
// [Pool.Stats] returns per-worker counters (executed, stolen, failed steals,
// parks, busy and idle time) with derived steal rate, utilization and load
// imbalance.
//
// The event trace is an optional per-worker recorder of scheduling events,
// exported by [Trace.WriteChrome] as Chrome trace-event JSON. Tracing is off
// unless [Config].Trace > 0, and then costs one nil check at each recording
// site; every site is off the fork-join fast path (a Join whose second half
// is taken back inline records nothing: its time is part of the enclosing
// task). Recorded: the start and end of every job a worker runs from a
// queue or a steal (stolen Join halves, scope tasks, submitted tasks),
// spawns of scope tasks, successful steals (with the victim),
// failed steal attempts, parks and wake-ups, and the idle stretches of a
// worker waiting at a join or scope whose work is elsewhere. Each worker
// writes its own ring buffer of Config.Trace events; when it wraps, the
// oldest events are overwritten and counted as dropped. A snapshot
// ([Pool.Trace]) is safe at any time.
//
// # Work and span
//
// [Profile] runs a computation and measures its work and span the way
// Cilkview and OpenCilk's Cilkscale do: the computation is cut into strands
// — maximal pieces of code without a fork or a join — and each strand is
// timed on the worker that runs it. T1 (work) is the sum of all strands. T∞
// (span) is the longest path through the fork-join graph: at a fork both
// halves start from the span so far; at a join the span continues from the
// longer of the two. The burdened span also charges, for each fork on the
// path whose second half was stolen, the measured cost of that steal (the
// steal itself plus the time the joiner took to notice the thief's result),
// so it predicts what scheduling overhead does to the critical path.
//
// Strands are timed with the monotonic wall clock, so time a worker's thread
// spends descheduled (another process on its core) counts as work and may
// land on the critical path: profile on an otherwise idle machine.
//
// Only the computation started by Profile is measured: the profiling state
// travels with its strands (in Join frames and scope tasks), never through a
// global switch, and a worker that steals a profiled strand measures it only
// while it runs it. Timing every strand costs two clock reads per fork, so a
// profiled run of the finest-grained code is several times slower than an
// unprofiled one; the work and span it reports are of the profiled run.
package worksteal
