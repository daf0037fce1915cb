package runcmd

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"

	"github.com/spf13/pflag"
)

// cpuCounts is the machine as GNU parallel 20221122 counts it for
// --number-of-sockets, --number-of-cores (and --number-of-cpus, its old
// name) and --number-of-threads.
type cpuCounts struct{ sockets, cores, threads int }

// gnuCPUFlags are the questions, in the order GNU parallel answers them
// (the first given wins), with the count each prints.
var gnuCPUFlags = []struct {
	names []string
	count func(cpuCounts) int
}{
	{[]string{"number-of-sockets", "numberofsockets"}, func(c cpuCounts) int { return c.sockets }},
	{[]string{"number-of-cpus", "numberofcpus"}, func(c cpuCounts) int { return c.cores }},
	{[]string{"number-of-cores", "numberofcores"}, func(c cpuCounts) int { return c.cores }},
	{[]string{"number-of-threads", "numberofthreads"}, func(c cpuCounts) int { return c.threads }},
}

func addCPUFlags(f *pflag.FlagSet) {
	usage := map[string]string{
		"number-of-sockets": "print the number of CPU sockets and exit",
		"number-of-cpus":    "print the number of physical CPU cores and exit (GNU parallel's old name of --number-of-cores)",
		"number-of-cores":   "print the number of physical CPU cores and exit",
		"number-of-threads": "print the number of CPU threads (hyperthreaded cores) and exit",
	}
	for _, q := range gnuCPUFlags {
		f.Bool(q.names[0], false, usage[q.names[0]])
		gnuAlias(f, q.names[0], q.names[1:]...)
	}
	addCPUUnitFlags(f)
	f.Bool("max-line-length-allowed", false, "print the longest command line this machine runs, as GNU parallel finds it, and exit")
	gnuAlias(f, "max-line-length-allowed", "maxlinelengthallowed")
	addShowLimitsFlag(f) // run_showlimits.go
	addMemSuspendFlag(f) // run_memsuspend.go
}

// answerCPUQuestion prints the count the first --number-of-* flag given
// asks for; done is false when none was given.
func answerCPUQuestion(f *pflag.FlagSet, w io.Writer) (done bool, err error) {
	for _, q := range gnuCPUFlags {
		if _, ok := gnuChanged(f, q.names[0]); ok {
			_, err := fmt.Fprintln(w, q.count(machineCPUs()))
			return true, err
		}
	}
	return false, nil
}

// machineCPUs counts as GNU parallel does on Linux: $PARALLEL_CPUINFO (a
// /proc/cpuinfo text, GNU's testing hook) if set; else the sysfs topology
// (sockets: distinct physical_package_id; cores: distinct
// thread_siblings; threads: the CPUs), else /proc/cpuinfo; each count then
// at most the CPUs this process may run on (taskset), except under
// $PARALLEL_CPUINFO.
func machineCPUs() cpuCounts {
	if info := os.Getenv("PARALLEL_CPUINFO"); info != "" {
		return finishCPUs(readCPUInfo(strings.NewReader(info)), 0)
	}
	c, ok := readTopology("/sys/devices/system/cpu")
	if !ok {
		if fh, err := os.Open("/proc/cpuinfo"); err == nil {
			c = readCPUInfo(fh)
			fh.Close()
		}
	}
	// runtime.NumCPU is the CPUs of this process's affinity mask, as GNU's
	// Cpus_allowed.
	return finishCPUs(c, runtime.NumCPU())
}

func finishCPUs(c cpuCounts, active int) cpuCounts {
	if c.threads == 0 && c.cores == 0 {
		n := runtime.NumCPU()
		c = cpuCounts{n, n, n}
	}
	if c.sockets == 0 {
		c.sockets = 1
	}
	if c.threads == 0 {
		c.threads = c.cores
	}
	if active == 0 {
		active = c.threads
	}
	return cpuCounts{min(c.sockets, active), min(c.cores, active), min(c.threads, active)}
}

func readTopology(prefix string) (cpuCounts, bool) {
	sockets, siblings := map[string]bool{}, map[string]bool{}
	n := 0
	for ; ; n++ {
		dir := prefix + "/cpu" + strconv.Itoa(n) + "/topology/"
		pkg, err1 := os.ReadFile(dir + "physical_package_id")
		sib, err2 := os.ReadFile(dir + "thread_siblings")
		if err1 != nil || err2 != nil {
			break
		}
		sockets[string(pkg)] = true
		siblings[string(sib)] = true
	}
	return cpuCounts{len(sockets), len(siblings), n}, n > 0
}

