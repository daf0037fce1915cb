// Package balance makes every classic load-balancing strategy one call with
// the same shape, so that they can be compared on the caller's own workload,
// and measures how balanced the result was.
//
// Choosing a strategy:
//
//   - uniform tasks: static equal chunks, [Split] or the [Static] schedule;
//   - unpredictable durations: run-time scheduling, the [Dynamic] or
//     [Guided] schedule, or work stealing, the [Stealing] schedule;
//   - a long tail: work stealing plus straggler tools, [Hedged] copies or
//     [TimeoutOr] with a fallback, and [Retry] for transient failures;
//   - known costs: weighted assignment, [LPT] (or [LPTSpeeds] for workers
//     of different speeds) followed by [Improve];
//   - keyed data: stable hash routing, [Jump] of [HashKey] (jump consistent
//     hashing), or range routing by [QuantileBounds] and [RangeIndex];
//   - work that waits on I/O: [Bounded], a limit on tasks in flight.
//
// Not sure? Measure a run and let [Analyze] say which targets it misses
// ([TargetImbalance], [TargetStragglerRatio], [TargetUtilization]) and which
// strategy the profile suggests.
//
// The package has four parts:
//
//   - partitioners (partition.go, hash.go, weighted.go): pure functions
//     from a problem size or a list of costs to an assignment;
//   - loop schedules (schedule.go, stealing.go): [Schedule] values that
//     hand out the chunks of a loop at run time through a [Chunker], driven
//     by [Loop] on plain goroutines, or on the work-stealing pool by package
//     github.com/worksteal/worksteal/par/schedule (For, ForContext, ForPool,
//     with LoopStats for the metrics), where [Stealing] is the runtime's own
//     adaptive loop; and [Bounded] for I/O-bound work (bounded.go);
//   - straggler tools (straggler.go, retry.go, history.go): per-task
//     timeouts with a fallback, fixed or relative to the median of finished
//     tasks; hedged copies; retries with backoff and jitter;
//   - metrics and report (metrics.go, report.go): [Imbalance],
//     [StragglerRatio], [Utilization], [QueueDepthStdDev], [Quantile] as
//     plain generic functions over []float64 or []time.Duration, and
//     [Analyze].
//
// Misuse that is cheap to detect (a worker count below one, a negative
// size, an unsorted key slice) panics with a message that starts with
// "balance:"; errors returned by this package start with it too.
package balance
