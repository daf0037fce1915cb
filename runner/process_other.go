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

func ttyAttr() *syscall.SysProcAttr { return nil }

// signalGroup: only the shell can be stopped, and only by killing it.
func signalGroup(p *os.Process, _ int, _ syscall.Signal) { killGroup(p, 0) }

// groupAlive: the shell lives until it has been reaped.
func groupAlive(_ int, waited <-chan struct{}) bool {
	select {
	case <-waited:
		return false
	default:
		return true
	}
}

const reaperSupported = false

func reaperAttr() *syscall.SysProcAttr { return nil }

func exitStatus(ps *os.ProcessState) (code, signal int) { return ps.ExitCode(), 0 }
