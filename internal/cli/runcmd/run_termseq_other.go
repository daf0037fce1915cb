//go:build !unix

package runcmd

import "syscall"

// signalNamed: without Unix signals a job is only ever killed; KILL (9)
// and TERM (15) are read, as the kill they become.
func signalNamed(s string) (syscall.Signal, bool) {
	switch s {
	case "KILL", "SIGKILL", "9":
		return syscall.SIGKILL, true
	case "TERM", "SIGTERM", "15":
		return syscall.SIGTERM, true
	}
	return 0, false
}
