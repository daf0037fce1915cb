package worksteal

import (
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"
)

// futexParks: workers may park on a futex word (park.go, parkMode).
const futexParks = true

const (
	futexWaitPrivate = 0 | 128 // FUTEX_WAIT | FUTEX_PRIVATE_FLAG
	futexWakePrivate = 1 | 128 // FUTEX_WAKE | FUTEX_PRIVATE_FLAG
)

// futexWait blocks the calling thread while *addr == val, for at most d
// when d > 0. It may return early (a wake-up, a signal, or *addr != val
// already): callers re-check the word.
//
// The goroutine stays on its thread in a system call, so the thread, not
// a goroutine of Go's scheduler, is what the kernel wakes. Go hands the P
// to another thread if one needs it meanwhile (sysmon's retake).
func futexWait(addr *atomic.Uint32, val uint32, d time.Duration) {
	var ts syscall.Timespec
	var tsp unsafe.Pointer
	if d > 0 {
		ts = syscall.NsecToTimespec(int64(d))
		tsp = unsafe.Pointer(&ts)
	}
	syscall.Syscall6(syscall.SYS_FUTEX, uintptr(unsafe.Pointer(addr)), futexWaitPrivate, uintptr(val), uintptr(tsp), 0, 0)
}

// futexWake wakes one thread blocked in futexWait on addr.
func futexWake(addr *atomic.Uint32) {
	syscall.Syscall6(syscall.SYS_FUTEX, uintptr(unsafe.Pointer(addr)), futexWakePrivate, 1, 0, 0, 0)
}
