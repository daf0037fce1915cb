package cli

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/worksteal/worksteal/internal/machine"
)

// parseMaxLoad parses --load as GNU parallel's: a number of running
// processes, or N% of the CPUs (100% is one per CPU).
func parseMaxLoad(s string, cpus int) (float64, error) {
	if s == "" {
		return 0, nil
	}
	v, pct := strings.CutSuffix(s, "%")
	x, err := strconv.ParseFloat(v, 64)
	if err != nil || !(x > 0) {
		return 0, fmt.Errorf("--load %q: want a positive number of running processes, or N%% of the CPUs", s)
	}
	if pct {
		x = x * float64(cpus) / 100
	}
	return x, nil
}

// parseSize parses --memfree as GNU parallel's sizes: a number of bytes,
// with K M G T P for powers of 1024 or k m g t p for powers of 1000.
func parseSize(flag, s string) (uint64, error) {
	if s == "" {
		return 0, nil
	}
	mult := 1.0
	if n := len(s); n > 0 {
		if i := strings.IndexByte("KMGTP", s[n-1]); i >= 0 {
			mult, s = float64(uint64(1)<<(10*(i+1))), s[:n-1]
		} else if i := strings.IndexByte("kmgtp", s[n-1]); i >= 0 {
			mult, s = 1, s[:n-1]
			for range i + 1 {
				mult *= 1000
			}
		}
	}
	x, err := strconv.ParseFloat(s, 64)
	if err != nil || !(x > 0) {
		return 0, fmt.Errorf("%s %q: want a size such as 2G, 500M or 1000000000", flag, s)
	}
	return uint64(x * mult), nil
}

// admission decides whether a worker may start new tasks (--load,
// --memfree), from the readings the governor also uses (package
// internal/machine). It samples every admitSample; the load is the mean
// running-process count of the last four samples (one second), so one
// short burst of runnable threads does not stop the worker.
type admission struct {
	fs      machine.FS
	maxLoad float64 // 0: no limit
	memFree uint64  // bytes; 0: no limit
	loads   []float64
	ok      atomic.Bool
	why     string // why it said no, or "" (sampling goroutine only)
}

const admitSample = 250 * time.Millisecond

func newAdmission(fs machine.FS, maxLoad float64, memFree uint64) *admission {
	a := &admission{fs: fs, maxLoad: maxLoad, memFree: memFree}
	a.ok.Store(true)
	return a
}

// running reads the number of runnable tasks of the machine from
// /proc/loadavg's fourth field ("running/total"), less the reader itself.
func running(fs machine.FS) (float64, error) {
	load, err := fs.Running()
	if err != nil {
		return 0, err
	}
	return float64(max(0, load-1)), nil
}

// sample takes one reading and returns whether new tasks may start and,
// if not, why. A reading the machine does not offer is an error: a limit
// that cannot be checked is refused at start (check), not ignored.
func (a *admission) sample() (bool, string, error) {
	var why []string
	if a.maxLoad > 0 {
		r, err := running(a.fs)
		if err != nil {
			return false, "", fmt.Errorf("--load: %w", err)
		}
		a.loads = append(a.loads, r)
		if len(a.loads) > 4 {
			a.loads = a.loads[1:]
		}
		mean := 0.0
		for _, x := range a.loads {
			mean += x
		}
		mean /= float64(len(a.loads))
		if mean >= a.maxLoad {
			why = append(why, fmt.Sprintf("%.1f running processes >= --load %g", mean, a.maxLoad))
		}
	}
	if a.memFree > 0 {
		_, avail, err := a.fs.Memory()
		if err != nil {
			return false, "", fmt.Errorf("--memfree: %w", err)
		}
		if avail < a.memFree {
			why = append(why, fmt.Sprintf("%d MiB available < --memfree %d MiB", avail>>20, a.memFree>>20))
		}
	}
	return len(why) == 0, strings.Join(why, ", "), nil
}

// check takes the first sample: an error says the limits cannot be
// checked on this machine.
func (a *admission) check() error {
	ok, why, err := a.sample()
	if err != nil {
		return err
	}
	a.ok.Store(ok)
	a.why = why
	return nil
}

// run samples until ctx is done, logging each change to log.
func (a *admission) run(ctx context.Context, name string, log io.Writer) {
	if !a.ok.Load() {
		fmt.Fprintf(log, "%s: taking no new tasks: %s\n", name, a.why)
	}
	t := time.NewTicker(admitSample)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		ok, why, err := a.sample()
		if err != nil {
			ok, why = true, err.Error()+" (limit not enforced)"
		}
		if ok != a.ok.Load() {
			if ok {
				fmt.Fprintf(log, "%s: taking tasks again\n", name)
			} else {
				fmt.Fprintf(log, "%s: taking no new tasks: %s\n", name, why)
			}
		}
		a.ok.Store(ok)
		a.why = why
	}
}

// cpus is the CPU count --load percentages refer to.
func cpus() int { return runtime.NumCPU() }
