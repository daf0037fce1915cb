package governor

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/worksteal/worksteal/internal/machine"
	"github.com/worksteal/worksteal/internal/testdeadline"
)

// fakeMachine is a fake sysfs tree whose files a test rewrites between
// steps, and a fake clock.
type fakeMachine struct {
	t     *testing.T
	root  string
	now   time.Time
	stall time.Duration // PSI some total
	uj    uint64        // RAPL energy
}

func newFake(t *testing.T) *fakeMachine {
	f := &fakeMachine{t: t, root: t.TempDir(), now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	f.write("/proc/self/cgroup", "0::/job\n")
	f.write("/sys/fs/cgroup/job/cpu.max", "max 100000\n")
	f.psi()
	return f
}

func (f *fakeMachine) write(p, s string) {
	f.t.Helper()
	full := filepath.Join(f.root, p)
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		f.t.Fatal(err)
	}
	if err := os.WriteFile(full, []byte(s), 0o644); err != nil {
		f.t.Fatal(err)
	}
}

func (f *fakeMachine) psi() {
	f.write("/proc/pressure/cpu", fmt.Sprintf("some avg10=0.00 avg60=0.00 avg300=0.00 total=%d\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=0\n", f.stall.Microseconds()))
}

// advance moves the clock by dt, during which some task waited for a CPU
// pressure percent of the time.
func (f *fakeMachine) advance(dt time.Duration, pressure float64) {
	f.now = f.now.Add(dt)
	f.stall += time.Duration(float64(dt) * pressure / 100)
	f.psi()
}

func (f *fakeMachine) fs() machine.FS { return machine.FS{Root: f.root} }

const interval = 250 * time.Millisecond

func newGov(t *testing.T, f *fakeMachine, max int) *Governor {
	t.Helper()
	g, err := New(Config{Max: max, FS: f.fs()})
	if err != nil {
		t.Fatal(err)
	}
	g.Step(f.now) // base reading
	return g
}

// run steps the governor n times, with the pressure pressureOf(target)
// between steps, and returns the targets after each step and the times of
// the changes.
func run(g *Governor, f *fakeMachine, n int, pressureOf func(target int) float64) (targets []int, changes []time.Time) {
	for range n {
		f.advance(interval, pressureOf(g.Target()))
		d := g.Step(f.now)
		targets = append(targets, d.Target)
		if d.Changed {
			changes = append(changes, f.now)
		}
	}
	return targets, changes
}

func checkRateLimit(t *testing.T, changes []time.Time, hold time.Duration) {
	t.Helper()
	for i := 1; i < len(changes); i++ {
		if gap := changes[i].Sub(changes[i-1]); gap < hold {
			t.Errorf("changes %d and %d only %v apart; the rate limit is one per %v", i-1, i, gap, hold)
		}
	}
}

func TestPressureLowersToOneWithRateLimit(t *testing.T) {
	f := newFake(t)
	g := newGov(t, f, 8)
	targets, changes := run(g, f, 40, func(int) float64 { return 90 })
	want := []int{6, 5, 4, 3, 2, 1}
	var got []int
	for i, x := range targets {
		if i == 0 || x != targets[i-1] {
			if i > 0 || x != 8 {
				got = append(got, x)
			}
		}
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("targets under 90%% pressure went %v; want %v (down a quarter, at least one, per second)", got, want)
	}
	checkRateLimit(t, changes, time.Second)
	if targets[len(targets)-1] != 1 {
		t.Errorf("ended at %d; want the minimum, 1", targets[len(targets)-1])
	}
}

func TestPressureInTheBandHolds(t *testing.T) {
	f := newFake(t)
	g := newGov(t, f, 4)
	run(g, f, 8, func(int) float64 { return 50 }) // lower a few times first
	low := g.Target()
	if low >= 4 {
		t.Fatalf("50%% pressure did not lower the target (%d)", low)
	}
	targets, _ := run(g, f, 40, func(int) float64 { return 12 }) // between 5 and 20
	for _, x := range targets {
		if x != low {
			t.Fatalf("pressure 12%% (inside the 5-20%% band) moved the target from %d: %v", low, targets)
		}
	}
	targets, changes := run(g, f, 40, func(int) float64 { return 1 })
	if targets[len(targets)-1] != 4 {
		t.Errorf("1%% pressure for 10 s left the target at %d; want it back at 4", targets[len(targets)-1])
	}
	checkRateLimit(t, changes, time.Second)
}

// A CPU-bound neighbour on a 2-CPU machine: with more than one worker
// active, 3+ threads want 2 CPUs (pressure 100 %); with one, none waits.
// The governor must not flap every second: each failed raise doubles the
// wait before the next.
func TestNeighbourDoesNotMakeItFlap(t *testing.T) {
	f := newFake(t)
	g := newGov(t, f, 2)
	neighbour := func(target int) float64 {
		if target > 1 {
			return 100
		}
		return 0
	}
	_, changes := run(g, f, 4*120, neighbour) // two minutes
	var raises []time.Time
	for i, c := range changes {
		if i%2 == 1 { // 2→1, 1→2, 2→1, ...
			raises = append(raises, c)
		}
	}
	if len(changes) > 14 {
		t.Errorf("%d changes in two minutes; a flapping governor makes ~%d", len(changes), 120)
	}
	for i := 2; i < len(raises); i++ {
		if a, b := raises[i-1].Sub(raises[i-2]), raises[i].Sub(raises[i-1]); b < a {
			t.Errorf("raise %d came %v after the previous, sooner than the gap before (%v): the back-off should grow", i, b, a)
		}
	}
	checkRateLimit(t, changes, time.Second)
	t.Logf("changes at %v", changes)
}

