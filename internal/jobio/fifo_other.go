//go:build !unix

package jobio

import (
	"errors"
	"os"
)

var errNoUnix = errors.New("runner: the semaphore and --fifo need a Unix system")

func mkfifo(string) error { return errNoUnix }

func openFifoWriter(string) (*os.File, error) { return nil, errNoUnix }
