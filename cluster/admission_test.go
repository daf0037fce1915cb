package cluster_test

import (
	"context"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/worksteal/worksteal/cluster"
)

// TestAdmissionWithholdsTasks: a worker whose admission says no (the
// machine is loaded: worksteal worker --load, --memfree) takes no task,
// however long the queue waits; once it says yes again, it takes them all.
func TestAdmissionWithholdsTasks(t *testing.T) {
	srv := startServer(t)
	var admitted atomic.Bool
	var asked atomic.Int64
	serve(t, connect(t, srv.ClientURL()), cluster.WithSlots(2), cluster.WithName("gated"),
		cluster.WithAdmission(func() bool { asked.Add(1); return admitted.Load() }))
	n := submitter(t, connect(t, srv.ClientURL()))
	job := cluster.Job{ID: "gated"}
	for i := range 6 {
		job.Tasks = append(job.Tasks, cluster.Task{ID: "t" + strconv.Itoa(i), Handler: "upper", Payload: []byte("x")})
	}
	s, err := n.Submit(context.Background(), job)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	// The worker asks several times (every 250 ms) and is refused each time.
	waitFor(t, "the worker to ask for admission 4 times (or to run a task)", func() bool {
		return asked.Load() >= 4 || s.Progress().Done() > 0
	})
	if p := s.Progress(); p.Done() != 0 {
		t.Fatalf("%d tasks done while the worker's admission said no", p.Done())
	}
	admitted.Store(true)
	rs := waitJob(t, s)
	if len(rs) != 6 {
		t.Fatalf("%d results; want 6", len(rs))
	}
	for _, r := range rs {
		if !r.OK() || r.Worker != "gated" {
			t.Errorf("result %+v; want OK on the gated worker", r)
		}
	}
}
