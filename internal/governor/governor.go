// Package governor decides how many of a pool's workers should be active,
// from what Linux tells an unprivileged process about the machine: CPU
// pressure (/proc/pressure/cpu), the cgroup's CPU quota (cpu.max or
// cpu.cfs_quota_us, re-read every step, so a changed quota is followed),
// thermal zones (/sys/class/thermal) and RAPL power (/sys/class/powercap).
// It imports only the standard library (the runtime uses it).
//
// # Rules
//
// Each Step reads every signal and compares it with a pair of thresholds
// (hysteresis: a band in which the target holds):
//
//   - CPU pressure: the share of the last interval in which some runnable
//     task waited for a CPU (the growth of PSI's "some total"). Above 20 %
//     the machine is oversubscribed: lower — unless other processes used
//     under half a CPU over the interval (/proc/stat less /proc/self/stat):
//     then the waiting tasks are this process's own, and fewer workers
//     would only leave CPUs idle. Below 5 %: may raise.
//   - Idle CPU: a raise also needs three quarters of a CPU idle over the
//     interval (/proc/stat), so a pool beside a CPU-bound neighbour that
//     it lowered for does not raise into the neighbour's CPU and lower
//     again (2→1→2→1).
//   - Thermal: headroom to the hottest zone's lowest passive/hot/critical
//     trip point. Under 5 °C: lower. Over 10 °C: may raise.
//   - Power: RAPL package power against the packages' long-term limit.
//     Above 95 % of it: lower. Under 85 %: may raise.
//   - Quota: a cgroup quota of q CPUs caps the target at ⌈q⌉ at once, on
//     the step that first sees it (more workers than CPU time only makes
//     the kernel throttle them all).
//
// The target is lowered when any signal says lower, and raised when every
// readable signal says it may (an unreadable signal neither lowers nor
// blocks: a machine without PSI keeps every worker).
//
// # Rate limit
//
// Apart from a quota cap, the target changes at most once per Hold
// (default 1 s). It goes down by a quarter (at least one worker) and up by
// one (additive increase, multiplicative decrease). A raise that is undone
// by a lowering within twice the raise hold doubles the raise hold (up to
// 64 × Hold), so a pool next to a CPU-bound neighbour does not flap between
// two sizes every second; a raise that lasts resets it to Hold.
package governor

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/worksteal/worksteal/internal/machine"
)

// Thresholds of the rules (see the package documentation).
const (
	PressureHigh  = 20.0 // percent of an interval: lower above
	PressureLow   = 5.0  // percent: may raise below
	ThermalLow    = 5.0  // degrees of headroom: lower below
	ThermalHigh   = 10.0 // degrees: may raise above
	PowerHigh     = 0.95 // share of the power limit: lower above
	PowerLow      = 0.85 // share: may raise below
	OthersLow     = 0.5  // CPUs used by other processes: below, pressure is our own and does not lower
	IdleForRaise  = 0.75 // idle CPUs a raise needs (when /proc/stat is readable)
	maxHoldFactor = 64
)

// Config configures a Governor.
type Config struct {
	Max  int           // the pool's workers: the target never exceeds it
	Min  int           // the target never goes below it (default 1)
	Hold time.Duration // at most one change per Hold (default 1 s)
	FS   machine.FS    // where to read the machine (tests: a fake tree)
}

// Governor holds the state of the decisions. It is not safe for
// concurrent use: one goroutine steps it.
type Governor struct {
	cfg       Config
	target    int
	changed   time.Time // last change of the target
	raised    time.Time // last raise; zero if none is pending judgement
	raiseHold time.Duration

	stall     time.Duration // last CPUStall reading
	busy, idl time.Duration // last CPUTimes reading
	self      time.Duration // last SelfCPU reading
	haveCPU   bool          // busy, idl and self hold a reading
	energy    machine.Energy
	lastAt    time.Time // when stall and energy were read
	haveStall bool
	haveJ     bool

	// unavailable names each signal that could not be read, and why; the
	// first Step fills it and later ones keep it current.
	unavailable map[string]string
}

// New returns a governor whose target starts at cfg.Max.
func New(cfg Config) (*Governor, error) {
	if cfg.Max < 1 {
		return nil, fmt.Errorf("governor: Max = %d; want at least 1", cfg.Max)
	}
	if cfg.Min == 0 {
		cfg.Min = 1
	}
	if cfg.Min < 1 || cfg.Min > cfg.Max {
		return nil, fmt.Errorf("governor: Min = %d; want 1 to Max (%d)", cfg.Min, cfg.Max)
	}
	if cfg.Hold == 0 {
		cfg.Hold = time.Second
	}
	if cfg.Hold < 0 {
		return nil, fmt.Errorf("governor: Hold = %v; want a positive duration (0: 1 s)", cfg.Hold)
	}
	return &Governor{cfg: cfg, target: cfg.Max, raiseHold: cfg.Hold, unavailable: map[string]string{}}, nil
}

