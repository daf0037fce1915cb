package main

import (
	"fmt"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// longAck is an ack wait no test waits out: a task of a lost worker that
// runs again before the test's end was handed back by failover (the
// package doc of cluster, "Failover"), not by the ack wait.
const longAck = "30m"

// deploymentAck is deployment with ack wait ack.
func deploymentAck(t *testing.T, ack string) (*server, []*process) {
	srv := &server{name: "solo", addr: fmt.Sprintf("127.0.0.1:%d", freePort(t)), store: t.TempDir()}
	srv.start(t)
	var workers []*process
	for i := 1; i <= 3; i++ {
		w := launch(t, fmt.Sprintf("worker w%d", i), "worker", "--nats", srv.url(), "-j", "4", "--name", fmt.Sprintf("w%d", i), "--ack-wait", ack)
		w.waitFor(t, "serving sh")
		workers = append(workers, w)
	}
	return srv, workers
}

// failoverTree runs a shell tree with an ack wait of 30 minutes, hits the
// worker that holds the root with sig a third of the way in, and checks
// that the tree still ends exact (each node's value counted once, the
// root's outcome recorded once), and that a surviving worker said it
// handed the lost worker's tasks back, for why.
func failoverTree(t *testing.T, sig syscall.Signal, why string) {
	srv, workers := deploymentAck(t, longAck)
	tr := newTreeRun(t, 3, 4)
	run := launch(t, "run", "run", "--nats", srv.url(), "--ack-wait", longAck, "--reduce", "sum", "--summary", "-a", tr.input)
	tr.waitRuns(t, len(tr.ids())/3, run)
	victim := tr.rootWorker(t)
	workers[victim].signal(t, sig)
	if sig == syscall.SIGSTOP {
		defer workers[victim].cmd.Process.Signal(syscall.SIGCONT)
	}
	if sig == syscall.SIGSTOP {
		// What it held runs elsewhere while it is stopped: its root runs
		// again on another worker. (Tasks delivered into its connection
		// after it froze wait for it: it wakes up now.)
		deadline, _ := t.Deadline()
		for {
			if ws := tr.runs()["1"]; len(ws) > 1 && ws[len(ws)-1] != fmt.Sprintf("w%d", victim+1) {
				break
			}
			if time.Now().After(deadline.Add(-30 * time.Second)) {
				t.Fatalf("the stopped worker's root did not run elsewhere: %v", tr.runs()["1"])
			}
			time.Sleep(20 * time.Millisecond)
		}
		workers[victim].signal(t, syscall.SIGCONT)
	}
	tr.check(t, run) // waits for run: a 30-minute ack wait would fail it
	said := false
	for i, w := range workers {
		if i != victim && strings.Contains(w.out.String(), "lost ("+why) {
			said = true
		}
	}
	if !said {
		t.Errorf("no surviving worker said it handed w%d's tasks back (%s)", victim+1, why)
	}
	if m := regexp.MustCompile(`jobs (\d+): (\d+) succeeded, 0 failed`).FindStringSubmatch(run.out.String()); m == nil || m[1] != m[2] {
		t.Errorf("the summary does not show every task succeeded, once:\n%s", run.out.String())
	}
}

// TestFailoverKilledWorker: kill -9 of the worker holding a tree's root;
// its tasks run elsewhere as soon as a watcher finds its connection gone.
func TestFailoverKilledWorker(t *testing.T) {
	t.Parallel()
	failoverTree(t, syscall.SIGKILL, "its connection closed")
}

// TestFailoverFrozenWorker: SIGSTOP of the worker holding a tree's root;
// its tasks run elsewhere once it has missed three heartbeats, and when
// it wakes up its copy's outcome is discarded.
func TestFailoverFrozenWorker(t *testing.T) {
	t.Parallel()
	failoverTree(t, syscall.SIGSTOP, "silent for 3 heartbeats")
}
