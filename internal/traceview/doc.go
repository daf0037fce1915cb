// Package traceview reads a schedule back: it summarizes a Chrome
// trace-event file — one written by the runtime's event trace
// (worksteal.Trace.WriteChrome) or by the simulator (internal/simlab.WriteTrace),
// both through internal/tracefmt — and draws it as an SVG timeline. It is
// the library behind "worksteal trace FILE".
//
// [Load] reads a trace file as a stream into a compact [Trace] (one lane
// per thread id present; about 28 bytes per task span), and
// [Trace.Summary] and [Trace.WriteSVG] summarize and draw it; [Analyze]
// and [WriteSVG] do the same for a trace in memory. A summary is a [Summary]: per-worker utilization (time
// covered by task spans over the trace's extent), task counts, steals,
// failed steals, parks and wake-ups, idle gaps (count, total, longest), the
// longest tasks by self time, and the critical path as far as the trace
// shows it (see [Path]). [WriteSVG] draws one lane per worker: task bars
// (nested tasks — a worker helping while it waits at a join — inset
// beneath their parent), idle gaps shaded, steals and parks marked, and the
// critical path drawn through the lanes.
//
// The package also holds the small fork-join [Workload]s (fib, uts, tree)
// that "worksteal trace record" and "worksteal trace profile" run on a pool
// of their own, with the trace or the work/span profiler on.
package traceview
