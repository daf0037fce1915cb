//go:build !unix

package runner

import (
	"context"
	"errors"
	"io/fs"
	"os"
)

var errNoUnix = errors.New("runner: the semaphore and --fifo need a Unix system")

func (s *Semaphore) lock(context.Context) (func(), error) { return nil, errNoUnix }

func linkCount(fs.FileInfo) int { return 1 }

func gone(int) bool { return false }

func mkfifo(string) error { return errNoUnix }

func openFifoWriter(string) (*os.File, error) { return nil, errNoUnix }