func TestQuotaCapsAtOnceAndFollowsChanges(t *testing.T) {
	f := newFake(t)
	g := newGov(t, f, 8)
	f.write("/sys/fs/cgroup/job/cpu.max", "150000 100000\n")
	f.advance(interval, 0)
	d := g.Step(f.now)
	if d.Target != 2 || !d.Changed || !strings.Contains(d.Reason, "quota 1.50 CPUs") {
		t.Fatalf("after the quota became 1.5 CPUs: %+v; want the target 2 at once, the reason naming the quota", d)
	}
	f.write("/sys/fs/cgroup/job/cpu.max", "50000 100000\n")
	f.advance(interval, 0)
	if d := g.Step(f.now); d.Target != 1 { // the same step: a cap ignores the rate limit
		t.Fatalf("quota 0.5 CPUs: target %d; want 1", d.Target)
	}
	targets, _ := run(g, f, 20, func(int) float64 { return 0 })
	if targets[len(targets)-1] != 1 {
		t.Fatalf("the target rose above the quota: %v", targets)
	}
	f.write("/sys/fs/cgroup/job/cpu.max", "max 100000\n")
	targets, changes := run(g, f, 60, func(int) float64 { return 0 })
	if targets[len(targets)-1] != 8 {
		t.Errorf("quota lifted, no pressure, 15 s: target %d; want 8", targets[len(targets)-1])
	}
	checkRateLimit(t, changes, time.Second)
}

func TestThermalHeadroomLowersTheTarget(t *testing.T) {
	f := newFake(t)
	zone := func(temp int) {
		f.write("/sys/class/thermal/thermal_zone0/temp", fmt.Sprint(temp*1000))
		f.write("/sys/class/thermal/thermal_zone0/trip_point_0_type", "passive")
		f.write("/sys/class/thermal/thermal_zone0/trip_point_0_temp", "90000")
	}
	zone(60)
	g := newGov(t, f, 4)
	zone(87) // 3 °C of headroom
	targets, _ := run(g, f, 12, func(int) float64 { return 0 })
	hot := targets[len(targets)-1]
	if hot >= 4 {
		t.Fatalf("3 °C below the trip point: target stayed %d", hot)
	}
	zone(82) // 8 °C: in the band
	if targets, _ := run(g, f, 20, func(int) float64 { return 0 }); targets[len(targets)-1] != hot {
		t.Fatalf("8 °C of headroom (band 5-10) moved the target: %v", targets)
	}
	zone(70)
	if targets, _ := run(g, f, 40, func(int) float64 { return 0 }); targets[len(targets)-1] != 4 {
		t.Fatalf("20 °C of headroom: target %v; want back to 4", targets)
	}
}

func TestPowerLimit(t *testing.T) {
	f := newFake(t)
	energy := func() {
		f.write("/sys/class/powercap/intel-rapl:0/energy_uj", fmt.Sprint(f.uj))
		f.write("/sys/class/powercap/intel-rapl:0/max_energy_range_uj", "262143328850")
		f.write("/sys/class/powercap/intel-rapl:0/constraint_0_power_limit_uw", "100000000") // 100 W
	}
	energy()
	g := newGov(t, f, 4)
	step := func(watts float64) Decision {
		f.uj += uint64(watts * interval.Seconds() * 1e6)
		energy()
		f.advance(interval, 0)
		return g.Step(f.now)
	}
	var d Decision
	for range 8 {
		d = step(99)
	}
	if d.Target >= 4 || math.Abs(d.Reading.Power-0.99) > 0.01 {
		t.Fatalf("at 99 W of a 100 W limit: %+v; want it lowered, power read as 0.99", d)
	}
	low := d.Target
	for range 20 {
		if d = step(90); d.Target != low {
			t.Fatalf("at 90 W (band 85-95): the target moved to %d", d.Target)
		}
	}
	for range 40 {
		d = step(50)
	}
	if d.Target != 4 {
		t.Fatalf("at 50 W: target %d; want 4", d.Target)
	}
}

func TestNoSignalsKeepsEveryWorker(t *testing.T) {
	g, err := New(Config{Max: 3, FS: machine.FS{Root: t.TempDir()}})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	for i := range 10 {
		if d := g.Step(now.Add(time.Duration(i) * time.Second)); d.Target != 3 || d.Changed {
			t.Fatalf("a machine without readings changed the target: %+v", d)
		}
	}
	u := g.Unavailable()
	for _, name := range []string{"cpu-pressure", "cpu-quota", "thermal", "power"} {
		if u[name] == "" {
			t.Errorf("Unavailable()[%q] is empty; want the reason (%v)", name, u)
		}
	}
}

