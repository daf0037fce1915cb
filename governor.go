package worksteal

import (
	"context"
	"fmt"
	"maps"
	"math"
	"strings"
	"sync"
	"time"

	"github.com/worksteal/worksteal/internal/governor"
	"github.com/worksteal/worksteal/internal/machine"
)

// Governor configures Config.Governor: a goroutine of the pool that reads
// what Linux tells an unprivileged process about the machine — CPU pressure
// (/proc/pressure/cpu), the cgroup's CPU quota (cpu.max or
// cpu.cfs_quota_us, re-read each time, so a changed quota is followed),
// thermal zones (/sys/class/thermal) and RAPL power (/sys/class/powercap) —
// and lowers the pool's active workers (Pool.SetWorkers) when the machine
// is oversubscribed, hot or at its power limit, and raises them when that
// clears.
//
// The rules, with hysteresis: more than 20 % of the last interval with a
// task waiting for a CPU lowers (unless other processes used under half a
// CPU: then the waiting is the program's own), under 5 % may raise, and
// only with three quarters of a CPU idle; under 5 °C below a
// thermal trip point lowers, over 10 °C may raise; above 95 % of the RAPL
// power limit lowers, under 85 % may raise; a quota of q CPUs caps the
// workers at ⌈q⌉ at once. A signal the machine does not offer neither
// lowers nor blocks a raise (OnChange's first call names them, with the
// reason). The rate limit: apart from a quota cap, at most one change per
// Hold, down by a quarter of the active workers (at least one), up by one;
// a raise undone within twice its wait doubles the wait before the next
// (up to 64 × Hold), so a pool beside a CPU-bound neighbour settles instead
// of flapping.
type Governor struct {
	// Interval is the time between readings (default 250 ms).
	Interval time.Duration
	// Hold is the least time between two changes (default 1 s).
	Hold time.Duration
	// Min is the fewest active workers (default 1).
	Min int
	// Root is the directory under which /proc and /sys are read; "" means
	// "/". Tests point it at a fake tree.
	Root string
	// OnChange, if set, is called from the governor's goroutine once at
	// the start (From == To, with the signals that cannot be read) and then
	// at every change of the active workers.
	OnChange func(GovernorChange)
}

// GovernorChange is what the governor decided and why.
type GovernorChange struct {
	From, To int    // active workers before and after
	Reason   string // the readings that decided it, in words
	// Unavailable names each signal this machine does not offer
	// ("cpu-pressure", "cpu-quota", "thermal", "power") and why.
	Unavailable map[string]string
}

func (g *Governor) check(workers int) error {
	switch {
	case g.Interval < 0:
		return fmt.Errorf("worksteal: Config.Governor.Interval = %v; want a positive duration (0: 250 ms)", g.Interval)
	case g.Hold < 0:
		return fmt.Errorf("worksteal: Config.Governor.Hold = %v; want a positive duration (0: 1 s)", g.Hold)
	case g.Min < 0 || g.Min > workers:
		return fmt.Errorf("worksteal: Config.Governor.Min = %d; want 1 to Workers (%d), or 0 for 1", g.Min, workers)
	}
	return nil
}

// governorRun is a running governor (Pool.Close stops it).
type governorRun struct {
	cancel context.CancelFunc
	done   sync.WaitGroup
}

// startGovernor starts p's governor if its config asks for one.
func (p *Pool) startGovernor() *governorRun {
	gc := p.cfg.Governor
	if gc == nil {
		return nil
	}
	g, err := governor.New(governor.Config{Max: len(p.workers), Min: gc.Min, Hold: gc.Hold, FS: machine.FS{Root: gc.Root}})
	if err != nil {
		panic(err) // checked by normalize
	}
	interval := gc.Interval
	if interval == 0 {
		interval = 250 * time.Millisecond
	}
	ctx, cancel := context.WithCancel(context.Background())
	r := &governorRun{cancel: cancel}
	var report func(governor.Decision)
	if gc.OnChange != nil {
		report = func(d governor.Decision) {
			gc.OnChange(GovernorChange{From: d.From, To: d.Target, Reason: reasonOf(d), Unavailable: maps.Clone(g.Unavailable())})
		}
	}
	r.done.Add(1)
	go func() {
		defer r.done.Done()
		governor.Run(ctx, g, interval, p, report)
	}()
	return r
}

// reasonOf adds the pressure reading to a decision's reason, unless the
// reason names it already.
func reasonOf(d governor.Decision) string {
	s := d.Reason
	if p := d.Reading.Pressure; !math.IsNaN(p) && !strings.Contains(s, "CPU pressure") {
		s += fmt.Sprintf(" (CPU pressure %.0f%%)", p)
	}
	return s
}

// stop stops the governor and waits for its goroutine.
func (r *governorRun) stop() {
	if r == nil {
		return
	}
	r.cancel()
	r.done.Wait()
}
