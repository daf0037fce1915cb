package semaphore

// A counting semaphore across processes, as GNU parallel's --semaphore
// (sem) keeps it, in the same files, so that worksteal's and GNU's sem
// share a semaphore of the same name:
//
//	DIR/id-NAME/           the semaphore
//	DIR/id-NAME/id-NAME    its id file
//	DIR/id-NAME/PID@HOST   a hard link to the id file per holder
//	DIR/id-NAME.lock       flock(2)ed while the holders are counted
//
// The holders are the id file's links less one (itself). Invariants: a
// holder is added only under the lock, after counting fewer than Slots
// (so the count never passes Slots but by a timeout's steal); a holder is
// removed by itself (Release, or Hand) or, once its process is gone, by
// any process that waits (the dead are reclaimed, so a killed holder
// cannot keep a slot). The lock file is removed when unlocked (GNU's
// way): a locker checks that the file it locked is still the one at the
// path, or locks again.

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// ErrTimeout: Acquire gave up waiting (a negative timeout).
var ErrTimeout = errors.New("semaphore: semaphore timed out")

// Semaphore is a counting semaphore shared by the processes of a machine
// (and, on a shared home, of several) through files: GNU parallel's.
type Semaphore struct {
	// Dir holds the semaphores; "" means GNU parallel's: the "semaphores"
	// directory of $PARALLEL_HOME, else of $XDG_CACHE_HOME/parallel, else
	// of ~/.parallel (the first that exists).
	Dir string
	// Name names the semaphore (GNU's --id); any characters.
	Name string
	// Slots is how many may hold it at once; < 1 means 1 (a mutex).
	Slots int
}

// semaphoreDir is where GNU parallel keeps its semaphores: the
// "semaphores" directory of $PARALLEL_HOME, else of
// $XDG_CACHE_HOME/parallel, else of ~/.parallel (the first that exists).
func semaphoreDir() string {
	base := ""
	for _, d := range []string{os.Getenv("PARALLEL_HOME"), filepath.Join(os.Getenv("XDG_CACHE_HOME"), "parallel")} {
		if d == "" || d == "parallel" {
			continue
		}
		if st, err := os.Stat(d); err == nil && st.IsDir() {
			base = d
			break
		}
	}
	if base == "" {
		home, _ := os.UserHomeDir()
		base = filepath.Join(home, ".parallel")
	}
	return filepath.Join(base, "semaphores")
}

var semNameRE = regexp.MustCompile(`(?i)[^-_a-z0-9]`)

// paths returns the semaphore's directory, id file and lock file.
func (s *Semaphore) paths() (dir, idfile, lockfile string) {
	base := s.Dir
	if base == "" {
		base = semaphoreDir()
	}
	// GNU: every character but -_a-z0-9 as its bytes in hex.
	id := "id-" + semNameRE.ReplaceAllStringFunc(s.Name, func(c string) string { return fmt.Sprintf("%x", c) })
	dir = filepath.Join(base, id)
	return dir, filepath.Join(dir, id), dir + ".lock"
}

func hostname() string {
	h, err := os.Hostname()
	if err != nil || h == "" {
		return "nohostname"
	}
	return h
}

func (s *Semaphore) holderFile(pid int) string {
	dir, _, _ := s.paths()
	return filepath.Join(dir, strconv.Itoa(pid)+"@"+hostname())
}

func jitter(d time.Duration) time.Duration { return d/2 + rand.N(d/2+1) }

// holders counts the semaphore's holders (its id file's links less one).
func (s *Semaphore) holders() int {
	_, idfile, _ := s.paths()
	st, err := os.Stat(idfile)
	if err != nil {
		return 0
	}
	return linkCount(st) - 1
}

