//go:build linux

package hwcount

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"unsafe"
)

// attr is struct perf_event_attr up to PERF_ATTR_SIZE_VER5 (112 bytes,
// Linux 4.1+); the fields this package sets are named, the rest stay zero.
type attr struct {
	typ        uint32
	size       uint32
	config     uint64
	period     uint64
	sampleType uint64
	readFormat uint64
	flags      uint64
	wakeup     uint32
	bpType     uint32
	config1    uint64
	config2    uint64
	branch     uint64
	regsUser   uint64
	stackUser  uint32
	clockID    int32
	regsIntr   uint64
	auxWater   uint32
	maxStack   uint16
	reserved   uint16
}

const (
	typeHardware = 0
	typeSoftware = 1
	typeHWCache  = 3

	hwCycles       = 0
	hwInstructions = 1
	hwCacheRefs    = 2
	hwCacheMisses  = 3
	// LL cache (2), read (0 << 8), miss (1 << 16).
	hwCacheLLReadMiss = 2 | 0<<8 | 1<<16

	swContextSwitches = 3
	swPageFaults      = 2

	flagInherit       = 1 << 1
	flagExcludeKernel = 1 << 5
	flagExcludeHV     = 1 << 6

	readTimeEnabled = 1 << 0
	readTimeRunning = 1 << 1

	perfFlagFDCloexec = 1 << 3
)

var events = [NumEvents]struct {
	typ    uint32
	config uint64
}{
	Instructions:    {typeHardware, hwInstructions},
	Cycles:          {typeHardware, hwCycles},
	CacheRefs:       {typeHardware, hwCacheRefs},
	CacheMisses:     {typeHardware, hwCacheMisses},
	LLCMisses:       {typeHWCache, hwCacheLLReadMiss},
	ContextSwitches: {typeSoftware, swContextSwitches},
	PageFaults:      {typeSoftware, swPageFaults},
}

// Set is the open counters of one thread. Read may be called from any
// goroutine, concurrently with other Reads; Close once, after the last Read.
type Set struct {
	fds [NumEvents]int // -1 where unavailable
}

// Open starts counting the events of thread tid (0: the calling thread).
// Events the kernel refuses are left out and named, with the reason, in
// the returned map (nil when all opened); the error is non-nil only when
// no event at all could be opened.
func Open(tid int) (*Set, map[Event]string, error) { return open(tid, false) }

// open opens every event for thread tid; with inherit, the threads that
// tid creates later are counted too (the kernel adds their counts to the
// reading of tid's counters).
func open(tid int, inherit bool) (*Set, map[Event]string, error) {
	s := &Set{}
	var missing map[Event]string
	opened := 0
	for e := range NumEvents {
		s.fds[e] = -1
		fd, err := openEvent(events[e].typ, events[e].config, tid, inherit)
		if err != nil {
			if missing == nil {
				missing = map[Event]string{}
			}
			missing[e] = reason(err)
			continue
		}
		s.fds[e] = fd
		opened++
	}
	if opened == 0 {
		return nil, missing, fmt.Errorf("perf_event_open: no event could be opened (instructions: %s)", missing[Instructions])
	}
	return s, missing, nil
}

func openEvent(typ uint32, config uint64, tid int, inherit bool) (int, error) {
	a := attr{
		typ:        typ,
		size:       uint32(unsafe.Sizeof(attr{})),
		config:     config,
		readFormat: readTimeEnabled | readTimeRunning,
	}
	if typ != typeSoftware {
		// User-space only: what paranoid 2 permits. The kernel's own
		// software events (a context switch happens in the kernel) are
		// counted whole, which paranoid 2 also permits.
		a.flags = flagExcludeKernel | flagExcludeHV
	}
	if inherit {
		a.flags |= flagInherit
	}
	fd, _, errno := syscall.Syscall6(syscall.SYS_PERF_EVENT_OPEN, uintptr(unsafe.Pointer(&a)),
		uintptr(tid), ^uintptr(0) /* cpu -1: any */, ^uintptr(0) /* no group */, perfFlagFDCloexec, 0)
	if errno != 0 {
		return -1, errno
	}
	return int(fd), nil
}