// Reading is what one Step saw. A field whose signal could not be read is
// NaN (see Governor.Unavailable).
type Reading struct {
	Pressure  float64 // percent of the interval some task waited for a CPU
	QuotaCPUs float64 // cgroup quota in CPUs; +Inf when the cgroup has none
	Headroom  float64 // degrees below the nearest trip point; +Inf with no trip point
	Power     float64 // share of the RAPL power limit in use
	// IdleCPUs is how many CPUs the machine left idle over the interval;
	// OtherCPUs how many it spent on other processes than this one
	// (/proc/stat less /proc/self/stat).
	IdleCPUs, OtherCPUs float64
}

// Decision is the outcome of one Step.
type Decision struct {
	From    int // the target before this step
	Target  int
	Changed bool
	Reason  string // why the target changed or held, in words
	Reading Reading
}

// Target returns the current target.
func (g *Governor) Target() int { return g.target }

// Unavailable returns the signals that could not be read at the last Step,
// each with the reason.
func (g *Governor) Unavailable() map[string]string { return g.unavailable }

// read takes one reading of every signal at time now.
func (g *Governor) read(now time.Time) Reading {
	nan := math.NaN()
	r := Reading{Pressure: nan, QuotaCPUs: nan, Headroom: nan, Power: nan, IdleCPUs: nan, OtherCPUs: nan}
	fs := g.cfg.FS
	note := func(name string, err error) {
		if err != nil {
			g.unavailable[name] = err.Error()
		} else {
			delete(g.unavailable, name)
		}
	}
	dt := now.Sub(g.lastAt)
	stall, err := fs.CPUStall()
	note("cpu-pressure", err)
	if err == nil {
		if g.haveStall && dt > 0 {
			r.Pressure = 100 * float64(stall-g.stall) / float64(dt)
			r.Pressure = min(max(r.Pressure, 0), 100)
		}
		g.stall, g.haveStall = stall, true
	} else {
		g.haveStall = false
	}
	busy, idl, err := fs.CPUTimes()
	var self time.Duration
	if err == nil {
		self, err = fs.SelfCPU()
	}
	note("cpu-time", err)
	if err == nil {
		if g.haveCPU && dt > 0 {
			r.IdleCPUs = max(0, float64(idl-g.idl)/float64(dt))
			r.OtherCPUs = max(0, float64((busy-g.busy)-(self-g.self))/float64(dt))
		}
		g.busy, g.idl, g.self, g.haveCPU = busy, idl, self, true
	} else {
		g.haveCPU = false
	}
	cpus, limited, err := fs.CPUQuota()
	note("cpu-quota", err)
	if err == nil {
		r.QuotaCPUs = math.Inf(1)
		if limited {
			r.QuotaCPUs = cpus
		}
	}
	th, err := fs.Thermal()
	note("thermal", err)
	if err == nil {
		r.Headroom = math.Inf(1)
		if th.Trip > 0 {
			r.Headroom = th.Trip - th.Temp
		}
	}
	e, err := fs.Energy()
	if err == nil && e.LimitWatts <= 0 {
		err = fmt.Errorf("/sys/class/powercap: no long-term power limit (constraint_0_power_limit_uw) to compare with")
	}
	note("power", err)
	if err == nil {
		if g.haveJ && dt > 0 {
			r.Power = e.JoulesSince(g.energy) / dt.Seconds() / e.LimitWatts
		}
		g.energy, g.haveJ = e, true
	} else {
		g.haveJ = false
	}
	g.lastAt = now
	return r
}

