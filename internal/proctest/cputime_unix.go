//go:build unix

package proctest

import (
	"syscall"
	"time"
)

// CPUTime is the CPU time (user + system) this process has used, or -1
// where it cannot be read.
func CPUTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return -1
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
