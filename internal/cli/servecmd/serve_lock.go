package servecmd

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/worksteal/worksteal/internal/cli/cmdenv"
)

// storeLockName is the file in a --store directory that the serve using
// it holds locked: two servers on one store overwrite each other's files
// (the second's start goes unnoticed, and the first's clients hang a few
// seconds later), so a second serve is refused at start.
const storeLockName = "worksteal-serve.lock"

// lockStore takes the store's lock for this process's life, or says which
// process holds it. The lock is the kernel's (flock on unix): it goes with
// the process, kill -9 included, so a crashed server leaves no stale lock.
// The file keeps the holder's pid and start time for the refusal's message.
func lockStore(dir string) (release func(), err error) {
	path := filepath.Join(dir, storeLockName)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("serve: --store %s: cannot open its lock file: %w", dir, cmdenv.UnwrapPath(err))
	}
	ok, err := tryLock(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("serve: --store %s: cannot lock %s: %w", dir, storeLockName, err)
	}
	if !ok {
		holder, _ := os.ReadFile(path)
		f.Close()
		who := "another process"
		if h := strings.TrimSpace(string(holder)); h != "" {
			who = h
		}
		return nil, cmdenv.UsageError(fmt.Errorf("serve: --store %s is in use by another worksteal serve (%s): two servers on one store corrupt each other's data; stop it, or give this server its own --store", dir, who))
	}
	f.Truncate(0)
	f.WriteAt([]byte("pid "+strconv.Itoa(os.Getpid())+", started "+time.Now().Format(time.RFC3339)+"\n"), 0)
	return func() { unlock(f); f.Close() }, nil
}