// readCPUInfo reads /proc/cpuinfo's text as GNU parallel's read_cpuinfo:
// a socket per distinct "physical id", a core per distinct (physical id,
// core id), a thread per "processor".
func readCPUInfo(r io.Reader) cpuCounts {
	var c cpuCounts
	phys, cores := map[string]bool{}, map[[2]string]bool{}
	physID := ""
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := sc.Text()
		key, val, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		switch {
		case strings.HasPrefix(key, "physical id"):
			physID = val
			if !phys[val] {
				phys[val] = true
				c.sockets++
			}
		case strings.HasPrefix(key, "core id"):
			if !cores[[2]string{physID, val}] {
				cores[[2]string{physID, val}] = true
				c.cores++
			}
		case strings.HasPrefix(strings.ToLower(key), "processor"):
			if v := strings.TrimLeft(val, " \t"); v != "" && v[0] >= '0' && v[0] <= '9' {
				c.threads++
			}
		}
	}
	if c.cores == 0 {
		c.cores = c.threads
	}
	return c
}

// gnuCPUUnits are GNU parallel's --use-*-instead-of-* options: what -j's
// CPUs (-j 100%, -j N%, -j +N, -j -N, the default) count on this machine.
// Sockets win over cores (GNU's ncpus); --use-cpus-instead-of-cores
// changes only a remote host's count in GNU, so here the threads.
var gnuCPUUnits = []struct {
	names []string
	usage string
	count func(cpuCounts) int
}{
	{[]string{"use-sockets-instead-of-threads", "usesocketsinsteadofthreads"}, "-j's CPUs are the CPU sockets", func(c cpuCounts) int { return c.sockets }},
	{[]string{"use-cores-instead-of-threads", "usecoresinsteadofthreads"}, "-j's CPUs are the physical cores", func(c cpuCounts) int { return c.cores }},
	{[]string{"use-cpus-instead-of-cores", "usecpusinsteadofcores"}, "accepted: GNU parallel counts a remote host's sockets with it, this machine's threads", func(c cpuCounts) int { return c.threads }},
}

func addCPUUnitFlags(f *pflag.FlagSet) {
	for _, u := range gnuCPUUnits {
		f.Bool(u.names[0], false, u.usage)
		gnuAlias(f, u.names[0], u.names[1:]...)
	}
}

// jobCPUs is what -j's CPUs count: the first --use-*-instead-of-* given,
// else the threads (as --number-of-threads, $PARALLEL_CPUINFO included).
func jobCPUs(f *pflag.FlagSet) int {
	c := machineCPUs()
	for _, u := range gnuCPUUnits {
		if _, ok := gnuChanged(f, u.names[0]); ok {
			return max(1, u.count(c))
		}
	}
	return max(1, c.threads)
}

// answerMaxLineLength prints, for --max-line-length-allowed, the longest
// command line this machine runs, found as GNU parallel 20221122 finds it
// (find_max): echo run with one argument of ever more bytes, 16 times
// more each try from 324, then halving the bounds until they are within
// 1 %; done is false when the flag was not given.
func answerMaxLineLength(f *pflag.FlagSet, w io.Writer) (done bool, err error) {
	if _, ok := gnuChanged(f, "max-line-length-allowed"); !ok {
		return false, nil
	}
	n, err := findMaxLineLength()
	if err != nil {
		return true, fmt.Errorf("--max-line-length-allowed: %v", err)
	}
	_, err = fmt.Fprintln(w, n)
	return true, err
}

// findMaxLineLength is GNU parallel's find_max: the longest command line
// this machine runs (--max-line-length-allowed, --show-limits).
func findMaxLineLength() (int, error) {
	echo, err := exec.LookPath("echo")
	if err != nil {
		return 0, err
	}
	// GNU runs each try with only these of the environment (qqx).
	var env []string
	for _, k := range []string{"PATH", "SSH_AUTH_SOCK", "SSH_AGENT_PID", "KRB5CCNAME", "LC_CTYPE", "HOME", "LOGNAME", "SSHPASS"} {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	fits := func(n int) bool {
		cmd := exec.Command(echo, strings.Repeat("c", max(0, n-1-len(echo))))
		cmd.Env = env
		return cmd.Run() == nil
	}
	n := 324
	for n <= 100_000_000 && fits(n*16) {
		n *= 16
	}
	if n > 100_000_000 {
		return n, nil
	}
	lo, hi := n, n*16
	for lo != hi && lo != hi-1 && float64(lo)/float64(hi) <= 0.99 {
		mid := lo + (hi-lo)/2
		if fits(mid) {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo, nil
}
