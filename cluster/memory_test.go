package cluster_test

import (
	"context"
	"errors"
	"runtime"
	"strconv"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"github.com/worksteal/worksteal/cluster"
	"github.com/worksteal/worksteal/internal/testdeadline"
)

// A Submission keeps no result that Next has returned: the outputs the
// caller consumed and dropped are collected while the Submission lives
// on (its memory is bounded by what the caller has not consumed, not by
// the job; BenchmarkSubmitterMemory measures it for 100,000 tasks).
func TestSubmissionKeepsNoConsumedResult(t *testing.T) {
	srv := startServer(t)
	serve(t, connect(t, srv.ClientURL()), cluster.WithSlots(4))
	n := submitter(t, connect(t, srv.ClientURL()))
	const tasks, size = 200, 8 << 10
	job := cluster.Job{ID: "consumed", Tasks: make([]cluster.Task, tasks)}
	for i := range job.Tasks {
		job.Tasks[i] = cluster.Task{Handler: "bulk", Payload: []byte(strconv.Itoa(size))}
	}
	s, err := n.Submit(context.Background(), job)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	var collected atomic.Int64
	ctx, cancel := context.WithTimeout(context.Background(), testdeadline.Left(t))
	defer cancel()
	for got := 0; ; got++ {
		r, err := s.Next(ctx)
		if errors.Is(err, cluster.ErrNoMoreResults) {
			if got != tasks {
				t.Fatalf("%d results, want %d", got, tasks)
			}
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Output) != size {
			t.Fatalf("result %s: %d bytes, %q", r.Task, len(r.Output), r.Error)
		}
		runtime.AddCleanup(unsafe.SliceData(r.Output), func(int) { collected.Add(1) }, 0)
	}
	for range 50 {
		runtime.GC()
		if collected.Load() == tasks {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if c := collected.Load(); c < tasks*9/10 {
		t.Errorf("%d of the %d outputs consumed through Next were collected; the Submission keeps the others", c, tasks)
	}
	if p := s.Progress(); p.Succeeded != tasks || len(s.Results()) != 0 {
		t.Errorf("progress %+v, %d results kept; want %d succeeded and none kept", p, len(s.Results()), tasks)
	}
}
