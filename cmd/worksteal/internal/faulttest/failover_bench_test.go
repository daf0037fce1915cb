//go:build unix

package faulttest

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/worksteal/worksteal/cluster"
	"github.com/worksteal/worksteal/cmd/worksteal/internal/e2e"
	"github.com/worksteal/worksteal/internal/bench"
	"github.com/worksteal/worksteal/internal/syncbuf"
)

// BenchmarkFailoverT1L: UTS T1L (one job of spawning uts-sha1 tasks, as
// bench cell cluster submits it) on three `worksteal worker` processes of
// 2 slots, each run on a fresh `worksteal serve`, with an ack wait of 30
// minutes (only failover moves a lost worker's work): undisturbed
// (whole-s), then with worker w1 killed with SIGKILL a third of the way in
// (killed-s, and kill-ms: from the signal to the last of w1's held tasks
// starting on another worker, from the job's results), then with w1
// stopped with SIGSTOP (stopped-s, stop-ms; it wakes up 5 s later, for
// the tasks delivered into its connection after it froze). Each run checks the tree's
// count against the reference and that no task has two outcomes.
// WORKSTEAL_FAILOVER_SIZE picks another UTS size (T1 for a quick look).
func BenchmarkFailoverT1L(b *testing.B) {
	size := cmpOr(os.Getenv("WORKSTEAL_FAILOVER_SIZE"), "T1L")
	var whole, killed, stopped, kill, stop float64
	for b.Loop() {
		whole, _ = t1lRun(b, size, 0)
		var d time.Duration
		killed, d = t1lRun(b, size, syscall.SIGKILL, whole/3)
		kill = float64(d.Milliseconds())
		stopped, d = t1lRun(b, size, syscall.SIGSTOP, whole/3)
		stop = float64(d.Milliseconds())
	}
	b.ReportMetric(whole, "whole-s")
	b.ReportMetric(killed, "killed-s")
	b.ReportMetric(stopped, "stopped-s")
	b.ReportMetric(kill, "kill-ms")
	b.ReportMetric(stop, "stop-ms")
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// benchProc is a process of the benchmark; stop ends it.
type benchProc struct {
	cmd *exec.Cmd
	out *syncbuf.Buffer
}

func benchStart(b *testing.B, args ...string) *benchProc {
	p := &benchProc{cmd: exec.Command(e2e.Bin, args...), out: &syncbuf.Buffer{}}
	p.cmd.Stdout, p.cmd.Stderr = p.out, p.out
	if err := p.cmd.Start(); err != nil {
		b.Fatal(err)
	}
	return p
}

func (p *benchProc) waitFor(b *testing.B, re string) {
	rx := regexp.MustCompile(re)
	for end := time.Now().Add(time.Minute); !rx.MatchString(p.out.String()); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(end) {
			b.Fatalf("%v did not print %q:\n%s", p.cmd.Args, re, p.out.String())
		}
	}
}

func (p *benchProc) stop() {
	p.cmd.Process.Signal(syscall.SIGCONT)
	p.cmd.Process.Kill()
	p.cmd.Wait()
}

// t1lRun runs the tree once, submitted from here (as bench cell cluster
// does, keeping the results); with sig, it hits w1 after secs[0] seconds
// and also returns the time from the signal to the last of w1's held
// tasks starting on another worker (the results' start of each task
// delivered more than once).
func t1lRun(b *testing.B, size string, sig syscall.Signal, secs ...float64) (makespan float64, moved time.Duration) {
	dir := b.TempDir()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	url := fmt.Sprintf("nats://127.0.0.1:%d", port)
	srv := benchStart(b, "serve", "--listen", fmt.Sprintf("127.0.0.1:%d", port), "--store", dir, "--name", "bench")
	defer srv.stop()
	srv.waitFor(b, `JetStream on`)
	var ws []*benchProc
	for i := 1; i <= 3; i++ {
		w := benchStart(b, "worker", "--nats", url, "-j", "2", "--name", "w"+strconv.Itoa(i), "--ack-wait", "30m")
		defer w.stop()
		w.waitFor(b, "serving")
		ws = append(ws, w)
	}
	time.Sleep(time.Second) // the workers' hellos: each watches its peers
	nc, err := nats.Connect(url)
	if err != nil {
		b.Fatal(err)
	}
	defer nc.Close()
	node, err := cluster.New(nc, cluster.WithAckWait(30*time.Minute))
	if err != nil {
		b.Fatal(err)
	}
	if err := node.Reduce("uts-sha1", bench.UTSCombine); err != nil {
		b.Fatal(err)
	}
	root, err := bench.UTSRootTask(size, 4)
	if err != nil {
		b.Fatal(err)
	}
	want, hasWant, _ := bench.Reference("uts-sha1", size)
	ctx := context.Background()
	began := time.Now()
	sub, err := node.Submit(ctx, cluster.Job{ID: "t1l", Reduce: "uts-sha1", Tasks: []cluster.Task{{ID: "root", Handler: "uts-sha1", Payload: root}}})
	if err != nil {
		b.Fatal(err)
	}
	defer sub.Stop()
	var hit time.Time
	if sig != 0 {
		time.Sleep(time.Duration(secs[0] * float64(time.Second)))
		hit = time.Now()
		ws[0].cmd.Process.Signal(sig)
		if sig == syscall.SIGSTOP {
			// Tasks delivered into the frozen worker's connection after
			// it froze are in no held list (see cluster's "Failover"):
			// they wait for it. It wakes up 5 s later.
			wake := time.AfterFunc(5*time.Second, func() { ws[0].cmd.Process.Signal(syscall.SIGCONT) })
			defer wake.Stop()
		}
	}
	rs, err := sub.Wait(ctx)
	makespan = time.Since(began).Seconds()
	if err != nil {
		b.Fatal(err)
	}
	v, _, err := sub.Value()
	if err != nil {
		b.Fatal(err)
	}
	if got, err := bench.UTSCount(v); err != nil || (hasWant && got != want) {
		b.Fatalf("%s counted %v (%v); want %v", size, got, err, want)
	}
	seen, movedN := map[string]bool{}, 0
	for _, r := range rs {
		if seen[r.Task] {
			b.Fatalf("task %s has two outcomes", r.Task)
		}
		seen[r.Task] = true
		if sig != 0 && r.Deliveries > 1 && r.Worker != "w1" && r.Start.After(hit) {
			moved = max(moved, r.Start.Sub(hit))
			movedN++
		}
	}
	b.Logf("%s sig=%v: makespan %.3f s, %d tasks, %d of w1's running elsewhere within %v; load %s", size, sig, makespan, len(rs), movedN, moved, loadavg())
	if sig != 0 && moved == 0 {
		b.Logf("%s sig=%v: no task of w1 was delivered again (it held none?)", size, sig)
	}
	return makespan, moved
}

func loadavg() string {
	data, _ := os.ReadFile("/proc/loadavg")
	return strings.Join(strings.Fields(string(data))[:3], " ")
}
