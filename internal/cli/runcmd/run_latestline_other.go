//go:build !unix

package runcmd

import "github.com/worksteal/worksteal/internal/runopts"

// watchResize: no SIGWINCH here; the size read at the start stays.
func watchResize() <-chan runopts.Screen { return nil }
