//go:build unix && !linux

package runner

import "syscall"

// setDeathSignal does nothing: only Linux has a parent-death signal. On
// other Unix systems a Reaper alone kills a dead runner's commands.
func setDeathSignal(*syscall.SysProcAttr) {}
