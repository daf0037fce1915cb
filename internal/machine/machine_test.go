package machine

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// tree writes files (path → contents) under a temporary root.
func tree(t *testing.T, files map[string]string) FS {
	t.Helper()
	root := t.TempDir()
	for p, s := range files {
		full := filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return FS{Root: root}
}

func TestCPUPressure(t *testing.T) {
	f := tree(t, map[string]string{"/proc/pressure/cpu": "some avg10=12.61 avg60=8.16 avg300=3.55 total=13451270\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=0\n"})
	got, err := f.CPUPressure()
	if err != nil || got != 12.61 {
		t.Fatalf("CPUPressure() = %v, %v; want 12.61", got, err)
	}
	if st, err := f.CPUStall(); err != nil || st != 13451270*time.Microsecond {
		t.Fatalf("CPUStall() = %v, %v; want 13.45127s", st, err)
	}
	_, err = FS{Root: t.TempDir()}.CPUPressure()
	if err == nil || !strings.Contains(err.Error(), "/proc/pressure/cpu does not exist") {
		t.Fatalf("CPUPressure() without the file: err = %v; want it to name the missing file", err)
	}
}

func TestCPUQuota(t *testing.T) {
	cases := []struct {
		name    string
		files   map[string]string
		cpus    float64
		limited bool
		errHas  string
	}{
		{"v2 quota", map[string]string{
			"/proc/self/cgroup":                "0::/box\n",
			"/sys/fs/cgroup/box/cpu.max":       "150000 100000\n",
			"/sys/fs/cgroup/cpu.max":           "max 100000\n",
			"/sys/fs/cgroup/box/memory.max":    "max\n",
			"/sys/fs/cgroup/other/cpu.max":     "10000 100000\n",
			"/sys/fs/cgroup/box/cpu.max.burst": "0\n",
		}, 1.5, true, ""},
		{"v2 parent binds", map[string]string{
			"/proc/self/cgroup":          "0::/a/b\n",
			"/sys/fs/cgroup/a/b/cpu.max": "max 100000\n",
			"/sys/fs/cgroup/a/cpu.max":   "50000 100000\n",
		}, 0.5, true, ""},
		{"v2 unlimited", map[string]string{
			"/proc/self/cgroup":          "0::/box\n",
			"/sys/fs/cgroup/box/cpu.max": "max 100000\n",
		}, 0, false, ""},
		{"v1 as on the dev box", map[string]string{
			"/proc/self/cgroup":                    "4:memory:/x\n1:cpu:/\n0::/\n",
			"/sys/fs/cgroup/cpu/cpu.cfs_quota_us":  "-1\n",
			"/sys/fs/cgroup/cpu/cpu.cfs_period_us": "100000\n",
		}, 0, false, ""},
		{"v1 quota", map[string]string{
			"/proc/self/cgroup":                        "3:cpu,cpuacct:/job\n",
			"/sys/fs/cgroup/cpu/job/cpu.cfs_quota_us":  "200000\n",
			"/sys/fs/cgroup/cpu/job/cpu.cfs_period_us": "100000\n",
		}, 2, true, ""},
		{"no controller", map[string]string{"/proc/self/cgroup": "0::/\n"}, 0, false, "no cgroup CPU controller"},
		{"garbage", map[string]string{
			"/proc/self/cgroup":      "0::/\n",
			"/sys/fs/cgroup/cpu.max": "lots\n",
		}, 0, false, "want \"QUOTA PERIOD\""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cpus, limited, err := tree(t, tc.files).CPUQuota()
			if tc.errHas != "" {
				if err == nil || !strings.Contains(err.Error(), tc.errHas) {
					t.Fatalf("CPUQuota() err = %v; want one containing %q", err, tc.errHas)
				}
				return
			}
			if err != nil || cpus != tc.cpus || limited != tc.limited {
				t.Fatalf("CPUQuota() = %v, %v, %v; want %v, %v", cpus, limited, err, tc.cpus, tc.limited)
			}
		})
	}
}

func TestThermalReadsTheHottestZonesPassiveTrip(t *testing.T) {
	f := tree(t, map[string]string{
		"/sys/class/thermal/thermal_zone0/temp":              "45000\n",
		"/sys/class/thermal/thermal_zone0/type":              "acpitz\n",
		"/sys/class/thermal/thermal_zone0/trip_point_0_type": "critical\n",
		"/sys/class/thermal/thermal_zone0/trip_point_0_temp": "105000\n",
		"/sys/class/thermal/thermal_zone1/temp":              "88000\n",
		"/sys/class/thermal/thermal_zone1/type":              "x86_pkg_temp\n",
		"/sys/class/thermal/thermal_zone1/trip_point_0_type": "active\n",
		"/sys/class/thermal/thermal_zone1/trip_point_0_temp": "60000\n",
		"/sys/class/thermal/thermal_zone1/trip_point_1_type": "passive\n",
		"/sys/class/thermal/thermal_zone1/trip_point_1_temp": "95000\n",
	})
	th, err := f.Thermal()
	if err != nil {
		t.Fatal(err)
	}
	if th.Zone != "thermal_zone1 (x86_pkg_temp)" || th.Temp != 88 || th.Trip != 95 || th.Headroom() != 7 {
		t.Fatalf("Thermal() = %+v (headroom %v); want zone 1 at 88 °C, trip 95 (the active trip at 60 is a fan, not a throttle)", th, th.Headroom())
	}
	if _, err := (FS{Root: t.TempDir()}).Thermal(); err == nil || !strings.Contains(err.Error(), "/sys/class/thermal does not exist") {
		t.Fatalf("Thermal() without the directory: %v", err)
	}
}

