//go:build unix

package semaphore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"
)

// lock takes the semaphore's lock file.
func (s *Semaphore) lock(ctx context.Context) (unlock func(), err error) {
	dir, _, lockfile := s.paths()
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return nil, fmt.Errorf("semaphore %q: %w", s.Name, err)
	}
	wait := time.Millisecond
	for {
		f, err := os.OpenFile(lockfile, os.O_CREATE|os.O_WRONLY, 0o666)
		if err != nil {
			return nil, fmt.Errorf("semaphore %q: %w", s.Name, err)
		}
		if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) == nil {
			// Still the file at the path? An unlocker may have removed it.
			a, errA := f.Stat()
			b, errB := os.Stat(lockfile)
			if errA == nil && errB == nil && os.SameFile(a, b) {
				return func() { os.Remove(lockfile); f.Close() }, nil
			}
		}
		f.Close()
		select {
		case <-ctx.Done():
			return nil, context.Cause(ctx)
		case <-time.After(jitter(wait)):
			wait = min(2*wait, 50*time.Millisecond)
		}
	}
}

// linkCount is a file's number of hard links.
func linkCount(st fs.FileInfo) int {
	if sys, ok := st.Sys().(*syscall.Stat_t); ok {
		return int(sys.Nlink)
	}
	return 1
}

// gone says process pid no longer runs: it does not exist, or it is a
// zombie nobody reaped (a holder whose parent is gone, in a container
// whose init does not reap).
func gone(pid int) bool {
	if errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) {
		return true
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(b, ')')
	return i >= 0 && i+2 < len(b) && b[i+2] == 'Z'
}
