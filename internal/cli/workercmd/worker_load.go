package workercmd

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync/atomic"
	"time"

	"github.com/worksteal/worksteal/internal/cli/cmdenv"
	"github.com/worksteal/worksteal/internal/gnuinput"
	"github.com/worksteal/worksteal/internal/throttle"
)

// admission decides whether "worksteal worker" may start new tasks
// (--load, --memfree) with the readings and the rules of "worksteal run"'s
// flags of the same names (throttle.Throttle, GNU parallel's): the load is the
// processes running or waiting for the disk now, less the reader; the free
// memory is MemFree + Buffers + Cached + SwapCached. A task starts only
// while load < --load and free memory ≥ --memfree. Unlike a local run, a
// worker never kills a running task for low memory: it stops taking new
// ones, and the cluster's other workers take them.
//
// One goroutine (run) samples every admitSample and stores the answer in
// ok, which the worker's pull loop reads (cluster.WithAdmission).
type admission struct {
	read    func() (throttle.Reading, error) // throttle.ReadMachine; tests inject readings
	maxLoad float64                          // 0: no limit
	memFree int64                            // bytes; 0: no limit
	Ok      atomic.Bool
	why     string // why the last sample said no, or "" (sampling goroutine only)
}

const admitSample = 250 * time.Millisecond

// NewAdmission reads --load and --memfree (nil when neither is given) and
// checks that the machine can be read.
func NewAdmission(load, memFree string, read func() (throttle.Reading, error)) (*admission, error) {
	if load == "" && memFree == "" {
		return nil, nil
	}
	a := &admission{read: read}
	if load != "" {
		v, err := cmdenv.ParseLoad(load)
		if err != nil {
			return nil, fmt.Errorf("--load %q: %v", load, err)
		}
		a.maxLoad = v
	}
	if memFree != "" {
		v, err := gnuinput.ParseSize("--memfree", memFree)
		if err != nil {
			return nil, err // names --memfree and the value
		}
		if v <= 0 {
			return nil, fmt.Errorf("--memfree %q: want a size above 0", memFree)
		}
		a.memFree = int64(v)
	}
	ok, why, err := a.Sample()
	if err != nil {
		return nil, fmt.Errorf("--load/--memfree: %v", err)
	}
	a.Ok.Store(ok)
	a.why = why
	return a, nil
}

// sample takes one reading and says whether new tasks may start and, if
// not, why.
func (a *admission) Sample() (bool, string, error) {
	r, err := a.read()
	if err != nil {
		return false, "", err
	}
	var why []string
	if a.maxLoad > 0 && r.Load >= a.maxLoad {
		why = append(why, fmt.Sprintf("load %g >= --load %g", r.Load, a.maxLoad))
	}
	if a.memFree > 0 && r.MemFree < a.memFree {
		why = append(why, fmt.Sprintf("%d MiB free < --memfree %d MiB", r.MemFree>>20, a.memFree>>20))
	}
	return len(why) == 0, strings.Join(why, ", "), nil
}

// run samples until ctx is done, logging each change to log. A reading
// that fails is no room, as GNU parallel has it.
func (a *admission) run(ctx context.Context, name string, log io.Writer) {
	if !a.Ok.Load() {
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
		ok, why, err := a.Sample()
		if err != nil {
			why = "the machine cannot be read: " + err.Error()
		}
		if ok != a.Ok.Load() {
			if ok {
				fmt.Fprintf(log, "%s: taking tasks again\n", name)
			} else {
				fmt.Fprintf(log, "%s: taking no new tasks: %s\n", name, why)
			}
		}
		a.Ok.Store(ok)
		a.why = why
	}
}