func TestEnergy(t *testing.T) {
	f := tree(t, map[string]string{
		"/sys/class/powercap/intel-rapl:0/energy_uj":                   "1000000\n",
		"/sys/class/powercap/intel-rapl:0/max_energy_range_uj":         "262143328850\n",
		"/sys/class/powercap/intel-rapl:0/constraint_0_power_limit_uw": "65000000\n",
		"/sys/class/powercap/intel-rapl:0:0/energy_uj":                 "5\n", // a subdomain: not summed
	})
	e, err := f.Energy()
	if err != nil {
		t.Fatal(err)
	}
	if len(e.Microjoules) != 1 || e.LimitWatts != 65 {
		t.Fatalf("Energy() = %+v; want one package domain, limit 65 W", e)
	}
	later := Energy{Microjoules: []uint64{3500000}, Range: e.Range}
	if j := later.JoulesSince(e); j != 2.5 {
		t.Fatalf("JoulesSince = %v; want 2.5", j)
	}
	wrapped := Energy{Microjoules: []uint64{500000}, Range: []uint64{2000000}}
	if j := wrapped.JoulesSince(Energy{Microjoules: []uint64{1500000}}); math.Abs(j-1) > 1e-9 {
		t.Fatalf("JoulesSince across a wrap = %v; want 1", j)
	}
	if _, err := (FS{Root: t.TempDir()}).Energy(); err == nil || !strings.Contains(err.Error(), "/sys/class/powercap does not exist") {
		t.Fatalf("Energy() without powercap: %v", err)
	}
	if os.Geteuid() != 0 {
		locked := tree(t, map[string]string{"/sys/class/powercap/intel-rapl:0/energy_uj": "1\n"})
		if err := os.Chmod(filepath.Join(locked.Root, "/sys/class/powercap/intel-rapl:0/energy_uj"), 0o400&^0o444); err != nil {
			t.Fatal(err)
		}
		if _, err := locked.Energy(); err == nil || !strings.Contains(err.Error(), "permission denied") {
			t.Fatalf("Energy() on a root-only energy_uj: %v; want it to say permission denied", err)
		}
	}
}

func TestLoadMemoryGPUs(t *testing.T) {
	f := tree(t, map[string]string{
		"/proc/loadavg":       "3.43 0.94 0.32 10/138 10315\n",
		"/proc/meminfo":       "MemTotal:       24684092 kB\nMemFree:        22383708 kB\nMemAvailable:   23697840 kB\n",
		"/dev/nvidia0":        "",
		"/dev/nvidia1":        "",
		"/dev/nvidiactl":      "",
		"/dev/dri/renderD128": "",
	})
	if l, err := f.Load(); err != nil || l != 3.43 {
		t.Fatalf("Load() = %v, %v", l, err)
	}
	tot, avail, err := f.Memory()
	if err != nil || tot != 24684092*1024 || avail != 23697840*1024 {
		t.Fatalf("Memory() = %v, %v, %v", tot, avail, err)
	}
	if n, r := f.GPUs(); n != 2 || r != 1 {
		t.Fatalf("GPUs() = %d, %d; want 2 NVIDIA (nvidiactl is not one), 1 render node", n, r)
	}
	if n, r := (FS{Root: t.TempDir()}).GPUs(); n != 0 || r != 0 {
		t.Fatalf("GPUs() on an empty tree = %d, %d", n, r)
	}
}

// TestThisMachine reads the real machine: every reading either works or
// says why not (the dev box has PSI and a v1 cgroup, no thermal zones and
// no powercap).
func TestThisMachine(t *testing.T) {
	var f FS
	if p, err := f.CPUPressure(); err != nil {
		t.Logf("CPU pressure: unavailable: %v", err)
	} else {
		t.Logf("CPU pressure: %.2f %%", p)
	}
	if c, lim, err := f.CPUQuota(); err != nil {
		t.Logf("CPU quota: unavailable: %v", err)
	} else {
		t.Logf("CPU quota: %v CPUs (limited %v)", c, lim)
	}
	if th, err := f.Thermal(); err != nil {
		t.Logf("thermal: unavailable: %v", err)
	} else {
		t.Logf("thermal: %+v", th)
	}
	if e, err := f.Energy(); err != nil {
		t.Logf("energy: unavailable: %v", err)
	} else {
		t.Logf("energy: %+v", e)
	}
}

func TestCPUTimesAndSelfCPU(t *testing.T) {
	f := tree(t, map[string]string{
		"/proc/stat":      "cpu  100 5 20 300 10 1 2 3 0 0\ncpu0 50 2 10 150 5 0 1 1 0 0\n",
		"/proc/self/stat": "77 (a (b) c) R 1 77 77 0 -1 4194304 0 0 0 0 40 12 0 0 20 0 3 0 123\n",
	})
	busy, idle, err := f.CPUTimes()
	if err != nil || busy != 1310*time.Millisecond || idle != 3100*time.Millisecond {
		t.Errorf("CPUTimes = %v, %v, %v; want 1.31s busy (user nice system irq softirq steal), 3.1s idle (idle iowait)", busy, idle, err)
	}
	self, err := f.SelfCPU()
	if err != nil || self != 520*time.Millisecond {
		t.Errorf("SelfCPU = %v, %v; want 520ms (utime 40 + stime 12 ticks)", self, err)
	}
	if _, _, err := (FS{Root: t.TempDir()}).CPUTimes(); err == nil || !strings.Contains(err.Error(), "/proc/stat") {
		t.Errorf("CPUTimes on an empty tree: %v; want an error naming /proc/stat", err)
	}
}
