package cluster_test

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/worksteal/worksteal/cluster"

	"github.com/worksteal/worksteal/internal/proctest"
)

// BenchmarkThroughput measures trivial tasks per second end to end through
// the embedded server (file storage, as worksteal serve) with 2 workers:
// submit, pull, run, record the result exactly once, ack, and see the
// result at the submitter. The raw JetStream publish-and-ack path is the
// ceiling (32-51 k/s on a small machine).
//
//	WS_BENCH_TASKS=10000 go test -run '^$' -bench Throughput -benchtime 1x ./cluster
func BenchmarkThroughput(b *testing.B) {
	tasks := 10000
	if v, err := strconv.Atoi(os.Getenv("WS_BENCH_TASKS")); err == nil && v > 0 {
		tasks = v
	}
	slots := 16
	if v, err := strconv.Atoi(os.Getenv("WS_BENCH_SLOTS")); err == nil && v > 0 {
		slots = v
	}
	srv := startServer(b)
	for i := range 2 {
		serve(b, connect(b, srv.ClientURL()), cluster.WithSlots(slots), cluster.WithName(fmt.Sprintf("bench%d", i)))
	}
	n, err := cluster.New(connect(b, srv.ClientURL()), testOptions()...)
	if err != nil {
		b.Fatal(err)
	}
	var rate, cpuPerTask float64
	for i := 0; b.Loop(); i++ {
		job := cluster.Job{ID: fmt.Sprintf("bench%d", i)}
		for k := range tasks {
			job.Tasks = append(job.Tasks, cluster.Task{Handler: "upper", Payload: []byte("task " + strconv.Itoa(k))})
		}
		start, cpu0 := time.Now(), proctest.CPUTime()
		s, err := n.Submit(context.Background(), job)
		if err != nil {
			b.Fatal(err)
		}
		rs, err := s.Wait(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		elapsed, cpu := time.Since(start), proctest.CPUTime()-cpu0
		s.Stop()
		if len(rs) != tasks {
			b.Fatalf("%d results; want %d", len(rs), tasks)
		}
		rate = float64(tasks) / elapsed.Seconds()
		cpuPerTask = float64(cpu.Microseconds()) / float64(tasks)
	}
	// On a shared machine the wall-clock rate depends on the neighbours;
	// the CPU time per task (server, workers and submitter together: they
	// share this process) does not, and bounds the rate on idle cores.
	b.ReportMetric(rate, "tasks/s")
	b.ReportMetric(cpuPerTask, "cpu-µs/task")
	b.ReportMetric(float64(runtime.NumCPU())*1e6/cpuPerTask, "tasks/s-cpu-bound")
}

// BenchmarkRedelivery measures the time from a worker's death (SIGKILL) to
// its task running on another worker, against the ack deadline (2s here).
func BenchmarkRedelivery(b *testing.B) {
	srv := startServer(b)
	n, err := cluster.New(connect(b, srv.ClientURL()), testOptions()...)
	if err != nil {
		b.Fatal(err)
	}
	var worst, sum time.Duration
	runs := 0
	for i := 0; b.Loop(); i++ {
		starts := make(chan string, 16)
		victim := startWorkerProcess(b, srv.ClientURL(), fmt.Sprintf("victim%d", i), starts)
		s, err := n.Submit(context.Background(), slowJob(fmt.Sprintf("redeliver%d", i), 1, 1500))
		if err != nil {
			b.Fatal(err)
		}
		<-starts // the victim runs the task
		survivor := startWorkerProcess(b, srv.ClientURL(), fmt.Sprintf("survivor%d", i), starts)
		killed := time.Now()
		victim.Process.Signal(syscall.SIGKILL)
		victim.Wait()
		line := <-starts // the survivor starts it again
		d := time.Since(killed)
		if !strings.HasPrefix(line, "start ") {
			b.Fatalf("unexpected %q", line)
		}
		s.Wait(context.Background())
		s.Stop()
		survivor.Process.Kill()
		survivor.Wait()
		worst = max(worst, d)
		sum += d
		runs++
	}
	b.ReportMetric(float64(sum.Milliseconds())/float64(runs), "ms-to-rerun")
	b.ReportMetric(float64(worst.Milliseconds()), "ms-worst")
	b.ReportMetric(2000, "ms-ack-wait")
}
