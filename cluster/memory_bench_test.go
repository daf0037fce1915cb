package cluster_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/worksteal/worksteal/cluster"
)

// BenchmarkSubmitterMemory measures the peak resident memory of a
// submitter that follows a job of many tasks with large outputs through
// Next, consuming each result as it comes: what it keeps must be bounded
// by what it has not consumed, not by the job. The server and two workers
// of 4 slots run in processes of their own; the submitter is this process,
// whose peak RSS (VmHWM, reset before the job) is reported, with its
// resident memory before the job (base-RSS-MiB).
//
//	WS_MEM_TASKS=100000 WS_MEM_OUTPUT=10240 go test -run '^$' -bench SubmitterMemory -benchtime 1x ./cluster
func BenchmarkSubmitterMemory(b *testing.B) {
	tasks, size := envInt("WS_MEM_TASKS", 100000), envInt("WS_MEM_OUTPUT", 10240)
	srv := startServerProcess(b, newSecureEnv(b), false, false)
	startWorkerProcess(b, srv.url, "m1", nil)
	startWorkerProcess(b, srv.url, "m2", nil)
	n := submitter(b, connect(b, srv.url), cluster.WithDefaultTimeout(60*time.Second))
	payload := []byte(strconv.Itoa(size))
	job := cluster.Job{Tasks: make([]cluster.Task, tasks)}
	for i := range job.Tasks {
		job.Tasks[i] = cluster.Task{Handler: "bulk", Payload: payload}
	}
	var base, peak float64
	for i := 0; b.Loop(); i++ {
		base = rssMiB(b, "VmRSS")
		os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) // resets VmHWM
		job.ID = "mem" + strconv.Itoa(i)
		start := time.Now()
		s, err := n.Submit(context.Background(), job)
		if err != nil {
			b.Fatal(err)
		}
		got, bytesOut := 0, 0
		for {
			r, err := s.Next(context.Background())
			if errors.Is(err, cluster.ErrNoMoreResults) {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			if !r.OK() || len(r.Output) != size {
				b.Fatalf("result %s: %q, %d bytes", r.Task, r.Error, len(r.Output))
			}
			got++
			bytesOut += len(r.Output)
		}
		s.Stop()
		peak = rssMiB(b, "VmHWM")
		b.ReportMetric(float64(tasks)/time.Since(start).Seconds(), "tasks/s")
		if got != tasks {
			b.Fatalf("%d results, want %d", got, tasks)
		}
		b.Logf("%d tasks, %d MiB of output consumed", got, bytesOut>>20)
	}
	b.ReportMetric(peak, "peak-RSS-MiB")
	b.ReportMetric(base, "base-RSS-MiB")
}

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

// rssMiB reads a memory field of /proc/self/status, in MiB.
func rssMiB(b *testing.B, field string) float64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		b.Skip("no /proc/self/status on this system")
	}
	for _, line := range bytes.Split(data, []byte("\n")) {
		if v, ok := bytes.CutPrefix(line, []byte(field+":")); ok {
			kb, _ := strconv.Atoi(string(bytes.Fields(v)[0]))
			return float64(kb) / 1024
		}
	}
	b.Fatalf("no %s in /proc/self/status", field)
	return 0
}
