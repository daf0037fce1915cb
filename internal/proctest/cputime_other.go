//go:build !unix && !windows

package proctest

import "time"

// CPUTime cannot be read here: it is -1 (the benchmarks that need it skip,
// or report CPU per task as 0).
func CPUTime() time.Duration { return -1 }
