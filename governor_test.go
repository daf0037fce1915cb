package worksteal

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/worksteal/worksteal/internal/governor"
)

// TestGovernorFollowsTheQuota: a pool with a governor reading a fake
// machine lowers its active workers to a 1-CPU cgroup quota and raises
// them when the quota is lifted, while computations run; OnChange says
// first which signals the machine lacks.
func TestGovernorFollowsTheQuota(t *testing.T) {
	root := t.TempDir()
	write := func(p, s string) {
		full := filepath.Join(root, p)
		os.MkdirAll(filepath.Dir(full), 0o755)
		if err := os.WriteFile(full, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("/proc/self/cgroup", "0::/job\n")
	write("/sys/fs/cgroup/job/cpu.max", "100000 100000\n")
	write("/proc/pressure/cpu", "some avg10=0.00 avg60=0.00 avg300=0.00 total=1000\n")
	var mu sync.Mutex
	var changes []GovernorChange
	p, err := New(Config{Workers: 3, Governor: &Governor{Root: root, Interval: time.Millisecond, Hold: time.Millisecond,
		OnChange: func(c GovernorChange) { mu.Lock(); changes = append(changes, c); mu.Unlock() }}})
	if err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the governor to apply the 1-CPU quota", func() bool { return p.ActiveWorkers() == 1 })
	waitUntil(t, "the surplus workers to retire", func() bool { return p.retiredCount() == 2 })
	if v, err := Run(p, func(w *Worker) int { return fibJoin(w, 18) }); err != nil || v != 2584 {
		t.Fatalf("fib 18 = %d, %v", v, err)
	}
	write("/sys/fs/cgroup/job/cpu.max", "max 100000\n")
	waitUntil(t, "the governor to raise the workers again", func() bool { return p.ActiveWorkers() == 3 })
	closeWithin(t, p)

	mu.Lock()
	defer mu.Unlock()
	if len(changes) < 3 {
		t.Fatalf("OnChange calls %+v; want the start, the cap and the raises", changes)
	}
	first := changes[0]
	if first.Unavailable["thermal"] == "" || first.Unavailable["power"] == "" || first.Unavailable["cpu-quota"] != "" {
		t.Errorf("first report's Unavailable = %v; want thermal and power named (the fake machine has neither), the quota read", first.Unavailable)
	}
	var capped bool
	for _, c := range changes {
		if c.To == 1 && strings.Contains(c.Reason, "quota 1.00 CPUs") {
			capped = true
		}
	}
	if !capped {
		t.Errorf("no change to 1 worker citing the quota: %+v", changes)
	}
}

func TestGovernorConfigErrors(t *testing.T) {
	for _, g := range []Governor{{Interval: -1}, {Hold: -time.Second}, {Min: 5}} {
		_, err := New(Config{Workers: 2, Governor: &g})
		if err == nil || !strings.Contains(err.Error(), "Config.Governor.") {
			t.Errorf("New with Governor %+v: %v; want an error naming the field", g, err)
		}
	}
}

// A reason that names the pressure is not repeated with it ("CPU pressure
// 50% > 20% (CPU pressure 50%)"); one that does not gets the reading.
func TestGovernorReasonNamesThePressureOnce(t *testing.T) {
	nan := math.NaN()
	r := governor.Reading{Pressure: 50, QuotaCPUs: nan, Headroom: nan, Power: nan, IdleCPUs: nan, OtherCPUs: nan}
	if got := reasonOf(governor.Decision{Reason: "CPU pressure 50% > 20%", Reading: r}); strings.Count(got, "CPU pressure") != 1 {
		t.Errorf("reason %q; want the pressure named once", got)
	}
	if got := reasonOf(governor.Decision{Reason: "the machine has room", Reading: r}); !strings.Contains(got, "(CPU pressure 50%)") {
		t.Errorf("reason %q; want the pressure reading added", got)
	}
}
