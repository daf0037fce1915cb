package clusterdash_test

import (
	"context"
	"os"
	"os/exec"
	"os/signal"
	"regexp"
	"syscall"
	"testing"
	"time"

	"github.com/worksteal/worksteal/internal/cli"
	"github.com/worksteal/worksteal/internal/syncbuf"
	"github.com/worksteal/worksteal/internal/testdeadline"
)

// envAsBinary makes the test binary behave as the worksteal binary (the
// re-exec pattern): the processes these tests start are real processes
// running cmd/worksteal's code, with real signals, without a second build.
const envAsBinary = "WORKSTEAL_TEST_AS_BINARY"

func TestMain(m *testing.M) {
	if os.Getenv(envAsBinary) == "1" {
		// What cmd/worksteal/main.go does.
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		code := cli.Run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
		stop()
		os.Exit(code)
	}
	os.Exit(m.Run())
}

// syncBuffer is a buffer a process or command writes while the test reads it.
type syncBuffer = syncbuf.Buffer

// process is a worksteal process started by a test.
type process struct {
	cmd  *exec.Cmd
	out  syncBuffer // stdout and stderr
	done chan struct{}
}

// start runs "worksteal args..." until the test ends (then SIGTERM, and
// SIGKILL if it does not stop within 10 s).
func start(t *testing.T, args ...string) *process {
	t.Helper()
	p := &process{cmd: exec.Command(os.Args[0], args...), done: make(chan struct{})}
	p.cmd.Env = append(os.Environ(), envAsBinary+"=1")
	p.cmd.Stdout, p.cmd.Stderr = &p.out, &p.out
	if err := p.cmd.Start(); err != nil {
		t.Fatalf("starting worksteal %q: %v", args, err)
	}
	go func() { p.cmd.Wait(); close(p.done) }()
	t.Cleanup(func() {
		p.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-p.done:
		case <-time.After(testdeadline.Left(t)):
			p.cmd.Process.Kill()
			<-p.done
			t.Errorf("worksteal %q did not stop on SIGTERM; output:\n%s", args, p.out.String())
		}
	})
	return p
}

// kill sends SIGKILL and waits for the process to end.
func (p *process) kill() {
	p.cmd.Process.Kill()
	<-p.done
}

// wait waits for a match of re in the process's output and returns it.
func (p *process) wait(t *testing.T, re string) []string {
	t.Helper()
	rx := regexp.MustCompile(re)
	deadline := time.Now().Add(testdeadline.Left(t))
	for time.Now().Before(deadline) {
		if m := rx.FindStringSubmatch(p.out.String()); m != nil {
			return m
		}
		select {
		case <-p.done:
			t.Fatalf("worksteal %q ended before printing %q; output:\n%s", p.cmd.Args[1:], re, p.out.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
	t.Fatalf("no %q in the output of worksteal %q:\n%s", re, p.cmd.Args[1:], p.out.String())
	return nil
}
