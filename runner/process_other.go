//go:build !unix

package runner

import (
	"os"
	"syscall"
)

// groupAttr: systems without Unix process groups (Windows) run the shell
// as a plain child. Stopping a command kills the shell only (its children
// may outlive it), and nothing kills it if this process dies: use a Unix
// system for the cluster tier's workers, or run them under a supervisor
// that ends their process tree (a Windows job object).
func groupAttr() *syscall.SysProcAttr { return nil }

func terminateGroup(p *os.Process, _ int) {
	if p != nil {
		p.Kill()
	}
}

func killGroup(p *os.Process, _ int) {
	if p != nil {
		p.Kill()
	}
}

const reaperSupported = false

func reaperAttr() *syscall.SysProcAttr { return nil }

func exitStatus(ps *os.ProcessState) (code, signal int) { return ps.ExitCode(), 0 }
