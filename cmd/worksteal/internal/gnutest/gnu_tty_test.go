//go:build linux

package gnutest

import (
	"bytes"
	"io"
	"os/exec"
	"strings"
	"syscall"
	"testing"

	"github.com/creack/pty"
)

// TestGNUTTYJobsReadTheTerminal runs GNU parallel and worksteal run with
// --tty and -o on a terminal of their own (a pty that is their
// controlling terminal), types a line into it, and wants both to give it
// to the job, which reads it from the terminal: the same output from
// both. Off a terminal the TestGNUParallel cases 29.12 --tty compare them.
func TestGNUTTYJobsReadTheTerminal(t *testing.T) {
	needGNU(t)
	for _, opt := range []string{"--tty", "-o"} {
		t.Run(opt, func(t *testing.T) {
			job := `read x; echo "got:$x"; [ -t 0 ] && echo "stdin is a terminal"`
			gnu := onTerminal(t, gnuBin, opt, job)
			// On a terminal worksteal shows progress and a summary on
			// stderr (docs/gnu-compat.md): off here.
			ws := onTerminal(t, wsBin, "run", "--progress=none", "--summary=false", opt, job)
			if ws != gnu {
				t.Errorf("on a terminal, %s:\nworksteal:\n%s\nGNU parallel:\n%s", opt, ws, gnu)
			}
			if !strings.Contains(ws, "got:hello") {
				t.Errorf("the job did not read the typed line:\n%s", ws)
			}
		})
	}
}

// onTerminal runs bin args ::: 1 with a new pty as its controlling
// terminal and stdin, stdout and stderr, types "hello" into it, and
// returns what the terminal showed (carriage returns dropped) once the
// program has exited.
func onTerminal(t *testing.T, bin string, args ...string) string {
	t.Helper()
	master, slave, err := pty.Open()
	if err != nil {
		t.Skipf("no pty: %v", err)
	}
	defer master.Close()
	cmd := exec.CommandContext(caseContext(t), bin, append(args, ":::", "1")...)
	cmd.Env = gnuEnv(nil)
	cmd.Dir = t.TempDir()
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	slave.Close()
	// Typed ahead: the terminal keeps the line until the job reads it.
	if _, err := master.Write([]byte("hello\n")); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	copied := make(chan struct{})
	go func() {
		io.Copy(&out, master) // ends with EIO once the program and its jobs have closed the terminal
		close(copied)
	}()
	err = cmd.Wait()
	<-copied
	if err != nil {
		t.Errorf("%s %q: %v\n%s", bin, args, err, out.String())
	}
	return strings.ReplaceAll(out.String(), "\r", "")
}
