//go:build !linux

package hwcount

import (
	"errors"
	"runtime"
)

var errUnsupported = errors.New("hardware counters are read with perf_event_open, which " + runtime.GOOS + " does not have")

// Set is the open counters of one thread; on this system none can be opened.
type Set struct{}

// Open reports that counting is unavailable on this system.
func Open(tid int) (*Set, map[Event]string, error) { return nil, all(), errUnsupported }

// Read returns nothing.
func (s *Set) Read() Values { return Values{} }

// Close does nothing.
func (s *Set) Close() {}

// Process counts nothing on this system.
type Process struct{}

// OpenProcess reports that counting is unavailable on this system.
func OpenProcess() (*Process, map[Event]string, error) { return nil, all(), errUnsupported }

// Read returns nothing.
func (p *Process) Read() Values { return Values{} }

// Close does nothing.
func (p *Process) Close() {}

// Gettid returns 0: threads are not counted here.
func Gettid() int { return 0 }

// MemoryBandwidthReason says why memory bandwidth is not counted here.
func MemoryBandwidthReason() string { return errUnsupported.Error() }

func all() map[Event]string {
	m := map[Event]string{}
	for e := range NumEvents {
		m[e] = errUnsupported.Error()
	}
	return m
}
