//go:build windows

package proctest

import (
	"syscall"
	"time"
)

// CPUTime is the CPU time (user and kernel) this process has used, or -1
// where it cannot be read.
func CPUTime() time.Duration {
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
