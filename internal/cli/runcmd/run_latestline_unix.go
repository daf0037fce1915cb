//go:build unix

package runcmd

import (
	"os"
	"os/signal"
	"syscall"

	"github.com/worksteal/worksteal/internal/runopts"
)

// watchResize gives --latest-line the terminal's new size after each
// SIGWINCH (GNU's compute_terminal_size on WINCH), read as
// latestLineScreen reads it; the newest waits to be taken.
func watchResize() <-chan runopts.Screen {
	win := make(chan os.Signal, 1)
	signal.Notify(win, syscall.SIGWINCH)
	sizes := make(chan runopts.Screen, 1)
	go func() {
		for range win {
			scr := latestLineScreen()
			select {
			case <-sizes: // an older size not yet taken
			default:
			}
			sizes <- scr
		}
	}()
	return sizes
}
