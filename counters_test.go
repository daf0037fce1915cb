package worksteal

import (
	"runtime"
	"strings"
	"testing"
)

// checkCounts: each count was either read (and, for page faults, shows
// the work done) or is named unavailable with a reason; never both.
func checkCounts(t *testing.T, what string, c *Counters, minFaults uint64) {
	t.Helper()
	if c == nil {
		t.Fatalf("%s: Counters = nil with Config.Counters set", what)
	}
	for name, why := range c.Unavailable {
		if strings.TrimSpace(why) == "" {
			t.Errorf("%s: %s unavailable without a reason", what, name)
		}
	}
	if c.Has("memory-bandwidth") {
		t.Errorf("%s: memory bandwidth claims to be counted; it never is per process", what)
	}
	if runtime.GOOS != "linux" {
		if c.Has("instructions") || c.Has("page-faults") {
			t.Errorf("%s: counts read off Linux: %v", what, c)
		}
		return
	}
	if !c.Has("page-faults") {
		t.Fatalf("%s: page faults unavailable on Linux: %s", what, c.Unavailable["page-faults"])
	}
	if c.PageFaults < minFaults {
		t.Errorf("%s: %d page faults; want at least %d (the tasks touched fresh memory)", what, c.PageFaults, minFaults)
	}
	for _, hw := range []string{"instructions", "cycles"} {
		if c.Has(hw) {
			if v := map[string]uint64{"instructions": c.Instructions, "cycles": c.Cycles}[hw]; v == 0 {
				t.Errorf("%s: %s read as 0 after running tasks", what, hw)
			}
		} else if why := c.Unavailable[hw]; !strings.Contains(why, "PMU") && !strings.Contains(why, "paranoid") && !strings.Contains(why, "perf_event_open") {
			t.Errorf("%s: %s unavailable for an unclear reason: %q", what, hw, why)
		}
	}
	t.Logf("%s: %v", what, c)
}

func TestStatsCountersPerRun(t *testing.T) {
	p, err := New(Config{Workers: 2, Counters: true})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	before := p.Stats()
	const tasks, mib = 8, 4
	if _, err := Run(p, func(w *Worker) int {
		sum := 0
		for range tasks / 2 {
			a, b := Join(w, func(*Worker) int { return touchMiB(mib) }, func(*Worker) int { return touchMiB(mib) })
			sum += a + b
		}
		return sum
	}); err != nil {
		t.Fatal(err)
	}
	d := p.Stats().Sub(before)
	checkCounts(t, "Stats.Counters", d.Counters, tasks*mib<<20/4096/2)
	if reasons := d.Counters.Reasons(); reasons != "" {
		t.Logf("reasons:\n%s", reasons)
	}
	for i, w := range d.Workers {
		if w.Counters != nil {
			t.Errorf("worker %d has counters without Config.Pin: an unpinned worker's thread changes", i)
		}
	}
}

func TestStatsCountersPerWorker(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("Config.Pin is Linux only")
	}
	p, err := New(Config{Workers: 2, Counters: true, Pin: true})
	if err != nil {
		t.Fatal(err)
	}
	const tasks, mib = 8, 4
	for range tasks {
		if err := p.Submit(func(*Worker) { touchMiB(mib) }); err != nil {
			t.Fatal(err)
		}
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	s := p.Stats() // after Close: the final counts
	var sum uint64
	for i, w := range s.Workers {
		if i >= 2 {
			break
		}
		if w.Counters == nil {
			t.Fatalf("worker %d: no counters with Config.Pin", i)
		}
		if w.Counters.Has("energy") {
			t.Errorf("worker %d claims an energy count; RAPL measures the machine", i)
		}
		checkCounts(t, "worker", w.Counters, 0)
		sum += w.Counters.PageFaults
	}
	if want := uint64(tasks * mib << 20 / 4096 / 2); sum < want {
		t.Errorf("the workers' page faults add up to %d; the tasks touched %d pages", sum, want*2)
	}
	if total := s.Total().Counters; total == nil || total.PageFaults != sum {
		t.Errorf("Total().Counters = %v; want the workers' sum, %d page faults", total, sum)
	}
	if s.Counters.PageFaults < sum {
		t.Errorf("the process counted %d page faults, fewer than its workers (%d)", s.Counters.PageFaults, sum)
	}
}

func TestStatsWithoutCounters(t *testing.T) {
	p, err := New(Config{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if c := p.Stats().Counters; c != nil {
		t.Fatalf("Stats.Counters = %v without Config.Counters", c)
	}
}

func TestCountersStringSaysNA(t *testing.T) {
	c := Counters{PageFaults: 7, Joules: 0, Unavailable: map[string]string{
		"instructions": "no PMU", "cycles": "no PMU", "energy": "/sys/class/powercap does not exist"}}
	s := c.String()
	for _, want := range []string{"instructions=n/a", "cycles=n/a", "energy=n/a", "page-faults=7", "cache-misses=0"} {
		if !strings.Contains(s, want) {
			t.Errorf("String() = %q; want it to contain %q", s, want)
		}
	}
	if _, ok := c.IPC(); ok {
		t.Errorf("IPC computed from unavailable counts")
	}
	r := c.Reasons()
	if strings.Count(r, "no PMU") != 1 || !strings.Contains(r, "cycles, instructions: unavailable: no PMU") {
		t.Errorf("Reasons() = %q; want one line naming both counts that lack a PMU", r)
	}
}

func TestCountersMath(t *testing.T) {
	why := map[string]string{"instructions": "no PMU"}
	c := func(k uint64) *Counters {
		return &Counters{Cycles: k, CacheReferences: 2 * k, CacheMisses: k / 2, PageFaults: 3 * k, Joules: float64(k), Unavailable: why}
	}
	s := Stats{Workers: []WorkerStats{{Counters: c(10)}, {}, {Counters: c(100)}}, Counters: c(1000)}
	tot := s.Total().Counters
	if tot == nil || tot.Cycles != 110 || tot.PageFaults != 330 || tot.Has("instructions") {
		t.Fatalf("Total().Counters = %+v; want the two counted workers summed, instructions still unavailable", tot)
	}
	if r, ok := tot.CacheMissRate(); !ok || r != 0.25 {
		t.Errorf("CacheMissRate = %v, %v; want 0.25", r, ok)
	}
	earlier := Stats{Workers: []WorkerStats{{Counters: c(4)}, {}, {Counters: c(40)}}, Counters: c(400)}
	d := s.Sub(earlier)
	if d.Counters.Cycles != 600 || d.Workers[0].Counters.Cycles != 6 || d.Workers[2].Counters.PageFaults != 180 || d.Workers[1].Counters != nil {
		t.Errorf("Sub = %+v / %+v; want the counts between the snapshots", d.Counters, d.Workers)
	}
	if s.Counters.Cycles != 1000 {
		t.Errorf("Sub modified its receiver")
	}
}
