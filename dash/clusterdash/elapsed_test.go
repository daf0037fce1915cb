package clusterdash_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/worksteal/worksteal/cluster"
	"github.com/worksteal/worksteal/internal/clusterobs"
	"github.com/worksteal/worksteal/internal/clusterops"
)

// TestElapsedEndsWithAJobItNeverSaw: a Go job of one 60 ms task runs,
// its submitter waits and stops, and only then does an observer start:
// it never sees the job's results, yet the job's elapsed time ends with
// the job (its record's end) instead of growing with the clock.
func TestElapsedEndsWithAJobItNeverSaw(t *testing.T) {
	srv := startAuthServer(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var served sync.WaitGroup
	defer served.Wait()
	defer cancel()
	w, err := cluster.New(connectAs(t, srv, "admin", "admin-secret"), cluster.WithName("a"))
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Handle("nap", func(context.Context, []byte) ([]byte, error) {
		time.Sleep(60 * time.Millisecond)
		return []byte("ok"), nil
	}); err != nil {
		t.Fatal(err)
	}
	served.Go(func() { w.Serve(ctx) })

	submitter, err := cluster.New(connectAs(t, srv, "admin", "admin-secret"))
	if err != nil {
		t.Fatal(err)
	}
	began := time.Now()
	var sub *cluster.Submission
	waitUntil(t, "the submission", func() bool {
		sub, err = submitter.Submit(ctx, cluster.Job{ID: "short", Tasks: []cluster.Task{{Handler: "nap"}}})
		return err == nil
	})
	if _, err := sub.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	sub.Stop()
	took := time.Since(began)

	onc := connectAs(t, srv, "observer", "observer-secret", nats.CustomInboxPrefix(clusterops.InboxPrefix(cluster.RoleObserver)))
	obs, err := clusterobs.NewObserver(onc, clusterobs.ObserverConfig{})
	if err != nil {
		t.Fatal(err)
	}
	go obs.Run(ctx)
	var first clusterobs.JobState
	waitUntil(t, "the finished job in the observer's state", func() bool {
		st := obs.State()
		if len(st.Jobs) == 1 && st.Jobs[0].Finished {
			first = st.Jobs[0]
			return true
		}
		return false
	})
	if first.ElapsedSec > took.Seconds() {
		t.Errorf("elapsed %.3f s; the job took at most %.3f s from its submission to its submitter's Stop", first.ElapsedSec, took.Seconds())
	}
	// Later, the same elapsed time.
	shown := time.Now()
	waitUntil(t, "the clock to move on", func() bool { return time.Since(shown) > 300*time.Millisecond })
	if later := obs.State().Jobs[0]; later.ElapsedSec != first.ElapsedSec {
		t.Errorf("elapsed %.3f s, then %.3f s: a finished job's elapsed time grows with the clock", first.ElapsedSec, later.ElapsedSec)
	}
}
