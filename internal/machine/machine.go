// Package machine reads what Linux tells an unprivileged process about the
// machine it runs on: CPU pressure (PSI), the cgroup's CPU quota, thermal
// zones, RAPL energy, load average, memory, and GPU devices. Every path is
// taken under FS.Root, so tests replace the machine with a fake tree of
// files. It imports only the standard library (the runtime uses it).
//
// A reading that the machine does not offer returns an error that says so
// and why (a missing file, a permission); callers report that error, never
// a zero that would look like a measurement.
package machine

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// FS reads machine state under Root; the zero value reads "/".
type FS struct {
	Root string
}

func (f FS) path(p string) string {
	if f.Root == "" {
		return p
	}
	return filepath.Join(f.Root, p)
}

// read returns the trimmed contents of p, or an error that names the file
// and says plainly why it cannot be read.
func (f FS) read(p string) (string, error) {
	b, err := os.ReadFile(f.path(p))
	if err != nil {
		return "", unavailable(p, err)
	}
	return strings.TrimSpace(string(b)), nil
}

// unavailable turns a read error into the reason a reading is missing.
func unavailable(p string, err error) error {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%s does not exist", p)
	case errors.Is(err, fs.ErrPermission):
		return fmt.Errorf("%s is not readable by this user (permission denied)", p)
	}
	return fmt.Errorf("%s: %v", p, err)
}

// CPUPressure returns the share of the last 10 seconds (0..100) in which
// some runnable task of the machine waited for a CPU: the "some avg10"
// field of /proc/pressure/cpu (Linux 4.20+, CONFIG_PSI).
func (f FS) CPUPressure() (float64, error) {
	v, err := f.cpuPressureField("avg10")
	if err != nil {
		return 0, err
	}
	x, err := strconv.ParseFloat(v, 64)
	if err != nil {
		return 0, fmt.Errorf("/proc/pressure/cpu: avg10=%q: %v", v, err)
	}
	return x, nil
}

// CPUStall returns the total time, since boot, in which some runnable task
// waited for a CPU: the "some total=" field (microseconds) of
// /proc/pressure/cpu. Its growth over an interval, divided by the
// interval, is the share of that interval the machine was oversubscribed.
func (f FS) CPUStall() (time.Duration, error) {
	v, err := f.cpuPressureField("total")
	if err != nil {
		return 0, err
	}
	us, err := strconv.ParseUint(v, 10, 63)
	if err != nil {
		return 0, fmt.Errorf("/proc/pressure/cpu: total=%q: %v", v, err)
	}
	return time.Duration(us) * time.Microsecond, nil
}

// cpuPressureField returns the value of name= on the "some" line of
// /proc/pressure/cpu.
func (f FS) cpuPressureField(name string) (string, error) {
	s, err := f.read("/proc/pressure/cpu")
	if err != nil {
		return "", err
	}
	for line := range strings.SplitSeq(s, "\n") {
		fields := strings.Fields(line)
		if len(fields) == 0 || fields[0] != "some" {
			continue
		}
		for _, kv := range fields[1:] {
			if v, ok := strings.CutPrefix(kv, name+"="); ok {
				return v, nil
			}
		}
	}
	return "", fmt.Errorf("/proc/pressure/cpu: no \"some %s=\" field in %q", name, s)
}

