package cluster_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/worksteal/worksteal/cluster"
)

// TestCheckpointsGoThroughTheRecorderAndSurviveFailover: a worker with the
// worker role (which may not write the checkpoints bucket) saves its
// task's checkpoint through the recorder; its connection is closed mid
// task; the other worker's failover has the recorder hand the task back,
// and its run resumes from that checkpoint. Once the result is recorded
// the recorder has purged the checkpoint, and neither worker was refused
// anything by the server.
func TestCheckpointsGoThroughTheRecorderAndSurviveFailover(t *testing.T) {
	e := newSecureEnv(t)
	srv := startSecureServer(t, e, false)
	url := srv.ClientURL()
	subNC, _ := e.connectAs(t, url, cluster.RoleSubmitter)
	sub, err := cluster.New(subNC, testOptions(cluster.WithRole(cluster.RoleSubmitter))...)
	if err != nil {
		t.Fatal(err)
	}
	// resume saves "<worker>" as its checkpoint and waits for ever on a
	// first run; a run that finds a checkpoint returns it.
	resume := func(ctx context.Context, _ []byte) ([]byte, error) {
		prev, err := cluster.LoadCheckpoint(ctx)
		if err != nil || prev != nil {
			return append([]byte("resumed from "), prev...), err
		}
		info, _ := cluster.TaskOf(ctx)
		if err := cluster.SaveCheckpoint(ctx, []byte(info.Worker)); err != nil {
			return nil, err
		}
		<-ctx.Done()
		return nil, ctx.Err()
	}
	var refusals []*violations
	worker := func(name string) (closeConn func()) {
		nc, v := e.connectAs(t, url, cluster.RoleWorker)
		refusals = append(refusals, v)
		n, err := cluster.New(nc, testOptions(cluster.WithRole(cluster.RoleWorker), cluster.WithSlots(1), cluster.WithName(name))...)
		if err != nil {
			t.Fatal(err)
		}
		if err := n.Handle("resume", resume); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { defer close(done); n.Serve(ctx) }()
		t.Cleanup(func() { cancel(); <-done })
		return nc.Close
	}
	closeW1 := worker("w1")

	s, err := sub.Submit(context.Background(), cluster.Job{ID: "ck", Tasks: []cluster.Task{{ID: "t", Handler: "resume"}}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	adminNC, _ := e.connectAs(t, url, "")
	js, _ := jetstream.New(adminNC)
	kv, err := js.KeyValue(context.Background(), "ws_checkpoints")
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "w1's checkpoint of ck.t, saved by the recorder", func() bool {
		e, err := kv.Get(context.Background(), "ck.t")
		return err == nil && string(e.Value()) == "w1"
	})
	worker("w2")
	closeW1() // w1 is gone: w2's failover, through the recorder, hands its task back
	rs := waitJob(t, s)
	if len(rs) != 1 || !rs[0].OK() || string(rs[0].Output) != "resumed from w1" || rs[0].Worker != "w2" {
		t.Fatalf("results %+v; want w2's run resumed from w1's checkpoint", rs)
	}
	// The recorder purges it just after the create that Wait saw.
	waitFor(t, "the recorder to purge the checkpoint of ck.t after its result", func() bool {
		_, err := kv.Get(context.Background(), "ck.t")
		return errors.Is(err, jetstream.ErrKeyNotFound)
	})
	for i, v := range refusals {
		for _, e := range v.all() {
			if strings.Contains(strings.ToLower(e), "permission") {
				t.Errorf("worker %d was refused: %s", i+1, e)
			}
		}
	}
}
