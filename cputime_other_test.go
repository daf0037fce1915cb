//go:build !unix && !windows

package worksteal

import "time"

// cpuTime is not available here: BenchmarkIdleCPU skips.
func cpuTime() time.Duration { return -1 }
