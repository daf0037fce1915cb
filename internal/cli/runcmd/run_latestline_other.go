//go:build !unix

package runcmd

import "github.com/worksteal/worksteal/runner"

// watchResize: no SIGWINCH here; the size read at the start stays.
func watchResize() <-chan runner.Screen { return nil }
