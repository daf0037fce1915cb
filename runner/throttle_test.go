package runner

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/worksteal/worksteal/internal/runopts"
	"github.com/worksteal/worksteal/internal/testdeadline"
	"github.com/worksteal/worksteal/internal/throttle"
)

// No job starts while the load is at or over MaxLoad; the first starts
// at the first reading under it.
func TestThrottleLoadHoldsStarts(t *testing.T) {
	reads, readsAtStart := 0, -1
	th := &throttle.Throttle{MaxLoad: 2, Every: 5 * time.Millisecond, Read: func() (throttle.Reading, error) {
		reads++
		if reads <= 3 {
			return throttle.Reading{Load: 2}, nil // at the limit: no room
		}
		return throttle.Reading{Load: 0}, nil
	}}
	cfg := Config{Slots: 2, x: runopts.Options{Throttle: th, Attempts: func(a runopts.Attempt) {
		if !a.Ended && readsAtStart < 0 {
			readsAtStart = reads
		}
	}}}
	sum := mustRun(t, cfg, lines("true", "true", "true"))
	if sum.Succeeded != 3 {
		t.Fatalf("%+v", sum)
	}
	if readsAtStart != 4 {
		t.Errorf("the first job started at reading %d, want 4 (the first under the limit)", readsAtStart)
	}
}

// The load counts the jobs themselves: with the load read as the running
// jobs, no more than MaxLoad run at once, whatever the slots.
func TestThrottleLoadLimitsConcurrency(t *testing.T) {
	running, most := 0, 0
	th := &throttle.Throttle{MaxLoad: 2, Every: 2 * time.Millisecond, Read: func() (throttle.Reading, error) {
		return throttle.Reading{Load: float64(running)}, nil
	}}
	cfg := Config{Slots: 8, x: runopts.Options{Throttle: th, Attempts: func(a runopts.Attempt) {
		if a.Ended {
			running--
			return
		}
		running++
		most = max(most, running)
	}}}
	var cmds []string
	for range 10 {
		cmds = append(cmds, "sleep 0.05")
	}
	sum := mustRun(t, cfg, lines(cmds...))
	if sum.Succeeded != 10 || most != 2 {
		t.Errorf("%d succeeded, at most %d at once; want 10, 2", sum.Succeeded, most)
	}
}

// Below MemFree no job starts; below half of it the youngest running job
// is killed (and, with retries, run again later).
func TestThrottleMemFree(t *testing.T) {
	const limit = 1000
	started := 0
	low := false
	th := &throttle.Throttle{MemFree: limit, Every: 5 * time.Millisecond, Read: func() (throttle.Reading, error) {
		if low {
			return throttle.Reading{MemFree: limit/2 - 1}, nil
		}
		return throttle.Reading{MemFree: limit}, nil
	}}
	var killed []int
	cfg := Config{Slots: 3, Retries: 1, x: runopts.Options{Throttle: th, Attempts: func(a runopts.Attempt) {
		if !a.Ended {
			started++
			// Memory runs short once the first three have started; it
			// comes back when one is killed.
			low = started == 3
			return
		}
		if !a.OK && low {
			killed = append(killed, a.Seq)
			low = false
		}
	}}}
	sum := mustRun(t, cfg, lines("sleep 2", "sleep 2", "sleep 2", "true"))
	if len(killed) != 1 || killed[0] != 3 {
		t.Fatalf("killed %v, want [3] (the youngest)", killed)
	}
	if sum.Succeeded != 4 || sum.Retries != 1 {
		t.Errorf("%d succeeded, %d retries; want 4, 1", sum.Succeeded, sum.Retries)
	}
}

// A killed job with no retry left has failed, and says why.
func TestThrottleMemFreeKillFails(t *testing.T) {
	th := &throttle.Throttle{MemFree: 1000, Every: 5 * time.Millisecond}
	n := 0
	th.Read = func() (throttle.Reading, error) {
		n++
		if n > 1 {
			return throttle.Reading{MemFree: 1}, nil
		}
		return throttle.Reading{MemFree: 1000}, nil
	}
	sum := mustRun(t, Config{Slots: 1, x: runopts.Options{Throttle: th}}, lines("sleep 30"))
	if sum.Failed != 1 || !errors.Is(sum.Results[0].Err, errLowMemory) {
		t.Errorf("%d failed, err %v; want 1, %v", sum.Failed, sum.Results[0].Err, errLowMemory)
	}
}

// A reading that fails is no room (GNU parallel's "load unknown"); the
// run waits for a good one.
func TestThrottleReadingFails(t *testing.T) {
	n := 0
	th := &throttle.Throttle{MaxLoad: 1, Every: time.Millisecond, Read: func() (throttle.Reading, error) {
		n++
		if n < 3 {
			return throttle.Reading{}, fmt.Errorf("no /proc")
		}
		return throttle.Reading{}, nil
	}}
	ctx, cancel := context.WithTimeout(context.Background(), testdeadline.Left(t))
	defer cancel()
	sum, err := Run(ctx, Config{Slots: 1, x: runopts.Options{Throttle: th}}, lines("true"))
	if err != nil || sum.Succeeded != 1 || n < 3 {
		t.Errorf("%v, %d succeeded after %d readings", err, sum.Succeeded, n)
	}
}

// --nice: the job runs at the niceness asked for.
func TestNice(t *testing.T) {
	var out lockedBuffer
	want := max(ownNice(), 7)
	sum := mustRun(t, Config{Slots: 1, Nice: 7, Stdout: &out}, lines("nice"))
	if sum.Succeeded != 1 || out.String() != fmt.Sprintf("%d\n", want) {
		t.Errorf("nice printed %q, want %d", out.String(), want)
	}
}
