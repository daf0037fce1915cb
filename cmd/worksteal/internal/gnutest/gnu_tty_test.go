//go:build linux

package gnutest

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
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

// TestGNULatestLineOnATerminal runs GNU parallel and worksteal run with
// --latest-line on a pty of 30 rows × 90 columns as their controlling
// terminal and compares the screens they leave (the bytes written, drawn
// by screenOf): each job's tag and last line on the row of its number
// (-k), cut at 90 columns with ">", whatever the order of the paints.
func TestGNULatestLineOnATerminal(t *testing.T) {
	needGNU(t)
	// Each line is longer than the one before it: a terminal keeps what
	// a shorter paint does not cover, and which lines get a paint of
	// their own depends on timing.
	job := `echo a{} >&2; sleep 0.{}; printf "%0{}0d\n" {}`
	ws := sameLatestScreen(t, "-k", "-j3", "--ll", "--tag", job, ":::", "1", "2", "3", "4", "5", "9")
	if !strings.Contains(ws, "9       000") || !strings.HasSuffix(ws, "0>\n") {
		t.Errorf("the screen lacks job 9's last line:\n%s", ws)
	}
}

// TestGNULatestLineOnATerminalInPipeMode compares the screens GNU parallel
// and worksteal run leave with --latest-line in pipe mode (--pipepart, as
// stdin is the terminal): each chunk's job's line on the row of its number
// (-k), and under --dry-run each job's command.
func TestGNULatestLineOnATerminalInPipeMode(t *testing.T) {
	needGNU(t)
	f := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(f, []byte(seqLines(20)), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, extra := range [][]string{nil, {"--dry-run"}} {
		t.Run(strings.Join(append([]string{"--pipepart"}, extra...), " "), func(t *testing.T) {
			args := append([]string{"-k", "-j3", "--ll", "--pipepart", "-a", f, "--block", "8"}, extra...)
			ws := sameLatestScreen(t, append(args, "echo {#}: $(paste -sd,)")...)
			want := "1: 1,2,3,4,5\n"
			if extra != nil {
				want = "echo 1: $(paste -sd,)"
			}
			if !strings.Contains(ws, want) {
				t.Errorf("the screen lacks job 1's row %q:\n%s", want, ws)
			}
		})
	}
}

// sameLatestScreen runs GNU parallel and worksteal run with args on a pty
// each (latestOnTerminal), wants exit status 0 from both and the same
// screen left, and returns worksteal's.
func sameLatestScreen(t *testing.T, args ...string) string {
	t.Helper()
	gnuOut, gnuCode := latestOnTerminal(t, "", gnuBin, args...)
	wsOut, wsCode := latestOnTerminal(t, "", wsBin, append([]string{"run", "--progress=none", "--summary=false"}, args...)...)
	if gnuCode != 0 || wsCode != 0 {
		t.Errorf("exit status: GNU parallel %d, worksteal %d", gnuCode, wsCode)
	}
	gnu, ws := screenOf(gnuOut), screenOf(wsOut)
	if ws != gnu {
		t.Errorf("the screen --latest-line leaves:\nworksteal:\n%s\nGNU parallel:\n%s", ws, gnu)
	}
	return ws
}

// latestOnTerminal runs bin args on a new 30 × 90 pty, its controlling
// terminal (TERM=xterm), with typed typed ahead into it, and returns the
// bytes it wrote there and its exit status.
func latestOnTerminal(t *testing.T, typed, bin string, args ...string) (string, int) {
	t.Helper()
	master, slave, err := pty.Open()
	if err != nil {
		t.Skipf("no pty: %v", err)
	}
	defer master.Close()
	if err := pty.Setsize(master, &pty.Winsize{Rows: 30, Cols: 90}); err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(caseContext(t), bin, args...)
	cmd.Env = gnuEnv([]string{"TERM=xterm"})
	cmd.Dir = t.TempDir()
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	slave.Close()
	if _, err := master.Write([]byte(typed)); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	copied := make(chan struct{})
	go func() {
		io.Copy(&out, master)
		close(copied)
	}()
	err = cmd.Wait()
	<-copied
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatalf("%s %q: %v\n%q", bin, args, err, out.String())
	}
	return out.String(), cmd.ProcessState.ExitCode()
}

// TestGNUInteractiveOnATerminal runs GNU parallel and worksteal run with
// --interactive (-p) on a pty, answers typed ahead (y, n, Y), and compares
// what the terminal shows: each command asked ("echo a ?..."), the jobs
// answered yes run, the one answered no not (a failed job: exit status 1).
func TestGNUInteractiveOnATerminal(t *testing.T) {
	needGNU(t)
	for _, opt := range []string{"-p", "--interactive"} {
		t.Run(opt, func(t *testing.T) {
			args := []string{opt, "-j1", "echo", ":::", "a", "b", "c"}
			gnu, gnuCode := latestOnTerminal(t, "y\nn\n Y\n", gnuBin, args...)
			ws, wsCode := latestOnTerminal(t, "y\nn\n Y\n", wsBin, append([]string{"run", "--progress=none", "--summary=false"}, args...)...)
			// The terminal echoes the typed lines when they are typed, in
			// one piece, which may come before or after the first prompt.
			norm := func(s string) string {
				return strings.Replace(strings.ReplaceAll(s, "\r", ""), "y\nn\n Y\n", "", 1)
			}
			gnu, ws = norm(gnu), norm(ws)
			if wsCode != gnuCode {
				t.Errorf("exit status: worksteal %d, GNU parallel %d", wsCode, gnuCode)
			}
			if ws != gnu {
				t.Errorf("on a terminal, %s:\nworksteal:\n%s\nGNU parallel:\n%s", opt, ws, gnu)
			}
			if !strings.Contains(ws, "echo b ?...echo c") || !strings.Contains(ws, "?...c\n") {
				t.Errorf("want b asked and not run, c run:\n%s", ws)
			}
		})
	}
}

// screenOf draws what a terminal shows after s: text at the cursor, \r to
// the first column, \n a row down, ESC [ A a row up; other escape
// sequences (colours, clear to end of line) change nothing drawn. The
// rows without their trailing spaces, the empty rows at the end dropped.
func screenOf(s string) string {
	var rows [][]rune
	row, col := 0, 0
	put := func(r rune) {
		for len(rows) <= row {
			rows = append(rows, nil)
		}
		for len(rows[row]) <= col {
			rows[row] = append(rows[row], ' ')
		}
		rows[row][col] = r
		col++
	}
	rs := []rune(s)
	for i := 0; i < len(rs); i++ {
		switch r := rs[i]; r {
		case '\r':
			col = 0
		case '\n':
			row++
		case 0x1b:
			j := i + 1
			if j < len(rs) && rs[j] == '[' {
				j++
				for j < len(rs) && (rs[j] < '@' || rs[j] > '~') {
					j++
				}
				if j < len(rs) && rs[j] == 'A' && row > 0 {
					row--
				}
			}
			i = j
		default:
			put(r)
		}
	}
	var b strings.Builder
	for _, r := range rows {
		b.WriteString(strings.TrimRight(string(r), " ") + "\n")
	}
	return strings.TrimRight(b.String(), "\n") + "\n"
}
