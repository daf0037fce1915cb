// Package sim is a deterministic discrete-event simulator of work-stealing
// and load-balancing schedulers. It models the worksteal runtime (it never
// imports it) and uses the runtime's own policy package for victim
// selection, steal amount and the idle schedule, so a simulated policy is
// the real one, by the same names.
//
// # Model
//
// A [Scenario] names the machine (workers with a speed factor and a
// locality group), the workload (independent tasks with a duration
// distribution and an arrival pattern; tasks that spawn children in the
// middle of their run; fork-join parents that suspend at the join and
// resume as a continuation; fib-like and UTS trees), the policy (work
// stealing with a victim policy, steal one or half, and an idle mode; or a
// baseline: one central queue whose access cost grows with contention,
// static chunks, round-robin, LPT), the costs (per-task overhead, steal
// latency, failed steal, cross-group steal, wake-up, central queue access)
// and the faults (slowdown windows, lost workers with a detection delay).
//
// Time is virtual, in nanoseconds; events sit in a heap ordered by time and
// then by the order they were scheduled; every random choice comes from a
// generator seeded by the scenario. The shape of the work (durations,
// children) is drawn from per-task seeds, so the task DAG — and with it the
// total work T1 and the critical path T∞ — does not depend on the schedule.
// The same scenario therefore gives byte-identical reports, logs, traces and
// pictures on every run.
//
// Under work stealing each worker owns a deque: it pushes and pops at the
// bottom (LIFO) and thieves take the oldest tasks from the top, one or
// half (at most [Policy.MaxBatch], the runtime's 32 by default). A worker
// that finds nothing follows the runtime's idle protocol step by step
// (PROTOCOL.md; idle.go here), driven by the same code, policyrt.IdleState:
// rounds of steal attempts in the victim policy's order, after each failed
// round a spin, a timed sleep or a park as the schedule says; a worker
// announces itself as a sleeper and re-checks for work before it sleeps;
// the last searcher to find work wakes a sleeper (chain wake-up); pushed
// work wakes a sleeper when nobody searches. An attempt costs the steal
// latency (plus the cross-group cost) and a failure the failed-steal
// time. The idle modes poll (a round every interval, never sleeping, as
// the seed tutorial's workers do) and spin are offered besides.
// TestIdleDecisionsMatchRuntime runs one scripted situation in the runtime
// and here and requires the same sequence of idle decisions.
//
// Forks follow the runtime's join protocol, latent frames (PROTOCOL.md
// "Join"; latent.go here), unless [Policy.Join] says eager: a fork keeps
// its other halves as latent frames of the forking worker, where no thief
// can see them, and runs the last child inline; an idle worker's request —
// its being counted as searching or asleep — is answered by each owner at
// its next poll point (a fork, a spawn, or every [Workload.Poll] of work
// inside a piece, scheduled from the task tree's timing), which promotes
// all its latent frames, oldest first, when its deque is empty; thieves
// then steal with the same policy code. A frame nobody asked for runs
// inline at [Costs.Fork]; a promotion costs [Costs.Promote] a frame.
// The runtime's heartbeat is modelled too: every [Policy.Heartbeat] poll
// points a worker promotes its oldest latent frame, idle workers or not;
// and so are its eager Joins near the root: a fork within
// [Policy.EagerDepth] generations of the piece a worker last stole pushes
// its halves at once.
// Under join eager every fork pushes its halves on the deque at once (the
// Chase–Lev protocol the runtime used before), kept as a policy to compare.
//
// One difference remains, at time 0: the runtime's workers start parked
// (a new pool searches nothing until work is posted, which wakes one
// worker, and each woken worker that finds work wakes the next), while the
// simulator's workers all start searching. A scenario whose tasks are all
// there at time 0 therefore starts slightly earlier here than on a real
// pool, by the wake-up chain's latency (microseconds per worker).
//
// # Use
//
// [Run] simulates one scenario and returns a [Report] (text tables or
// JSON), and on request the verbose event log ([Options]).
// [ParseScenario] reads a scenario in YAML or JSON (one parser,
// go.yaml.in/yaml/v3), with errors that name the field and its line.
// A program varies a scenario in its own loop; the worksteal command's
// presets (`worksteal sim --list`, the classic experiments), its sweeps
// over one parameter (a scenario file's "sweep" block, `--sweep`, with a
// table, CSV or an SVG line plot) and its pictures of one run (an SVG
// Gantt chart, a Chrome trace) are internal/simlab's.
//
// A simulated worker holds O(1) state. A million tasks on 1,024 workers
// take well under a second of CPU (BenchmarkScale). sim/README.md has the
// measurements and the validation tables, with the commands that make them.
//
// # Validation
//
// The tests check that every task runs exactly once (at least once under
// faults, with the re-executions counted), that the makespan never beats
// max(T1/P, T∞) and that the greedy central queue with zero costs meets
// T1/P + T∞ over thousands of random DAGs, that one worker with zero costs
// takes exactly T1, that the central queue loses to per-worker deques as
// workers grow on fine tasks (the test reports the crossover), that the UTS
// trees match the reference counts, and that output is deterministic
// (golden file).
package sim
