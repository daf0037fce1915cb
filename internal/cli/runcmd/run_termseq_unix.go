//go:build unix

package runcmd

import (
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// signalNamed is the signal of a name as Perl's kill takes it: TERM,
// SIGTERM or a number.
func signalNamed(s string) (syscall.Signal, bool) {
	name := strings.ToUpper(s)
	if !strings.HasPrefix(name, "SIG") {
		name = "SIG" + name
	}
	if sig := unix.SignalNum(name); sig != 0 {
		return sig, true
	}
	return 0, false
}
