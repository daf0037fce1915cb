package cluster_test

import (
	"context"
	"sync"
	"testing"

	"github.com/worksteal/worksteal/cluster"
	"github.com/worksteal/worksteal/internal/clusterops"
)

// A task whose result is recorded is acked without running again when it
// is delivered again: here its worker's acks are lost (a proxy drops
// them), so the server delivers the finished task again after the ack
// wait, to a second worker, which must not run its handler (the result
// bucket's create-once write would discard a rerun's result, so only the
// runs show it).
func TestRecordedTaskIsAckedWithoutRunningAgain(t *testing.T) {
	srv := startServer(t)
	var mu sync.Mutex
	runs := map[string]int{}
	release := make(chan struct{})
	handler := func(ctx context.Context, p []byte) ([]byte, error) {
		info, _ := cluster.TaskOf(ctx)
		mu.Lock()
		runs[info.Task]++
		mu.Unlock()
		if string(p) == "hold" {
			select {
			case <-release:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		return p, nil
	}
	start := func(url, name string, slots int) *cluster.Node {
		n, err := cluster.New(connect(t, url), testOptions(cluster.WithName(name), cluster.WithSlots(slots))...)
		if err != nil {
			t.Fatal(err)
		}
		n.Handle("count", handler)
		startServing(t, n)
		return n
	}
	// Worker a's acks and heartbeats never reach the server.
	a := start(dropProxy(t, srv.Addr().String(), "$JS.ACK."), "a", 1)
	waitFor(t, "worker a's registration", func() bool { ws, _ := clusterops.Workers(context.Background(), a); return len(ws) == 1 })
	sub, err := submitter(t, connect(t, srv.ClientURL())).Submit(context.Background(), cluster.Job{ID: "acked", Tasks: []cluster.Task{
		{ID: "quick", Handler: "count", Payload: []byte("quick")},
		{ID: "held", Handler: "count", Payload: []byte("hold")},
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Stop()
	waitFor(t, "the quick task's result", func() bool { return sub.Progress().Succeeded == 1 })
	// b gets both again after the ack wait: the finished one is acked
	// unrun, the held one runs.
	b := start(srv.ClientURL(), "b", 2)
	waitFor(t, "b's delivery of the recorded task", func() bool { return clusterops.StatsOf(b).Duplicates >= 1 })
	close(release)
	waitJob(t, sub)
	mu.Lock()
	defer mu.Unlock()
	if runs["quick"] != 1 {
		t.Errorf("the recorded task's handler ran %d times; want 1 (a delivery after its result was recorded must ack it unrun)", runs["quick"])
	}
	if st := clusterops.StatsOf(b); st.Redelivered < 1 {
		t.Errorf("worker b's stats %+v: want the redelivered task counted", st)
	}
}
