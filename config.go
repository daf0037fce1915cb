package worksteal

import (
	"fmt"
	"runtime"
	"time"

	"github.com/worksteal/worksteal/internal/policyrt"
	"github.com/worksteal/worksteal/policy"
)

// Config chooses a pool's size and policies. The zero value is useful:
// GOMAXPROCS workers, random victims, steal half, the default idle schedule.
type Config struct {
	// Workers is the number of workers; 0 means runtime.GOMAXPROCS(0).
	Workers int

	// Victim picks which worker a thief tries next (default policy.Random).
	Victim policy.Victim
	// Steal says how much one steal takes (default policy.StealHalf, at most
	// policy.MaxBatch tasks).
	Steal policy.Amount
	// Idle is the schedule of a worker that finds no work: rounds of steal
	// attempts, exponential backoff with jitter between rounds, then park
	// (default: 8 rounds with about 0.13 ms of backoff, then park; see policy.Idle).
	Idle policy.Idle

	// Groups assigns workers to locality groups for policy.Locality. Nil
	// puts all workers in one group, unless CacheGroups is set.
	Groups *policy.Groups
	// CacheGroups derives Groups from the machine's cache topology (workers
	// whose CPUs share the last-level cache form a group; Linux only,
	// elsewhere one group). Worker i is associated with the i-th CPU the
	// process may run on, modulo their number.
	CacheGroups bool
	// Pin locks each worker goroutine to an OS thread bound to its CPU
	// (Linux only; elsewhere New returns an error). A woken worker then
	// always wakes on its own CPU: on a virtual machine whose kernel does
	// not move a woken thread to an idle CPU, an unpinned worker sometimes
	// waits milliseconds behind a busy one (the 2-core development VM:
	// the second worker's start in a Run, p90 2.0–2.6 ms unpinned and
	// 0.34–0.77 ms pinned; docs/measured.md). The price: a pinned worker
	// cannot move off a CPU that another process keeps busy.
	Pin bool

	// MaxBlocking bounds the spare workers started to compensate for
	// workers inside Blocking regions, or blocked outside them (StallAfter).
	// 0 means 256 (or 4 × Workers if more): enough that a batch of
	// I/O-bound tasks wrapped in Blocking overlaps its waits as widely as
	// errgroup with SetLimit(32) or more. Negative disables compensation.
	MaxBlocking int

	// StallAfter is the stall monitor's bound (monitor.go): a worker
	// blocked in a task without Blocking for StallAfter while work is
	// queued gets a spare worker, so queued work waits at most about
	// 1.5 × StallAfter for it. With GOMAXPROCS above the CPUs the process
	// may run on, StallAfter is CPU time a worker on a P could have had
	// (CPUs / Ps of a CPU each), so that bound stretches by Ps / CPUs
	// (monitor.go, stalledFor). 0 means the default, 10 ms;
	// negative turns the monitor off (no compensation without Blocking,
	// no stall reports).
	StallAfter time.Duration
	// StallReport: a worker busy without progress this long, while work
	// is queued or another worker is idle, is reported once per stall to
	// OnStall (or, if nil, the standard logger) with its stack. 0 means
	// the default, 1 s. "This long" is wall time for a worker that
	// waits (a channel, a lock, I/O) and, for one that runs or is
	// runnable, the CPU time it can have had: a worker descheduled on an
	// overloaded machine is not reported (monitor.go).
	StallReport time.Duration
	// OnStall, if set, receives the monitor's stall reports, from the
	// monitor's goroutine: keep it short.
	OnStall func(Stall)

	// Trace, if positive, records scheduling events in a ring buffer of
	// this many events per worker (see Pool.Trace); 0 turns tracing off.
	Trace int

	// Governor, if set, adapts the number of active workers to the machine
	// (CPU pressure, cgroup quota, temperature, power; see Governor): it
	// calls Pool.SetWorkers from a goroutine of the pool. Nil: the pool
	// keeps its workers active, unless the program calls SetWorkers.
	Governor *Governor

	// Counters turns on hardware and kernel event counters (Linux
	// perf_event_open: instructions, cycles, cache references and misses,
	// LLC misses, context switches, page faults) and RAPL energy, read by
	// Pool.Stats: Stats.Counters for the whole process since New and, with
	// Pin, WorkerStats.Counters for each worker's thread. Counts the machine
	// cannot give are named in Counters.Unavailable with the reason.
	Counters bool

	// NoStats turns off the per-worker counters (they cost about 1% of the
	// finest-grained fork-join work; see BenchmarkStatsOverhead).
	NoStats bool

	// Seed seeds victim selection and backoff jitter. 0 picks a fixed
	// default, so runs are repeatable in their choices (not in timing).
	Seed uint64

	// OnPanic, if set, receives the panics of tasks started with Submit,
	// which have no caller to carry them to. If nil, each such panic is
	// written to the standard logger by LogPanic, and the first is kept and
	// returned by Close.
	OnPanic func(*PanicError)

	// latentFrames, if positive, replaces policyrt.LatentFrames for this
	// pool's workers (Worker.setLo): tests run the hand-over with several
	// latent frames open, where their order matters (TestJoinExactlyOnce).
	latentFrames int

	// eagerWidens turns policyrt.EagerWidens on for this pool's workers
	// (joinPushSlow): tests run the rule while its default is off.
	eagerWidens bool
}

