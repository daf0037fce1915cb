// End-to-end tests of the worksteal binary's cluster tier: the binary is
// built once (e2e.Main), and serve, workers and "run --nats" run as real processes
// that the tests kill with real signals. Each fault test checks the
// operator's promise: the run exits 0, every task has exactly one
// successful result, the joblog has a row per task with real times, and
// the extra executions are counted in the summary.
package faulttest

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/worksteal/worksteal/cmd/worksteal/internal/e2e"
	"github.com/worksteal/worksteal/internal/testdeadline"
)

// TestWorkerKilledMidBatch: 500 tasks; one of three workers is killed
// with SIGKILL a quarter of the way in.
func TestWorkerKilledMidBatch(t *testing.T) {
	t.Parallel()
	_, workers, b, run, began := e2e.BatchPartWay(t, 500)
	workers[0].Signal(t, syscall.SIGKILL)
	b.Check(t, run, began)
}

// TestTwoOfThreeWorkersKilled: two of three workers die with SIGKILL.
func TestTwoOfThreeWorkersKilled(t *testing.T) {
	t.Parallel()
	_, workers, b, run, began := e2e.BatchPartWay(t, 150)
	workers[0].Signal(t, syscall.SIGKILL)
	workers[1].Signal(t, syscall.SIGKILL)
	b.Check(t, run, began)
}

// TestWorkerStoppedMidBatch: a worker stopped with SIGTERM hands its
// running tasks back at once; it exits 0 and they are not attempts.
func TestWorkerStoppedMidBatch(t *testing.T) {
	t.Parallel()
	_, workers, b, run, began := e2e.BatchPartWay(t, 150)
	workers[0].Signal(t, syscall.SIGTERM)
	if code := workers[0].Wait(t); code != 0 {
		t.Errorf("the stopped worker exited %d; want 0", code)
	}
	b.Check(t, run, began)
}

// TestServerKilledAndRestarted: serve dies with SIGKILL and comes back on
// the same port and store after 3 s, and after 20 s (longer than the ack
// wait, the heartbeats' timeout and the workers' request timeouts: every
// running task's lease expires while the server is away).
func TestServerKilledAndRestarted(t *testing.T) {
	t.Parallel()
	for _, away := range []time.Duration{3 * time.Second, 20 * time.Second} {
		t.Run(fmt.Sprintf("away %v", away), func(t *testing.T) {
			t.Parallel()
			srv, workers, b, run, began := e2e.BatchPartWay(t, 150)
			b.ExactCount = false // (read by Check only)
			srv.Restart(t, away)
			b.Check(t, run, began)
			b.CheckCounts(t, run, srv.URL())
			// Workers say when they lose and regain the server.
			for _, w := range workers {
				if out := w.Out.String(); !strings.Contains(out, "lost the NATS server") || !strings.Contains(out, "reconnected to") {
					t.Errorf("%s did not log losing and regaining the server:\n%s", w.Name, out)
				}
			}
		})
	}
}

// TestClusterLosesStreamLeader: three serve processes form a JetStream
// cluster; the batch runs with --replicas 3 and the server that leads the
// task stream dies with SIGKILL. Workers must not flood their logs while
// the cluster elects a new leader.
func TestClusterLosesStreamLeader(t *testing.T) {
	t.Parallel()
	c := e2e.NewCluster(t) // each worker first tries a different server
	b := e2e.NewBatch(t, 150)
	began := time.Now()
	run := b.Run(t, c.URLs, "--replicas", "3")
	b.WaitExecutions(t, b.N/4, run)
	if leader, victim := c.KillStreamLeader(t); victim == nil {
		t.Fatalf("stream leader %q is none of the servers", leader)
	}
	killed := time.Now()
	b.Check(t, run, began)
	c.LogIfSlow(t, killed, run)
	elapsed := time.Since(began).Seconds()
	for _, w := range c.Workers {
		lines := strings.Count(w.Out.String(), "\n")
		if float64(lines) > 10+5*elapsed {
			t.Errorf("%s logged %d lines in %.0f s; want a quiet log while the cluster elects:\n%s", w.Name, lines, elapsed, w.Out.String())
		}
	}
}

// TestKilledWorkerLeavesNoProcesses: the commands running on a worker
// that dies by SIGKILL die with it, children of the shell included.
func TestKilledWorkerLeavesNoProcesses(t *testing.T) {
	if _, err := os.Stat("/proc/self/environ"); err != nil {
		t.Skip("needs /proc to find the worker's commands")
	}
	t.Parallel()
	srv := &e2e.Server{Name: "solo", Addr: fmt.Sprintf("127.0.0.1:%d", e2e.FreePort(t)), Store: t.TempDir()}
	srv.Start(t)
	w := e2e.Launch(t, "worker victim", "worker", "--nats", srv.URL(), "-j", "2", "--name", "victim", "--ack-wait", e2e.AckWait, "--grace", "200ms")
	w.WaitFor(t, "serving sh")
	b := &e2e.Batch{Dir: t.TempDir()}
	b.Input = filepath.Join(b.Dir, "input")
	os.WriteFile(b.Input, []byte("sleep 300; true\nsleep 301; true\n"), 0o644)
	run := e2e.Launch(t, "run", "run", "--nats", srv.URL(), "--progress=lines", "-a", b.Input)
	t.Cleanup(func() { run.Cmd.Process.Kill() })
	waitProcs := func(want func(n int) bool, what string) {
		t.Helper()
		deadline := time.Now().Add(testdeadline.Left(t))
		for !want(len(commandsOf("victim"))) {
			if time.Now().After(deadline) {
				t.Fatalf("%s: the worker's commands are %v", what, commandsOf("victim"))
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	waitProcs(func(n int) bool { return n >= 4 }, "two shells and their sleeps running") // two shells, two sleeps
	// While nothing finishes, a progress line every second names the
	// longest-running task and its worker.
	run.WaitFor(t, `progress: 0/2 done, 0 failed, 2 running \(longest: job [12] on victim for [0-9.]+s\)`)
	w.Signal(t, syscall.SIGKILL)
	waitProcs(func(n int) bool { return n == 0 }, "after the worker's SIGKILL")
}

// commandsOf lists the processes whose environment says they run a
// command of the named worker.
func commandsOf(worker string) []int {
	var pids []int
	ents, _ := os.ReadDir("/proc")
	mark := []byte("WORKSTEAL_WORKER=" + worker + "\x00")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err == nil && bytes.Contains(env, mark) {
			if stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat")); err == nil && isZombie(stat) {
				continue
			}
			pids = append(pids, pid)
		}
	}
	return pids
}

func isZombie(stat []byte) bool {
	sc := bufio.NewScanner(bytes.NewReader(stat))
	sc.Split(bufio.ScanWords)
	for i := 0; sc.Scan(); i++ {
		if i == 2 {
			return sc.Text() == "Z"
		}
	}
	return false
}
