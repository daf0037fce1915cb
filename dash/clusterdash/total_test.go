package clusterdash_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/worksteal/worksteal/cluster"
	"github.com/worksteal/worksteal/dash/clusterdash"
	"github.com/worksteal/worksteal/internal/clusterobs"
	"github.com/worksteal/worksteal/internal/clusterops"
)

// TestFlatJobTotalIsItsTasks: a job that spawns nothing has exactly the
// tasks it was submitted with, and the dashboard says so at every moment
// of its run, however far the workers' statuses lag behind its results (a
// worker's status may still list a task whose result is recorded).
func TestFlatJobTotalIsItsTasks(t *testing.T) {
	srv := startAuthServer(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	const tasks = 600
	for _, name := range []string{"w1", "w2"} {
		worker, err := cluster.New(connectAs(t, srv, "admin", "admin-secret"), cluster.WithName(name), cluster.WithSlots(3),
			cluster.WithAckWait(5*time.Second), cluster.WithFetchWait(100*time.Millisecond))
		if err != nil {
			t.Fatal(err)
		}
		worker.Handle("nap", func(ctx context.Context, p []byte) ([]byte, error) {
			select {
			case <-time.After(15 * time.Millisecond):
			case <-ctx.Done():
			}
			return p, nil
		})
		served := make(chan error, 1)
		go func() { served <- worker.Serve(ctx) }()
		defer func() { cancel(); <-served }()
	}

	d, err := clusterdash.New(connectAs(t, srv, "observer", "observer-secret", nats.CustomInboxPrefix(clusterops.InboxPrefix(cluster.RoleObserver))), clusterdash.Config{})
	if err != nil {
		t.Fatal(err)
	}
	go d.Run(ctx)
	web := httptest.NewServer(d)
	defer web.Close()

	waitUntil(t, "the observer ready, with both workers up", func() bool {
		var st clusterobs.State
		getJSON(t, web.URL+"/api/state", &st)
		return st.Ready && len(st.Workers) == 2
	})

	job := cluster.Job{ID: "flat"}
	for i := range tasks {
		job.Tasks = append(job.Tasks, cluster.Task{Handler: "nap", Payload: []byte(fmt.Sprint(i))})
	}
	sub := submitAsAdmin(t, ctx, srv, job)
	waited := make(chan error, 1)
	go func() { _, err := sub.Wait(ctx); waited <- err }()

	samples, wrong := 0, 0
	for finished := false; !finished; time.Sleep(5 * time.Millisecond) {
		var rows []clusterobs.JobState
		getJSON(t, web.URL+"/api/jobs", &rows)
		for _, j := range rows {
			if j.ID != "flat" {
				continue
			}
			samples++
			if done := j.Succeeded + j.Failed; j.Total != tasks || done > j.Total {
				if wrong++; wrong <= 5 {
					t.Errorf("job flat shows %d/%d done (%d running, %d queued); want a total of %d", done, j.Total, j.Running, j.Queued, tasks)
				}
			}
			finished = j.Finished
			if samples%100 == 0 {
				t.Logf("%+v", j)
			}
		}
	}
	if err := <-waited; err != nil {
		t.Fatal(err)
	}
	t.Logf("%d samples of the job's row, %d with a wrong total", samples, wrong)
}
