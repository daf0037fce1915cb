//go:build !unix

package semaphore

import (
	"context"
	"errors"
	"io/fs"
)

func (s *Semaphore) lock(context.Context) (func(), error) { return nil, errNoUnix }

func linkCount(fs.FileInfo) int { return 1 }

func gone(int) bool { return false }

var errNoUnix = errors.New("semaphore: worksteal sem needs a Unix system")
