//go:build windows

package worksteal

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time (user and kernel) the process has used.
func cpuTime() time.Duration {
	h, err := syscall.GetCurrentProcess()
	if err != nil {
		return -1
	}
	var creation, exit, kernel, user syscall.Filetime
	if syscall.GetProcessTimes(h, &creation, &exit, &kernel, &user) != nil {
		return -1
	}
	ticks := func(f syscall.Filetime) int64 { return int64(f.HighDateTime)<<32 | int64(f.LowDateTime) } // 100 ns units
	return time.Duration((ticks(kernel) + ticks(user)) * 100)
}
