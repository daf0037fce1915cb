//go:build !unix

package clusterdash_test

import "time"

// cpuTime is not measured here (getrusage is Unix-only): it reads 0, so
// the CPU-per-task metrics read 0 too.
func cpuTime() time.Duration { return 0 }