// CPUQuota returns the CPU bandwidth the process's cgroup may use, in CPUs
// (quota/period: 1.5 is one and a half CPUs), and limited = false when the
// cgroup has no quota. It reads cgroup v2's cpu.max, or v1's
// cpu.cfs_quota_us and cpu.cfs_period_us, of the cgroup named in
// /proc/self/cgroup, walking up to the root as a parent's quota also binds.
// The smallest quota on the way wins.
func (f FS) CPUQuota() (cpus float64, limited bool, err error) {
	cg, err := f.read("/proc/self/cgroup")
	if err != nil {
		return 0, false, err
	}
	var v2, v1 string
	v1Found := false
	for line := range strings.SplitSeq(cg, "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		if parts[0] == "0" && parts[1] == "" {
			v2 = parts[2]
		}
		if slices.Contains(strings.Split(parts[1], ","), "cpu") {
			v1, v1Found = parts[2], true
		}
	}
	found := false
	best := 0.0
	consider := func(c float64) {
		if !found || c < best {
			best, found = c, true
		}
	}
	checked := []string{}
	if v1Found {
		for dir := range ancestors(v1) {
			base := "/sys/fs/cgroup/cpu" + dir
			q, err1 := f.read(base + "/cpu.cfs_quota_us")
			per, err2 := f.read(base + "/cpu.cfs_period_us")
			if err1 != nil || err2 != nil {
				continue
			}
			checked = append(checked, base)
			qi, err1 := strconv.ParseInt(q, 10, 64)
			pi, err2 := strconv.ParseInt(per, 10, 64)
			if err1 != nil || err2 != nil || pi <= 0 {
				return 0, false, fmt.Errorf("%s: cpu.cfs_quota_us %q, cpu.cfs_period_us %q: not numbers", base, q, per)
			}
			if qi > 0 {
				consider(float64(qi) / float64(pi))
			}
		}
	} else if v2 != "" {
		for dir := range ancestors(v2) {
			p := "/sys/fs/cgroup" + dir + "/cpu.max"
			s, err := f.read(p)
			if err != nil {
				continue
			}
			checked = append(checked, p)
			fields := strings.Fields(s)
			if len(fields) != 2 {
				return 0, false, fmt.Errorf("%s: %q: want \"QUOTA PERIOD\"", p, s)
			}
			if fields[0] == "max" {
				continue
			}
			q, err1 := strconv.ParseInt(fields[0], 10, 64)
			per, err2 := strconv.ParseInt(fields[1], 10, 64)
			if err1 != nil || err2 != nil || per <= 0 {
				return 0, false, fmt.Errorf("%s: %q: want \"QUOTA PERIOD\" in microseconds", p, s)
			}
			consider(float64(q) / float64(per))
		}
	}
	if len(checked) == 0 {
		return 0, false, fmt.Errorf("no cgroup CPU controller files (cpu.max, cpu.cfs_quota_us) for the cgroup in /proc/self/cgroup")
	}
	return best, found, nil
}

// ancestors yields dir, its parent, ..., "" (the hierarchy's root).
func ancestors(dir string) func(func(string) bool) {
	return func(yield func(string) bool) {
		d := strings.TrimSuffix(dir, "/")
		for {
			if !yield(d) {
				return
			}
			if d == "" {
				return
			}
			i := strings.LastIndex(d, "/")
			if i < 0 {
				d = ""
			} else {
				d = d[:i]
			}
		}
	}
}

// Thermal is the state of the hottest thermal zone.
type Thermal struct {
	Zone string  // e.g. "thermal_zone0 (x86_pkg_temp)"
	Temp float64 // degrees Celsius
	// Trip is the zone's lowest passive, hot or critical trip point in
	// degrees Celsius, where the platform starts to throttle; 0 if the
	// zone declares none.
	Trip float64
}

// Headroom is Trip − Temp in degrees, or +Inf-like 1e9 when no trip point
// is known.
func (t Thermal) Headroom() float64 {
	if t.Trip <= 0 {
		return 1e9
	}
	return t.Trip - t.Temp
}