func TestConfigErrors(t *testing.T) {
	for _, c := range []Config{{Max: 0}, {Max: 2, Min: 3}, {Max: 2, Hold: -time.Second}} {
		if _, err := New(c); err == nil {
			t.Errorf("New(%+v) accepted", c)
		}
	}
}

type fakeSizer struct {
	mu    sync.Mutex
	calls []int
}

func (s *fakeSizer) SetWorkers(n int) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls = append(s.calls, n)
	return nil
}

func TestRunDrivesTheSizer(t *testing.T) {
	f := newFake(t)
	f.write("/sys/fs/cgroup/job/cpu.max", "100000 100000\n") // one CPU
	g, err := New(Config{Max: 4, FS: f.fs(), Hold: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	s := &fakeSizer{}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	var reports []Decision
	go func() {
		defer close(done)
		Run(ctx, g, time.Millisecond, s, func(d Decision) { reports = append(reports, d) })
	}()
	for deadline := time.Now().Add(testdeadline.Left(t)); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		s.mu.Lock()
		n := len(s.calls)
		s.mu.Unlock()
		if n > 0 {
			break
		}
	}
	cancel()
	<-done
	if len(s.calls) == 0 || s.calls[0] != 1 || len(reports) == 0 || !strings.Contains(reports[0].Reason, "quota") {
		t.Fatalf("SetWorkers calls %v, reports %+v; want SetWorkers(1) for the 1-CPU quota", s.calls, reports)
	}
}

// cpuModel writes /proc/stat and /proc/self/stat for a 2-CPU machine over
// the last interval: ours CPUs used by this process, others by the rest,
// the remainder idle.
type cpuModel struct {
	f                 *fakeMachine
	busy, idle, selfT time.Duration
}

func (m *cpuModel) advance(dt time.Duration, pressure, ours, others float64) {
	m.f.advance(dt, pressure)
	used := ours + others
	m.busy += time.Duration(used * float64(dt))
	m.idle += time.Duration(max(0, 2-used) * float64(dt))
	m.selfT += time.Duration(ours * float64(dt))
	tick := func(d time.Duration) int64 { return int64(d / (10 * time.Millisecond)) }
	m.f.write("/proc/stat", fmt.Sprintf("cpu  %d 0 0 %d 0 0 0 0 0 0\ncpu0 0 0 0 0 0 0 0 0 0 0\n", tick(m.busy), tick(m.idle)))
	m.f.write("/proc/self/stat", fmt.Sprintf("4242 (my prog) R 1 1 1 0 -1 0 0 0 0 0 %d 0 0 0 20 0 1 0\n", tick(m.selfT)))
}

// A CPU-bound single-thread neighbour on a 2-CPU machine: at 2 workers
// tasks wait (pressure 100 %), at 1 both CPUs are busy and none waits.
// Lowered once, the governor must stay at 1 (no CPU is idle for a second
// worker), not go 2→1→2→1 as when it raised into the neighbour's CPU.
func TestNeighbourSettlesWithoutFlapping(t *testing.T) {
	f := newFake(t)
	m := &cpuModel{f: f}
	m.advance(interval, 0, 0, 0)
	g := newGov(t, f, 2)
	var targets []int
	for range 4 * 120 { // two minutes
		if g.Target() > 1 {
			m.advance(interval, 100, 1.0, 1.0) // two workers share a CPU with the neighbour
		} else {
			m.advance(interval, 0, 1.0, 1.0)
		}
		d := g.Step(f.now)
		targets = append(targets, d.Target)
	}
	changes := 0
	for i := 1; i < len(targets); i++ {
		if targets[i] != targets[i-1] {
			changes++
		}
	}
	if targets[0] != 1 || changes != 0 {
		t.Errorf("targets %v: want lowered to 1 at the first pressure reading and kept there (%d changes)", targets[:12], changes)
	}
	// The neighbour leaves: a CPU goes idle, the governor raises.
	for range 4 * 3 {
		m.advance(interval, 0, 1.0, 0)
		g.Step(f.now)
	}
	if g.Target() != 2 {
		t.Errorf("neighbour gone, a CPU idle for 3 s: target %d; want 2", g.Target())
	}
}

// Pressure that the process makes itself (its workers, collector and other
// goroutines on every CPU; no other process runs) does not lower.
func TestOwnLoadIsNotPressure(t *testing.T) {
	f := newFake(t)
	m := &cpuModel{f: f}
	m.advance(interval, 0, 0, 0)
	g := newGov(t, f, 2)
	var d Decision
	for range 4 * 10 {
		m.advance(interval, 40, 2.0, 0.1)
		if d = g.Step(f.now); d.Changed {
			t.Fatalf("the process's own pressure changed the target: %+v", d)
		}
	}
	if !strings.Contains(d.Reason, "own") {
		t.Errorf("reason %q; want it to say the pressure is the process's own", d.Reason)
	}
}
