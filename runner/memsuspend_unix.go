//go:build unix

package runner

import "syscall"

// pauseAttempt stops (SIGSTOP) or continues (SIGCONT) a running
// attempt's process group, once its process has started.
func pauseAttempt(a *attempt, stop bool) {
	pgid := int(a.pgid.Load())
	if pgid <= 0 {
		return
	}
	sig := syscall.SIGCONT
	if stop {
		sig = syscall.SIGSTOP
	}
	if syscall.Kill(-pgid, sig) == nil {
		a.paused = stop
	}
}
