//go:build linux

package bench

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// userHZ is the unit of /proc/stat (USER_HZ, 100 on every Linux ABI).
const userHZ = 100

// cpuSample is the machine's busy CPU time and this process's own CPU time
// at one instant.
type cpuSample struct {
	machine time.Duration // all CPUs: user + nice + system + irq + softirq + steal
	self    time.Duration // this process: user + system
	at      time.Time
	ok      bool
}

func sampleCPU() cpuSample {
	s := cpuSample{at: time.Now()}
	f, err := os.Open("/proc/stat")
	if err != nil {
		return s
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	if !sc.Scan() {
		return s
	}
	fields := strings.Fields(sc.Text())
	if len(fields) < 9 || fields[0] != "cpu" {
		return s
	}
	var busy int64
	for _, i := range []int{1, 2, 3, 6, 7, 8} {
		v, err := strconv.ParseInt(fields[i], 10, 64)
		if err != nil {
			return s
		}
		busy += v
	}
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return s
	}
	s.machine = time.Duration(busy) * time.Second / userHZ
	s.self = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	s.ok = true
	return s
}