// reason says in words why the kernel refused an event.
func reason(err error) string {
	switch {
	case errors.Is(err, syscall.ENOENT), errors.Is(err, syscall.EOPNOTSUPP), errors.Is(err, syscall.ENODEV):
		return "the kernel offers no such counter here (no hardware PMU, as in most VMs): " + err.Error()
	case errors.Is(err, syscall.EACCES), errors.Is(err, syscall.EPERM):
		return fmt.Sprintf("not permitted (kernel.perf_event_paranoid = %s; a process may count itself at 2 or less): %v", paranoid(), err)
	case errors.Is(err, syscall.ENOSYS):
		return "this kernel has no perf_event_open: " + err.Error()
	}
	return "perf_event_open: " + err.Error()
}

func paranoid() string {
	b, err := os.ReadFile("/proc/sys/kernel/perf_event_paranoid")
	if err != nil {
		return "unknown"
	}
	return strings.TrimSpace(string(b))
}

// Read returns the counts so far, each scaled by enabled/running time when
// the kernel multiplexed the counter with others.
func (s *Set) Read() Values {
	var v Values
	var buf [24]byte
	for e, fd := range s.fds {
		if fd < 0 {
			continue
		}
		n, err := syscall.Read(fd, buf[:])
		if err != nil || n != len(buf) {
			continue
		}
		val := binary.NativeEndian.Uint64(buf[0:])
		enabled := binary.NativeEndian.Uint64(buf[8:])
		running := binary.NativeEndian.Uint64(buf[16:])
		if running > 0 && running < enabled {
			val = uint64(float64(val) * float64(enabled) / float64(running))
		}
		v[e] = val
	}
	return v
}

// Close releases the counters.
func (s *Set) Close() {
	for i, fd := range s.fds {
		if fd >= 0 {
			syscall.Close(fd)
			s.fds[i] = -1
		}
	}
}

// Process counts the events of every thread of the process: each thread
// present at OpenProcess is opened with inherit set, so every thread
// created later (always cloned from one that exists) is counted too, from
// its start; the kernel adds an inherited counter's counts, live or exited,
// to its parent's reading. The Go runtime's own threads (GC workers) are
// included.
type Process struct {
	mu      sync.Mutex
	threads map[int]*Set
	missing map[Event]string
}

// OpenProcess starts counting the whole process.
func OpenProcess() (*Process, map[Event]string, error) {
	p := &Process{threads: map[int]*Set{}}
	if err := p.scan(); err != nil {
		return nil, p.missing, err
	}
	if len(p.threads) == 0 {
		return nil, p.missing, fmt.Errorf("no thread of this process could be counted: %s", p.missing[Instructions])
	}
	return p, p.missing, nil
}

func (p *Process) scan() error {
	dirs, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return fmt.Errorf("listing the process's threads: %v", err)
	}
	for _, d := range dirs {
		tid, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		if _, ok := p.threads[tid]; ok {
			continue
		}
		s, missing, err := open(tid, true)
		if p.missing == nil && missing != nil {
			p.missing = missing
		}
		if err != nil {
			continue
		}
		p.threads[tid] = s
	}
	return nil
}

// Read returns the process's counts so far.
func (p *Process) Read() Values {
	p.mu.Lock()
	defer p.mu.Unlock()
	var v Values
	for _, s := range p.threads {
		v.Add(s.Read())
	}
	return v
}

// Close releases every counter.
func (p *Process) Close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for tid, s := range p.threads {
		s.Close()
		delete(p.threads, tid)
	}
}

// Gettid returns the calling thread's id.
func Gettid() int { return syscall.Gettid() }

// MemoryBandwidthReason says why memory bandwidth is not counted here.
func MemoryBandwidthReason() string {
	imc, _ := filepath.Glob("/sys/bus/event_source/devices/uncore_imc*")
	if len(imc) == 0 {
		return "this machine has no uncore memory-controller PMU (/sys/bus/event_source/devices/uncore_imc*)"
	}
	return fmt.Sprintf("the memory controller's PMU counts the whole socket and opens only system-wide (perf_event_paranoid ≤ 0 or CAP_PERFMON; here %s); this package counts threads", paranoid())
}
