//go:build unix

package jobio

import (
	"errors"
	"os"
	"syscall"
)

// mkfifo makes a named pipe (--fifo).
func mkfifo(path string) error { return syscall.Mkfifo(path, 0o600) }

// openFifoWriter opens a fifo to write without waiting for a reader:
// ErrNoReader while none has it open.
func openFifoWriter(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0)
	if errors.Is(err, syscall.ENXIO) {
		return nil, ErrNoReader
	}
	return f, err
}
