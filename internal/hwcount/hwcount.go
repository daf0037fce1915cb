// Package hwcount counts hardware and kernel events of threads through
// Linux's perf_event_open(2): instructions, cycles, cache references and
// misses, last-level-cache read misses, and the kernel's context switches
// and page faults. It imports only the standard library (the runtime's
// Stats use it) and makes the system call through package syscall.
//
// Counting is per thread and user-space only (exclude_kernel, exclude_hv),
// which is what a process may do of itself under perf_event_paranoid = 2,
// the common default. An event that cannot be counted — a VM without a
// PMU, a paranoid setting of 3, a non-Linux system — is reported once with
// the kernel's reason; its value is never a zero that looks like a count.
//
// Memory bandwidth is not counted: it lives in the uncore memory
// controller's PMU (uncore_imc), which counts the whole socket and may be
// opened only system-wide (perf_event_paranoid ≤ 0 or CAP_PERFMON);
// MemoryBandwidthReason says why it is missing on this machine.
package hwcount

import "fmt"

// Event is one countable event.
type Event int

const (
	Instructions    Event = iota // retired instructions
	Cycles                       // CPU cycles
	CacheRefs                    // cache references (usually the last-level cache)
	CacheMisses                  // cache misses (usually the last-level cache)
	LLCMisses                    // last-level cache read misses
	ContextSwitches              // the kernel's context switches of the thread
	PageFaults                   // page faults
	NumEvents
)

var names = [NumEvents]string{"instructions", "cycles", "cache-references", "cache-misses", "LLC-load-misses", "context-switches", "page-faults"}

func (e Event) String() string {
	if e >= 0 && e < NumEvents {
		return names[e]
	}
	return fmt.Sprintf("Event(%d)", int(e))
}

// Values are counts of each event; a value is meaningful only when its
// event is not in the Set's Unavailable list.
type Values [NumEvents]uint64

// Add adds o to v.
func (v *Values) Add(o Values) {
	for i := range v {
		v[i] += o[i]
	}
}

// Sub returns v − o, event by event (0 where o is larger).
func (v Values) Sub(o Values) Values {
	var r Values
	for i := range v {
		if v[i] > o[i] {
			r[i] = v[i] - o[i]
		}
	}
	return r
}
