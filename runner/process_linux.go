package runner

import "syscall"

// setDeathSignal makes the kernel kill the shell when this process dies,
// however it dies (SIGKILL included): the parent-death signal. It reaches
// only the shell (and what the shell execs in its place, as most shells do
// for a single command); the shell's own children are the Reaper's.
func setDeathSignal(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }
