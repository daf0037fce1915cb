//go:build unix

package cluster_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/worksteal/worksteal/cluster"
	"github.com/worksteal/worksteal/internal/clusterops"
)

// BenchmarkFailover: three worker processes of 4 slots with an ack wait
// of 30 minutes, so that only failover (the package doc, "Failover")
// moves a lost worker's tasks. Each iteration runs a "tree" job (depth 3,
// fanout 4, 200 ms nodes) and hits the worker that runs its root, once
// with SIGKILL and once with SIGSTOP, half a second after the root
// started there; kill-ms and stop-ms are the times from the signal to the
// root starting on another worker. Then a spin tree (3 s of 1 ms leaves)
// runs undisturbed (whole-ms) and with one worker killed a third of the
// way in (killed-ms), on fresh workers.
func BenchmarkFailover(b *testing.B) {
	srv := startServer(b)
	n := submitter(b, connect(b, srv.ClientURL()), cluster.WithAckWait(30*time.Minute))
	if _, err := clusterops.Jobs(context.Background(), n); err != nil { // the deployment's ack wait: 30 min
		b.Fatal(err)
	}
	os.Setenv(envAck, "30m")
	defer os.Unsetenv(envAck)
	var kill, stop, whole, killed float64
	for i := 0; b.Loop(); i++ {
		kill = float64(failoverOnce(b, srv.ClientURL(), n, fmt.Sprintf("fk%d", i), syscall.SIGKILL).Milliseconds())
		stop = float64(failoverOnce(b, srv.ClientURL(), n, fmt.Sprintf("fs%d", i), syscall.SIGSTOP).Milliseconds())
		ws := startSpinWorkers(b, srv.ClientURL(), 3)
		base, _ := runSpin(b, n, fmt.Sprintf("fw%d", i), 3000, 1000, nil)
		lost, _ := runSpin(b, n, fmt.Sprintf("fl%d", i), 3000, 1000, func() {
			time.Sleep(base / 3)
			ws[i%len(ws)].Process.Signal(syscall.SIGKILL)
		})
		for _, c := range ws {
			c.Process.Kill()
			c.Wait()
		}
		whole, killed = float64(base.Milliseconds()), float64(lost.Milliseconds())
	}
	b.ReportMetric(kill, "kill-ms")
	b.ReportMetric(stop, "stop-ms")
	b.ReportMetric(whole, "whole-ms")
	b.ReportMetric(killed, "killed-ms")
}

// failoverOnce runs one tree on three fresh worker processes, hits the
// root's worker with sig, and returns the time until the root starts on
// another worker; the tree must still count every node.
func failoverOnce(b *testing.B, url string, n *cluster.Node, id string, sig syscall.Signal) time.Duration {
	b.Helper()
	starts := make([]chan string, 3)
	ws := make([]*exec.Cmd, 3)
	for k := range ws {
		starts[k] = make(chan string, 10000)
		ws[k] = startWorkerProcess(b, url, fmt.Sprintf("%s-w%d", id, k), starts[k])
	}
	defer func() {
		for _, c := range ws {
			c.Process.Signal(syscall.SIGCONT)
			c.Process.Kill()
			c.Wait()
		}
	}()
	// The watchers settle first: the registry still lists the workers of
	// the last round for 15 s, and a watcher finds them gone (their
	// connections closed) before it watches a live peer; a peer frozen
	// before any watcher heard its held list is left to the ack wait.
	time.Sleep(2 * time.Second)
	s, err := n.Submit(context.Background(), treeJob(id, 3, 4, 200))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Stop()
	isRoot := func(line string) bool { return strings.HasPrefix(line, "start root ") }
	victim := -1
	for victim < 0 {
		select {
		case l := <-starts[0]:
			if isRoot(l) {
				victim = 0
			}
		case l := <-starts[1]:
			if isRoot(l) {
				victim = 1
			}
		case l := <-starts[2]:
			if isRoot(l) {
				victim = 2
			}
		case <-time.After(time.Minute):
			b.Fatal("the root did not start")
		}
	}
	time.Sleep(500 * time.Millisecond)
	ws[victim].Process.Signal(sig)
	hit := time.Now()
	var moved time.Duration
	for moved == 0 {
		select {
		case l := <-starts[(victim+1)%3]:
			if isRoot(l) {
				moved = time.Since(hit)
			}
		case l := <-starts[(victim+2)%3]:
			if isRoot(l) {
				moved = time.Since(hit)
			}
		case <-time.After(2 * time.Minute):
			b.Fatalf("the root did not start elsewhere after %v", sig)
		}
	}
	if sig == syscall.SIGSTOP {
		ws[victim].Process.Signal(syscall.SIGCONT) // what it took in after it froze
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if _, err := s.Wait(ctx); err != nil {
		b.Fatal(err)
	}
	if v, _, _ := s.Value(); string(v) != fmt.Sprint(treeSize(3, 4)) {
		b.Fatalf("value %q; want %d nodes", v, treeSize(3, 4))
	}
	return moved
}
