package runner

import (
	"bufio"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"sync"
	"time"
)

// Reaper kills the process groups of the commands a process runs, should
// that process die while they run, however it dies (SIGKILL included):
// the commands of a dead cluster worker must not run on as orphans, and a
// hung one must not run forever.
//
// It is a small child process (a program that calls ReapGroups, such as
// "worksteal reap") in a process group of its own, so that a terminal's
// Ctrl-C does not reach it. Exec tells it each command's group as the
// command starts and ends, over a pipe. When the runner dies, the kernel
// closes the pipe; the reaper reads end-of-file and stops the groups still
// listed: SIGTERM, then SIGKILL after the grace period. A command that
// started in the instant before its group was listed is covered on Linux
// by the parent-death signal (the shell dies with the runner), and on
// other Unix systems not at all. Systems without process groups (Windows)
// have no reaper: StartReaper fails there.
//
// Its methods are safe for concurrent use.
type Reaper struct {
	mu   sync.Mutex
	w    io.WriteCloser
	cmd  *exec.Cmd
	err  error // the first failed write: the reaper is gone
	done chan struct{}
}

// StartReaper starts the reaper process argv[0] argv[1:]. Close it when
// the runner stops running commands.
func StartReaper(argv ...string) (*Reaper, error) {
	if len(argv) == 0 {
		return nil, fmt.Errorf("runner: StartReaper needs a program")
	}
	if !reaperSupported {
		return nil, fmt.Errorf("runner: no reaper on this system (no process groups)")
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.SysProcAttr = reaperAttr()
	w, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("runner: starting the reaper %s: %w", argv[0], err)
	}
	r := &Reaper{w: w, cmd: cmd, done: make(chan struct{})}
	go func() { cmd.Wait(); close(r.done) }()
	return r, nil
}

func (r *Reaper) send(op byte, pgid int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.err != nil {
		return
	}
	_, r.err = r.w.Write(append(strconv.AppendInt([]byte{op}, int64(pgid), 10), '\n'))
}

func (r *Reaper) add(pgid int)    { r.send('+', pgid) }
func (r *Reaper) remove(pgid int) { r.send('-', pgid) }

// Close tells the reaper that the runner stops: the groups it still lists
// (none, once every Exec has returned) are stopped, and it exits. Close
// waits for that.
func (r *Reaper) Close() error {
	r.mu.Lock()
	err := r.w.Close()
	r.mu.Unlock()
	<-r.done
	return err
}

// ReapGroups is the reaper's main loop: it reads "+PGID" and "-PGID"
// lines (a group starts, a group ended) from in until end-of-file, then
// stops the groups still listed: SIGTERM to each, SIGKILL after grace.
func ReapGroups(in io.Reader, grace time.Duration) error {
	live := map[int]bool{}
	sc := bufio.NewScanner(in)
	for sc.Scan() {
		line := sc.Text()
		if len(line) < 2 {
			continue
		}
		pgid, err := strconv.Atoi(line[1:])
		if err != nil || pgid <= 1 {
			continue
		}
		switch line[0] {
		case '+':
			live[pgid] = true
		case '-':
			delete(live, pgid)
		}
	}
	if len(live) == 0 {
		return sc.Err()
	}
	for pgid := range live {
		terminateGroup(nil, pgid)
	}
	time.Sleep(grace)
	for pgid := range live {
		killGroup(nil, pgid)
	}
	return sc.Err()
}
