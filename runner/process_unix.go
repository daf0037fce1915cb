//go:build unix

package runner

import (
	"os"
	"syscall"
)

// groupAttr puts the command in a process group of its own, whose id is
// its pid; on Linux the shell also gets SIGKILL if this process dies (the
// parent-death signal; see process_linux.go). The rest of the group is the
// Reaper's.
func groupAttr() *syscall.SysProcAttr {
	a := &syscall.SysProcAttr{Setpgid: true}
	setDeathSignal(a)
	return a
}

// terminateGroup asks every process of the group to stop (SIGTERM).
func terminateGroup(_ *os.Process, pgid int) { syscall.Kill(-pgid, syscall.SIGTERM) }

// ttyAttr keeps the command in this process's group (a terminal's
// foreground group may read it); it still dies with this process.
func ttyAttr() *syscall.SysProcAttr {
	a := &syscall.SysProcAttr{}
	setDeathSignal(a)
	return a
}

// signalGroup sends sig to every process of the group.
func signalGroup(_ *os.Process, pgid int, sig syscall.Signal) { syscall.Kill(-pgid, sig) }

// groupAlive says a process of the group lives (or is not yet reaped).
func groupAlive(pgid int, _ <-chan struct{}) bool { return syscall.Kill(-pgid, 0) == nil }

// killGroup kills whatever is left of the group (SIGKILL). The group's id
// cannot have been reused while any member lives, and kill fails with
// ESRCH once none does.
func killGroup(_ *os.Process, pgid int) { syscall.Kill(-pgid, syscall.SIGKILL) }

// exitStatus is the process's exit status, or -1 and the signal that
// killed it.
func exitStatus(ps *os.ProcessState) (code, signal int) {
	code = -1
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok {
		switch {
		case ws.Signaled():
			signal = int(ws.Signal())
		case ws.Exited():
			code = ws.ExitStatus()
		}
	}
	return code, signal
}

const reaperSupported = true

// reaperAttr puts the reaper in a group of its own: a terminal's signals
// for the runner's group do not reach it.
func reaperAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }
