//go:build !linux

package bench

import "time"

// cpuSample: other systems do not measure the load of other processes.
type cpuSample struct {
	machine, self time.Duration
	at            time.Time
	ok            bool
}

func sampleCPU() cpuSample { return cpuSample{at: time.Now()} }
