//go:build !unix

package worksteal

import "time"

// processCPU cannot read the process's CPU time on this system: the stall
// monitor then assumes every P was busy (see monitor.cpuShare).
func processCPU() (time.Duration, bool) { return 0, false }
