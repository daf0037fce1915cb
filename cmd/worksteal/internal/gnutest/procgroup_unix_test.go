//go:build unix

package gnutest

import (
	"os/exec"
	"syscall"
	"time"
)

// ownGroup runs cmd in a process group of its own, which its context's
// end kills whole: GNU parallel's --shard runs a second parallel, Perl
// sharders and parcat readers beside the command, and killing only the
// first leaves them holding its output pipes.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 10 * time.Second
}
