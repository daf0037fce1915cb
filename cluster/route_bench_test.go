package cluster_test

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/worksteal/worksteal/cluster"
)

// BenchmarkFairShare measures the fair share between jobs (issue 11): two
// jobs of 1,000 tasks of 20 ms each, submitted 1 s apart to 2 workers of 4
// slots. Without sharing, the second job's first result would come when
// the first job ends (2.5 s of work); with it, a few task durations after
// its submission. Metrics: the second job's first result after its
// submit, in ms and in task durations (Submit's own time, publishing the
// 1,000 tasks, apart too); the first job's tasks left then;
// when each job finished, from the first submit; the second job's share
// of the tasks run while both had tasks waiting.
//
//	go test -run '^$' -bench FairShare -benchtime 1x ./cluster
func BenchmarkFairShare(b *testing.B) {
	tasks, gap, dur := 1000, time.Second, 20*time.Millisecond
	if v, err := strconv.Atoi(os.Getenv("WS_BENCH_TASKS")); err == nil && v > 0 {
		tasks = v
	}
	srv := startServer(b)
	for i := range 2 {
		serveProfile(b, connect(b, srv.ClientURL()), profile{name: fmt.Sprintf("fair%d", i), slots: 4, handlers: []string{"work"}}, int(dur/time.Millisecond), nil)
	}
	n := submitter(b, connect(b, srv.ClientURL()))
	job := func(id string) cluster.Job {
		j := cluster.Job{ID: id}
		for k := range tasks {
			j.Tasks = append(j.Tasks, cluster.Task{Handler: "work", Payload: []byte(strconv.Itoa(k))})
		}
		return j
	}
	ctx := context.Background()
	var submitMs, firstMs, leftAtFirst, aDone, bDone, shareB float64
	for i := 0; b.Loop(); i++ {
		start := time.Now()
		a, err := n.Submit(ctx, job(fmt.Sprintf("fairA%d", i)))
		if err != nil {
			b.Fatal(err)
		}
		time.Sleep(gap - time.Since(start))
		atB := time.Now()
		bs, err := n.Submit(ctx, job(fmt.Sprintf("fairB%d", i)))
		if err != nil {
			b.Fatal(err)
		}
		submitMs = float64(time.Since(atB).Microseconds()) / 1e3
		if _, err := bs.Next(ctx); err != nil {
			b.Fatal(err)
		}
		firstMs = float64(time.Since(atB).Microseconds()) / 1e3
		leftAtFirst = float64(tasks - a.Progress().Done())
		aDoneAtFirst := a.Progress().Done()
		// Both jobs wait on each other until one of them ends.
		var ra, rb []cluster.Result
		doneA, doneB := make(chan struct{}), make(chan struct{})
		go func() { ra, _ = a.Wait(ctx); close(doneA) }()
		go func() { rb, _ = bs.Wait(ctx); close(doneB) }()
		var aAt, bAt time.Duration
		for doneA != nil || doneB != nil {
			select {
			case <-doneA:
				aAt, doneA = time.Since(start), nil
				// B's share while both ran: B's results against A's since
				// B's first result.
				ranA := tasks - aDoneAtFirst
				ranB := bs.Progress().Done()
				shareB = float64(ranB) / float64(ranA+ranB)
			case <-doneB:
				bAt, doneB = time.Since(start), nil
			}
		}
		a.Stop()
		bs.Stop()
		if len(ra) != tasks || len(rb) != tasks {
			b.Fatalf("%d and %d results; want %d each", len(ra), len(rb), tasks)
		}
		aDone, bDone = aAt.Seconds(), bAt.Seconds()
	}
	b.ReportMetric(firstMs, "second-first-result-ms")
	b.ReportMetric(submitMs, "second-submit-ms")
	b.ReportMetric(firstMs/float64(dur.Milliseconds()), "second-first-result-task-durations")
	b.ReportMetric(leftAtFirst, "first-job-tasks-left-then")
	b.ReportMetric(shareB, "second-share-while-both")
	b.ReportMetric(aDone, "first-done-s")
	b.ReportMetric(bDone, "second-done-s")
}