// reclaim removes the holders of this host whose process is gone.
func (s *Semaphore) reclaim() {
	dir, _, _ := s.paths()
	ents, _ := os.ReadDir(dir)
	host := hostname()
	for _, e := range ents {
		p, h, ok := strings.Cut(e.Name(), "@")
		if !ok || h != host {
			continue
		}
		pid, err := strconv.Atoi(p)
		if err != nil || pid <= 0 {
			continue
		}
		if gone(pid) {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}

// link adds pid as a holder. Under the lock.
func (s *Semaphore) link(pid int) error {
	dir, idfile, _ := s.paths()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if _, err := os.Stat(idfile); errors.Is(err, os.ErrNotExist) {
		f, err := os.OpenFile(idfile, os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			return err
		}
		f.Close()
	}
	err := os.Link(idfile, s.holderFile(pid))
	if errors.Is(err, os.ErrExist) {
		return nil // already a holder
	}
	return err
}

// Acquire makes process pid a holder of the semaphore, waiting while
// Slots hold it, as GNU's sem does. timeout 0 waits as long as it takes;
// after a positive timeout pid holds it anyway (stolen, GNU's "pee on the
// floor"); after a negative one Acquire gives up with ErrSemaphoreTimeout.
// ctx ends the wait too.
func (s *Semaphore) Acquire(ctx context.Context, pid int, timeout time.Duration) (stolen bool, err error) {
	slots := max(s.Slots, 1)
	start := time.Now()
	wait := time.Millisecond
	for {
		unlock, err := s.lock(ctx)
		if err != nil {
			return false, err
		}
		n := s.holders()
		if n >= slots {
			s.reclaim()
			n = s.holders()
		}
		over := timeout != 0 && time.Since(start) > timeout.Abs()
		if n < slots || (over && timeout > 0) {
			err := s.link(pid)
			unlock()
			if err != nil {
				return false, fmt.Errorf("semaphore %q: %w", s.Name, err)
			}
			return n >= slots, nil
		}
		unlock()
		if over {
			return false, fmt.Errorf("%w: %q is held by %d for more than %v", ErrTimeout, s.Name, n, timeout.Abs())
		}
		select {
		case <-ctx.Done():
			return false, context.Cause(ctx)
		case <-time.After(jitter(wait)):
			wait = min(2*wait, 100*time.Millisecond)
		}
	}
}

// Hand passes the hold of process from to process to (GNU's pid_change:
// the holder went to the background).
func (s *Semaphore) Hand(from, to int) error {
	if err := os.Link(s.holderFile(from), s.holderFile(to)); err != nil && !errors.Is(err, os.ErrExist) {
		return fmt.Errorf("semaphore %q: %w", s.Name, err)
	}
	return os.Remove(s.holderFile(from))
}

// AwaitHand waits until process pid holds the semaphore, handed to it by
// another (Hand).
func (s *Semaphore) AwaitHand(ctx context.Context, pid int) error {
	wait := time.Millisecond
	for {
		if _, err := os.Stat(s.holderFile(pid)); err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return context.Cause(ctx)
		case <-time.After(wait):
			wait = min(2*wait, 20*time.Millisecond)
		}
	}
}

// Release ends pid's hold; the last holder removes the semaphore's files.
func (s *Semaphore) Release(pid int) error {
	err := os.Remove(s.holderFile(pid))
	if s.holders() == 0 {
		if unlock, lerr := s.lock(context.Background()); lerr == nil {
			if s.holders() == 0 {
				dir, idfile, _ := s.paths()
				os.Remove(idfile)
				os.Remove(dir)
			}
			unlock()
		}
	}
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("semaphore %q: %w", s.Name, err)
	}
	return nil
}

// Holders returns how many hold the semaphore now, the dead reclaimed.
func (s *Semaphore) Holders(ctx context.Context) (int, error) {
	unlock, err := s.lock(ctx)
	if err != nil {
		return 0, err
	}
	defer unlock()
	s.reclaim()
	return s.holders(), nil
}

// Wait waits until no one holds the semaphore (GNU's sem --wait).
func (s *Semaphore) Wait(ctx context.Context) error {
	wait := time.Millisecond
	for {
		n, err := s.Holders(ctx)
		if err != nil {
			return err
		}
		if n == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return context.Cause(ctx)
		case <-time.After(jitter(wait)):
			wait = min(2*wait, 100*time.Millisecond)
		}
	}
}
