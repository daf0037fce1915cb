package cli

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/worksteal/worksteal/internal/testdeadline"
)

// The worksteal binary, built once per test run from ./cmd/worksteal (not
// with -race: it is the program a user runs).
var (
	binOnce sync.Once
	binPath string
	binErr  error
)

func builtBinary(t *testing.T) string {
	t.Helper()
	binOnce.Do(func() {
		dir, err := os.MkdirTemp("", "worksteal-bin")
		if err != nil {
			binErr = err
			return
		}
		binPath = filepath.Join(dir, "worksteal")
		out, err := exec.Command("go", "build", "-o", binPath, "github.com/worksteal/worksteal/cmd/worksteal").CombinedOutput()
		if err != nil {
			binErr = errors.New("go build: " + err.Error() + ": " + string(out))
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

// cpuTime is the CPU time the process has used so far (Linux /proc).
func cpuTime(pid int) time.Duration {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
	if len(f) < 13 {
		return 0
	}
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(ut+st) * 10 * time.Millisecond // USER_HZ = 100
}

// Every long-running command stops on SIGINT or SIGTERM, removes the
// outputs it had created, and exits with 128 + the signal. The workloads
// here would run for minutes or hours: a command that ignored the signal
// would run into the test's deadline. Each case waits until the command has
// used CPU time (it is computing) before it sends the signal.
func TestSignalStopsEveryCommand(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("needs Linux /proc to see that the command is running")
	}
	bin := builtBinary(t)
	dir := t.TempDir()
	for _, tc := range []struct {
		name    string
		args    []string
		sig     syscall.Signal
		outputs []string // files the command opens first and must remove
	}{
		{"trace record", []string{"trace", "record", "--workload", "fib", "--size", "52", "-w", "2", "-o", filepath.Join(dir, "rec.json"), "--svg", filepath.Join(dir, "rec.svg")},
			syscall.SIGINT, []string{"rec.json", "rec.svg"}},
		{"trace profile", []string{"trace", "profile", "--workload", "fib", "--size", "52", "-w", "1", "-o", filepath.Join(dir, "prof.json")},
			syscall.SIGTERM, []string{"prof.json"}},
		{"bench cell", []string{"bench", "cell", "ws", "fib", "60", "1"}, syscall.SIGINT, nil},
		{"bench", []string{"bench", "--entry", "fib=60", "--impls", "go-seq", "--reps", "1", "--warmup", "0", "--progress", "none"}, syscall.SIGTERM, nil},
		{"sim", []string{"sim", "scale", "--sweep", "seed=1..1000"}, syscall.SIGINT, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(bin, tc.args...)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			wait := testdeadline.Left(t)
			deadline := time.After(wait)
			for cpuTime(cmd.Process.Pid) < 200*time.Millisecond {
				select {
				case err := <-done:
					t.Fatalf("%v ended before the signal: %v\n%s%s", tc.args, err, stdout.String(), stderr.String())
				case <-deadline:
					cmd.Process.Kill()
					t.Fatalf("%v: no CPU time used in %v", tc.args, wait)
				case <-time.After(10 * time.Millisecond):
				}
			}
			sent := time.Now()
			cmd.Process.Signal(tc.sig)
			var err error
			select {
			case err = <-done:
			case <-time.After(testdeadline.Left(t)):
				cmd.Process.Kill()
				<-done
				t.Fatalf("%v went on after %v until the test's deadline neared (stderr %q)", tc.args, tc.sig, stderr.String())
			}
			t.Logf("%v: stopped %v after %v", tc.args, time.Since(sent).Round(time.Millisecond), tc.sig)
			var ee *exec.ExitError
			if want := 128 + int(tc.sig); !errors.As(err, &ee) || ee.ExitCode() != want {
				t.Errorf("%v after %v: %v; want exit status %d (stderr %q)", tc.args, tc.sig, err, want, stderr.String())
			}
			if !strings.Contains(stderr.String(), "interrupted") || strings.Contains(stderr.String(), "context canceled") {
				t.Errorf("stderr %q; want it to say interrupted", stderr.String())
			}
			for _, name := range tc.outputs {
				if _, err := os.Stat(filepath.Join(dir, name)); !errors.Is(err, os.ErrNotExist) {
					t.Errorf("%s is left behind after the interrupted run (%v)", name, err)
				}
			}
		})
	}
}