// Step reads the machine at time now and returns the target it decides.
func (g *Governor) Step(now time.Time) Decision {
	r := g.read(now)
	d := Decision{From: g.target, Target: g.target, Reading: r}

	limit := g.cfg.Max
	if q := r.QuotaCPUs; !math.IsNaN(q) && !math.IsInf(q, 1) {
		limit = min(limit, max(g.cfg.Min, int(math.Ceil(q-1e-9))))
	}
	if g.target > limit {
		d.Reason = fmt.Sprintf("cgroup CPU quota %.2f CPUs caps the workers at %d", r.QuotaCPUs, limit)
		return g.set(d, limit, now, false)
	}

	var lower []string
	raiseOK := true
	var why []string // why a raise is not made, besides the signals
	switch p := r.Pressure; {
	case math.IsNaN(p):
	case p > PressureHigh && r.OtherCPUs < OthersLow:
		// Tasks wait for a CPU, but other processes use almost none:
		// the waiting is this process's own (its workers, the
		// collector, its other goroutines). Fewer workers would leave
		// CPUs idle, so hold.
		raiseOK = false
		why = append(why, fmt.Sprintf("CPU pressure %.0f%% is this process's own (other processes use %.2f CPUs)", p, r.OtherCPUs))
	case p > PressureHigh:
		lower = append(lower, fmt.Sprintf("CPU pressure %.0f%% > %.0f%%", p, PressureHigh))
	case p >= PressureLow:
		raiseOK = false
	}
	if i := r.IdleCPUs; i < IdleForRaise && g.target < limit {
		// A raise needs a CPU to run on: with none idle, the new worker
		// would only take time from the neighbour whose load made the
		// governor lower (and the pressure it causes would lower again).
		raiseOK = false
		why = append(why, fmt.Sprintf("%.2f CPUs idle, fewer than the %.2f a raise needs", i, IdleForRaise))
	}
	switch h := r.Headroom; {
	case math.IsNaN(h):
	case h < ThermalLow:
		lower = append(lower, fmt.Sprintf("%.1f °C below the thermal trip point (< %.0f)", h, ThermalLow))
	case h <= ThermalHigh:
		raiseOK = false
	}
	switch pw := r.Power; {
	case math.IsNaN(pw):
	case pw > PowerHigh:
		lower = append(lower, fmt.Sprintf("power at %.0f%% of the RAPL limit (> %.0f%%)", 100*pw, 100*PowerHigh))
	case pw >= PowerLow:
		raiseOK = false
	}

	since := now.Sub(g.changed)
	switch {
	case len(lower) > 0 && g.target > g.cfg.Min:
		if since < g.cfg.Hold {
			d.Reason = "hold (rate limit): " + join(lower)
			return d
		}
		if !g.raised.IsZero() && now.Sub(g.raised) < 2*g.raiseHold {
			g.raiseHold = min(2*g.raiseHold, maxHoldFactor*g.cfg.Hold) // the last raise did not last
		}
		g.raised = time.Time{}
		d.Reason = join(lower)
		return g.set(d, max(g.cfg.Min, g.target-max(1, g.target/4)), now, false)
	case len(lower) > 0:
		d.Reason = "at the minimum: " + join(lower)
		return d
	}
	if !g.raised.IsZero() && now.Sub(g.raised) >= 2*g.raiseHold {
		g.raised, g.raiseHold = time.Time{}, g.cfg.Hold // the last raise lasted
	}
	if raiseOK && g.target < limit {
		if since < max(g.cfg.Hold, g.raiseHold) {
			d.Reason = fmt.Sprintf("hold (rate limit %v)", max(g.cfg.Hold, g.raiseHold))
			return d
		}
		d.Reason = "the machine has room"
		return g.set(d, g.target+1, now, true)
	}
	d.Reason = "steady"
	if len(why) > 0 {
		d.Reason += ": " + join(why)
	}
	return d
}

func (g *Governor) set(d Decision, target int, now time.Time, raise bool) Decision {
	d.Changed = target != g.target
	g.target, d.Target = target, target
	g.changed = now
	if raise {
		g.raised = now
	}
	return d
}

func join(xs []string) string {
	s := xs[0]
	for _, x := range xs[1:] {
		s += "; " + x
	}
	return s
}

// Sizer is what a governor drives: a pool's active-worker count.
type Sizer interface {
	SetWorkers(n int) error
}

// Run steps g every interval until ctx is done and calls s.SetWorkers
// with each new target, and report, if not nil, with the first decision
// (whether or not it changed the target: it says which signals can be
// read) and every later one that changed the target.
func Run(ctx context.Context, g *Governor, interval time.Duration, s Sizer, report func(Decision)) {
	first := true
	apply := func(d Decision) {
		if !d.Changed && !first {
			return
		}
		first = false
		if d.Changed {
			if err := s.SetWorkers(d.Target); err != nil {
				d.Reason += fmt.Sprintf(" (SetWorkers(%d): %v)", d.Target, err)
			}
		}
		if report != nil {
			report(d)
		}
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	apply(g.Step(time.Now())) // the first reading: the base of the rates, and the quota
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-t.C:
			apply(g.Step(now))
		}
	}
}