// Thermal returns the zone of /sys/class/thermal closest to its trip point
// (the hottest, when no zone has one).
func (f FS) Thermal() (Thermal, error) {
	const dir = "/sys/class/thermal"
	zones, err := filepath.Glob(f.path(dir + "/thermal_zone*"))
	if err != nil || len(zones) == 0 {
		if _, err := os.Stat(f.path(dir)); err != nil {
			return Thermal{}, unavailable(dir, err)
		}
		return Thermal{}, fmt.Errorf("%s has no thermal zones", dir)
	}
	var best Thermal
	found := false
	var firstErr error
	for _, z := range zones {
		name := filepath.Base(z)
		rel := dir + "/" + name
		t, err := f.read(rel + "/temp")
		if err != nil {
			firstErr = cmpErr(firstErr, err)
			continue
		}
		mc, err := strconv.ParseInt(t, 10, 64)
		if err != nil {
			firstErr = cmpErr(firstErr, fmt.Errorf("%s/temp: %q is not millidegrees", rel, t))
			continue
		}
		th := Thermal{Zone: name, Temp: float64(mc) / 1000}
		if typ, err := f.read(rel + "/type"); err == nil {
			th.Zone += " (" + typ + ")"
		}
		for i := 0; ; i++ {
			typ, err := f.read(fmt.Sprintf("%s/trip_point_%d_type", rel, i))
			if err != nil {
				break
			}
			if typ != "passive" && typ != "hot" && typ != "critical" {
				continue
			}
			ts, err := f.read(fmt.Sprintf("%s/trip_point_%d_temp", rel, i))
			if err != nil {
				continue
			}
			if v, err := strconv.ParseInt(ts, 10, 64); err == nil && v > 0 {
				if c := float64(v) / 1000; th.Trip == 0 || c < th.Trip {
					th.Trip = c
				}
			}
		}
		if !found || th.Headroom() < best.Headroom() || (th.Trip == 0 && best.Trip == 0 && th.Temp > best.Temp) {
			best, found = th, true
		}
	}
	if !found {
		return Thermal{}, firstErr
	}
	return best, nil
}

func cmpErr(first, err error) error {
	if first != nil {
		return first
	}
	return err
}

// Energy is a reading of the RAPL package domains of /sys/class/powercap.
type Energy struct {
	// Microjoules[i] is domain i's counter; Range[i] where it wraps.
	Microjoules []uint64
	Range       []uint64
	// LimitWatts is the sum of the domains' long-term power limits
	// (constraint_0_power_limit_uw), 0 if none is readable.
	LimitWatts float64
	Domains    []string
}

// Energy reads every top-level RAPL domain (intel-rapl:N, the packages).
// Since Linux 5.10 energy_uj is readable by root only on most
// distributions; the error then says so.
func (f FS) Energy() (Energy, error) {
	const dir = "/sys/class/powercap"
	ds, err := filepath.Glob(f.path(dir + "/intel-rapl:*"))
	if err != nil || len(ds) == 0 {
		if _, err := os.Stat(f.path(dir)); err != nil {
			return Energy{}, unavailable(dir, err)
		}
		return Energy{}, fmt.Errorf("%s has no RAPL domains (intel-rapl:N)", dir)
	}
	var e Energy
	for _, d := range ds {
		name := filepath.Base(d)
		if strings.Count(name, ":") != 1 { // intel-rapl:0:1 is a subdomain of package 0
			continue
		}
		rel := dir + "/" + name
		s, err := f.read(rel + "/energy_uj")
		if err != nil {
			return Energy{}, err
		}
		uj, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			return Energy{}, fmt.Errorf("%s/energy_uj: %q is not microjoules", rel, s)
		}
		rng := uint64(0)
		if r, err := f.read(rel + "/max_energy_range_uj"); err == nil {
			rng, _ = strconv.ParseUint(r, 10, 64)
		}
		if l, err := f.read(rel + "/constraint_0_power_limit_uw"); err == nil {
			if uw, err := strconv.ParseUint(l, 10, 64); err == nil {
				e.LimitWatts += float64(uw) / 1e6
			}
		}
		e.Microjoules = append(e.Microjoules, uj)
		e.Range = append(e.Range, rng)
		e.Domains = append(e.Domains, name)
	}
	if len(e.Microjoules) == 0 {
		return Energy{}, fmt.Errorf("%s has no package domains", dir)
	}
	return e, nil
}

// JoulesSince returns the energy used between an earlier reading and e,
// allowing each counter to wrap once.
func (e Energy) JoulesSince(earlier Energy) float64 {
	var uj float64
	for i := range e.Microjoules {
		if i >= len(earlier.Microjoules) {
			break
		}
		now, then := e.Microjoules[i], earlier.Microjoules[i]
		if now >= then {
			uj += float64(now - then)
		} else if e.Range[i] > then {
			uj += float64(e.Range[i] - then + now)
		}
	}
	return uj / 1e6
}

// Load returns the one-minute load average of /proc/loadavg.
func (f FS) Load() (float64, error) {
	s, err := f.read("/proc/loadavg")
	if err != nil {
		return 0, err
	}
	fields := strings.Fields(s)
	if len(fields) == 0 {
		return 0, fmt.Errorf("/proc/loadavg is empty")
	}
	x, err := strconv.ParseFloat(fields[0], 64)
	if err != nil {
		return 0, fmt.Errorf("/proc/loadavg: %q: %v", fields[0], err)
	}
	return x, nil
}