// normalize fills defaults and validates.
func (c Config) normalize() (Config, error) {
	if c.Workers < 0 {
		return c, fmt.Errorf("worksteal: Config.Workers = %d; want 0 (GOMAXPROCS) or more", c.Workers)
	}
	if c.Workers == 0 {
		c.Workers = runtime.GOMAXPROCS(0)
	}
	if c.Workers > 1<<16 {
		return c, fmt.Errorf("worksteal: Config.Workers = %d; at most 65536", c.Workers)
	}
	if c.Victim > policy.Locality {
		return c, fmt.Errorf("worksteal: Config.Victim = %v is not a known policy", c.Victim)
	}
	if c.Steal > policy.StealOne {
		return c, fmt.Errorf("worksteal: Config.Steal = %v is not a known amount", c.Steal)
	}
	idle, err := policyrt.NormalizeIdle(c.Idle)
	if err != nil {
		return c, fmt.Errorf("worksteal: Config.Idle: %w", err)
	}
	c.Idle = idle
	if c.Trace < 0 {
		return c, fmt.Errorf("worksteal: Config.Trace = %d; want 0 (off) or a ring size", c.Trace)
	}
	if c.MaxBlocking == 0 {
		c.MaxBlocking = max(256, 4*c.Workers)
	}
	if c.StallAfter == 0 {
		c.StallAfter = defaultStallAfter
	}
	if c.StallAfter < 0 {
		c.StallAfter = -1 // stays negative, so New(p.Config()) means the same
	}
	if c.StallReport < 0 {
		return c, fmt.Errorf("worksteal: Config.StallReport = %v; want 0 (default %v) or a positive duration", c.StallReport, defaultStallReport)
	}
	if c.StallReport == 0 {
		c.StallReport = defaultStallReport
	}
	if c.MaxBlocking < 0 {
		c.MaxBlocking = -1 // stays negative, so New(p.Config()) means the same
	}
	if c.Seed == 0 {
		c.Seed = 0x5eed_0f_3a11_5eed
	}
	if c.CacheGroups && c.Groups == nil {
		g, err := cacheGroups(c.Workers)
		if err != nil {
			return c, fmt.Errorf("worksteal: Config.CacheGroups: %w", err)
		}
		c.Groups = g
	}
	if c.Governor != nil {
		if err := c.Governor.check(c.Workers); err != nil {
			return c, err
		}
	}
	if c.Pin && !pinSupported {
		return c, fmt.Errorf("worksteal: Config.Pin is not supported on %s", runtime.GOOS)
	}
	return c, nil
}
