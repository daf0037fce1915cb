//go:build !unix

package gnutest

import (
	"os/exec"
	"time"
)

// ownGroup: without process groups, the context's end kills the program
// itself, and its pipes are closed after a while.
func ownGroup(cmd *exec.Cmd) { cmd.WaitDelay = 10 * time.Second }