// Memory returns MemTotal and MemAvailable of /proc/meminfo, in bytes.
func (f FS) Memory() (total, available uint64, err error) {
	s, err := f.read("/proc/meminfo")
	if err != nil {
		return 0, 0, err
	}
	var haveT, haveA bool
	for line := range strings.SplitSeq(s, "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		fields := strings.Fields(v)
		if len(fields) == 0 {
			continue
		}
		n, err := strconv.ParseUint(fields[0], 10, 64)
		if err != nil {
			continue
		}
		if len(fields) > 1 && fields[1] == "kB" {
			n *= 1024
		}
		switch k {
		case "MemTotal":
			total, haveT = n, true
		case "MemAvailable":
			available, haveA = n, true
		}
	}
	if !haveT || !haveA {
		return 0, 0, fmt.Errorf("/proc/meminfo has no MemTotal or MemAvailable line")
	}
	return total, available, nil
}

// GPUs counts the NVIDIA GPUs the driver shows (/proc/driver/nvidia/gpus/*,
// else /dev/nvidiaN) and other render devices (/dev/dri/renderD*). It
// reports 0, 0 when there are none; that is a finding, not an error.
func (f FS) GPUs() (nvidia, render int) {
	if g, _ := filepath.Glob(f.path("/proc/driver/nvidia/gpus/*")); len(g) > 0 {
		nvidia = len(g)
	} else {
		devs, _ := filepath.Glob(f.path("/dev/nvidia*"))
		for _, d := range devs {
			rest := strings.TrimPrefix(filepath.Base(d), "nvidia")
			if _, err := strconv.Atoi(rest); err == nil {
				nvidia++
			}
		}
	}
	r, _ := filepath.Glob(f.path("/dev/dri/renderD*"))
	return nvidia, len(r)
}

// clockTick is USER_HZ, the unit of /proc/stat and /proc/<pid>/stat times:
// 100 on every Linux architecture Go supports.
const clockTick = 10 * time.Millisecond

// CPUTimes returns the machine's cumulative CPU time, all CPUs together,
// spent busy and idle (idle and iowait), from the first line of
// /proc/stat. Differences between two readings give how many CPUs were
// busy and idle over the interval.
func (f FS) CPUTimes() (busy, idle time.Duration, err error) {
	s, err := f.read("/proc/stat")
	if err != nil {
		return 0, 0, err
	}
	line, _, _ := strings.Cut(s, "\n")
	fields := strings.Fields(line)
	if len(fields) < 5 || fields[0] != "cpu" {
		return 0, 0, fmt.Errorf("/proc/stat: first line %q is not the cpu totals", line)
	}
	for i, x := range fields[1:min(len(fields), 9)] { // user nice system idle iowait irq softirq steal
		v, err := strconv.ParseUint(x, 10, 64)
		if err != nil {
			return 0, 0, fmt.Errorf("/proc/stat: cpu field %d %q: %v", i+1, x, err)
		}
		d := time.Duration(v) * clockTick
		if i == 3 || i == 4 {
			idle += d
		} else {
			busy += d
		}
	}
	return busy, idle, nil
}

// SelfCPU returns the CPU time this process has used (user and system),
// from /proc/self/stat.
func (f FS) SelfCPU() (time.Duration, error) {
	s, err := f.read("/proc/self/stat")
	if err != nil {
		return 0, err
	}
	// The command name (field 2) may hold spaces: fields count from its ")".
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, fmt.Errorf("/proc/self/stat: no command name in %q", s)
	}
	fields := strings.Fields(s[i+1:])
	if len(fields) < 13 {
		return 0, fmt.Errorf("/proc/self/stat: %d fields after the command; want utime and stime (fields 14, 15)", len(fields)+2)
	}
	var total time.Duration
	for _, x := range fields[11:13] {
		v, err := strconv.ParseUint(x, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("/proc/self/stat: %q: %v", x, err)
		}
		total += time.Duration(v) * clockTick
	}
	return total, nil
}
