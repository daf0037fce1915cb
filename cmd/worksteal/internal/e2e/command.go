package e2e

import (
	"os"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/worksteal/worksteal/internal/syncbuf"
	"github.com/worksteal/worksteal/internal/testdeadline"
)

// Proc is a worksteal process (the binary Main builds) started by a
// test.
type Proc struct {
	Cmd            *exec.Cmd
	Stdout, Stderr *syncbuf.Buffer
	Done           chan struct{}
}

// Start runs worksteal args with extra environment; it is stopped
// (SIGTERM, then SIGKILL) when the test ends.
func Start(t *testing.T, stdin string, env []string, args ...string) *Proc {
	t.Helper()
	p := &Proc{Cmd: exec.Command(Bin, args...), Stdout: &syncbuf.Buffer{}, Stderr: &syncbuf.Buffer{}, Done: make(chan struct{})}
	p.Cmd.Env = append(os.Environ(), env...)
	p.Cmd.Stdin = strings.NewReader(stdin)
	p.Cmd.Stdout, p.Cmd.Stderr = p.Stdout, p.Stderr
	if err := p.Cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.Cmd.Wait(); close(p.Done) }()
	t.Cleanup(func() {
		p.Cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-p.Done:
		case <-time.After(30 * time.Second):
			p.Cmd.Process.Kill()
			<-p.Done
		}
	})
	return p
}

// Run runs worksteal args to the end and returns its exit code and output.
func Run(t *testing.T, stdin string, env []string, args ...string) (int, string, string) {
	t.Helper()
	p := Start(t, stdin, env, args...)
	select {
	case <-p.Done:
	case <-time.After(testdeadline.Left(t)):
		// SIGQUIT: the Go runtime writes every goroutine's stack to
		// stderr and exits, so the failure says where it waited.
		p.Cmd.Process.Signal(syscall.SIGQUIT)
		select {
		case <-p.Done:
		case <-time.After(2 * time.Second):
		}
		t.Fatalf("worksteal %q did not end; stderr (with its stacks) %q", args, p.Stderr)
	}
	return p.Cmd.ProcessState.ExitCode(), p.Stdout.String(), p.Stderr.String()
}

// WaitFor waits for a match of re in out.
func WaitFor(t *testing.T, out *syncbuf.Buffer, re string) []string {
	t.Helper()
	rx := regexp.MustCompile(re)
	deadline := time.Now().Add(testdeadline.Left(t))
	for time.Now().Before(deadline) {
		if m := rx.FindStringSubmatch(out.String()); m != nil {
			return m
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("no %q in %q", re, out)
	return nil
}

// WaitForEither waits until p's stdout matches out or its stderr matches errs.
func WaitForEither(t *testing.T, p *Proc, out, errs string) {
	t.Helper()
	ro, re := regexp.MustCompile(out), regexp.MustCompile(errs)
	deadline := time.Now().Add(testdeadline.Left(t))
	for time.Now().Before(deadline) {
		if ro.MatchString(p.Stdout.String()) || re.MatchString(p.Stderr.String()) {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("no %q on stdout nor %q on stderr:\n%s\n%s", out, errs, p.Stdout, p.Stderr)
}
