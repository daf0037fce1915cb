//go:build unix

package runner

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"syscall"
)

// alive says pid is a live process (not gone, not a zombie).
func alive(pid int) bool {
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
