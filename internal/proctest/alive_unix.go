//go:build unix

// Package proctest answers what tests and benchmarks ask of processes:
// whether one is still alive (a killed job's process, a dead worker's
// orphan), and how much CPU time this one has used.
package proctest

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"syscall"
)

// Alive says pid is a live process: it exists and is not a zombie. It
// needs kill(2) and /proc (Linux); without /proc it reports false.
func Alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	f := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
	return len(f) > 0 && f[0] != "Z"
}
