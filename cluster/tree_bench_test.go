package cluster_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/worksteal/worksteal/cluster"
	"github.com/worksteal/worksteal/internal/clusterops"
)

// Benchmarks of trees (tasks that spawn tasks). Timing claims live here,
// not in tests; run them on a quiet machine and say its load:
//
//	go test -run '^$' -bench Tree -benchtime 3x ./cluster

// spinJob is a spin tree over leaves leaves of us microseconds each.
func spinJob(id string, leaves, us int) cluster.Job {
	return cluster.Job{ID: id, Reduce: "sum", Tasks: []cluster.Task{{ID: "root", Handler: "spin", Payload: fmt.Appendf(nil, "0,%d,%d", leaves, us)}}}
}

// startSpinWorkers starts k worker processes of one slot each (the test
// binary in the worker role, GOMAXPROCS 1).
func startSpinWorkers(b *testing.B, url string, k int) []*exec.Cmd {
	b.Helper()
	os.Setenv(envSlots, "1")
	os.Setenv("GOMAXPROCS", "1")
	defer os.Unsetenv(envSlots)
	defer os.Unsetenv("GOMAXPROCS")
	var ws []*exec.Cmd
	for i := range k {
		ws = append(ws, startWorkerProcess(b, url, fmt.Sprintf("p%d", i), nil))
	}
	return ws
}

// runSpin runs one spin tree and checks its count; it returns the
// makespan and the tasks handed over.
func runSpin(b *testing.B, n *cluster.Node, id string, leaves, us int, during func()) (time.Duration, int) {
	b.Helper()
	start := time.Now()
	s, err := n.Submit(context.Background(), spinJob(id, leaves, us))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Stop()
	if during != nil {
		during()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if _, err := s.Wait(ctx); err != nil {
		b.Fatal(err)
	}
	elapsed := time.Since(start)
	if v, _, err := s.Value(); err != nil || string(v) != strconv.Itoa(spinNodes(leaves)) {
		b.Fatalf("value %q, %v; want %d nodes", v, err, spinNodes(leaves))
	}
	return elapsed, s.Progress().Spawned
}

// BenchmarkTreeGrain: a tree of fixed work (1 s of spinning leaves in
// all) at several leaf sizes, on 3 worker processes of one slot; the
// efficiency is the work over (cores × makespan), cores = min(3, CPUs);
// %of-local is the time the same leaves take spun by cores goroutines of
// one process, right after, over the makespan (on a shared machine, the
// efficiency against what the machine gave). Task Bench's METG is the
// smallest leaf size at 50 % efficiency.
func BenchmarkTreeGrain(b *testing.B) {
	srv := startServer(b)
	startSpinWorkers(b, srv.ClientURL(), 3)
	n := submitter(b, connect(b, srv.ClientURL()))
	cores := min(3, runtime.NumCPU())
	// -count N runs each sub-benchmark N times on this one server: every
	// run needs a job of its own (a job id already done resumes at once).
	runs := 0
	for _, us := range []int{10, 30, 100, 300, 1000} {
		b.Run(fmt.Sprintf("leaf=%dus", us), func(b *testing.B) {
			leaves := int(time.Second / (time.Duration(us) * time.Microsecond))
			var eff, local, handed float64
			runs++
			for i := 0; b.Loop(); i++ {
				d, h := runSpin(b, n, fmt.Sprintf("grain%d-%d-%d", us, runs, i), leaves, us, nil)
				// The same leaves spun by cores goroutines of this process,
				// right after: what the machine gives now, without the tier.
				start := time.Now()
				var wg sync.WaitGroup
				for c := range cores {
					wg.Go(func() {
						for range leaves/cores + min(1, max(0, leaves%cores-c)) {
							spin(time.Duration(us) * time.Microsecond)
						}
					})
				}
				wg.Wait()
				eff = float64(time.Second) / (float64(cores) * float64(d))
				local = float64(time.Since(start)) / float64(d)
				handed = float64(h)
			}
			b.ReportMetric(eff*100, "%efficiency")
			b.ReportMetric(local*100, "%of-local")
			b.ReportMetric(handed, "handed")
		})
	}
}

// BenchmarkTreeBusyMessages: two in-process workers of 2 slots, each
// given its own tree, so both stay busy until the ends; messages per
// spawned task = (tasks handed over + idle signals) / children spawned.
func BenchmarkTreeBusyMessages(b *testing.B) {
	srv := startServer(b)
	w1 := serve(b, connect(b, srv.ClientURL()), cluster.WithSlots(2), cluster.WithName("busy1"))
	w2 := serve(b, connect(b, srv.ClientURL()), cluster.WithSlots(2), cluster.WithName("busy2"))
	n := submitter(b, connect(b, srv.ClientURL()))
	var perTask float64
	for i := 0; b.Loop(); i++ {
		s1, s2 := clusterops.StatsOf(w1), clusterops.StatsOf(w2)
		job := spinJob(fmt.Sprintf("busy-%d", i), 4000, 100)
		job.Tasks = append(job.Tasks, cluster.Task{ID: "root2", Handler: "spin", Payload: []byte("0,4000,100")})
		s, err := n.Submit(context.Background(), job)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := s.Wait(context.Background()); err != nil {
			b.Fatal(err)
		}
		s.Stop()
		e1, e2 := clusterops.StatsOf(w1), clusterops.StatsOf(w2)
		spawned := e1.Spawned - s1.Spawned + e2.Spawned - s2.Spawned
		msgs := e1.Spilled - s1.Spilled + e2.Spilled - s2.Spilled + e1.IdleSignals - s1.IdleSignals + e2.IdleSignals - s2.IdleSignals
		perTask = float64(msgs) / float64(spawned)
	}
	b.ReportMetric(perTask, "msgs/spawned-task")
}

// BenchmarkTreeWorkerKilled: a spin tree (3 s of 1 ms leaves) on 3 worker
// processes of one slot; in each iteration the run is timed whole, then
// again with one of the workers (all busy by then) killed (SIGKILL) a
// third of the way in. lost-ms is the difference; the ack wait is 2 s.
func BenchmarkTreeWorkerKilled(b *testing.B) {
	srv := startServer(b)
	n := submitter(b, connect(b, srv.ClientURL()))
	var lost, whole float64
	for i := 0; b.Loop(); i++ {
		ws := startSpinWorkers(b, srv.ClientURL(), 3)
		base, _ := runSpin(b, n, fmt.Sprintf("whole-%d", i), 3000, 1000, nil)
		killed, _ := runSpin(b, n, fmt.Sprintf("killed-%d", i), 3000, 1000, func() {
			time.Sleep(base / 3)
			ws[i%len(ws)].Process.Signal(syscall.SIGKILL) // it holds subtrees: every worker is busy by then
		})
		for _, c := range ws {
			c.Process.Kill()
			c.Wait()
		}
		lost, whole = float64((killed - base).Milliseconds()), float64(base.Milliseconds())
	}
	b.ReportMetric(whole, "whole-ms")
	b.ReportMetric(lost, "lost-ms")
}
