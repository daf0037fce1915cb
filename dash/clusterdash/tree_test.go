package clusterdash_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/worksteal/worksteal/cluster"
	"github.com/worksteal/worksteal/dash"
	"github.com/worksteal/worksteal/dash/clusterdash"
	"github.com/worksteal/worksteal/internal/clusterobs"
	"github.com/worksteal/worksteal/internal/clusterops"
)

// treeNode is a node of a tree: payload "depth,fanout,ms" spawns fanout
// children of depth−1 above depth 0, sleeps ms milliseconds and returns
// 1, so a job reduced with "sum" counts its nodes.
func treeNode(ctx context.Context, p []byte) ([]byte, error) {
	f := strings.Split(string(p), ",")
	depth, _ := strconv.Atoi(f[0])
	fanout, _ := strconv.Atoi(f[1])
	ms, _ := strconv.Atoi(f[2])
	if depth > 0 {
		for range fanout {
			if err := cluster.Spawn(ctx, "tree", fmt.Appendf(nil, "%d,%d,%d", depth-1, fanout, ms)); err != nil {
				return nil, err
			}
		}
	}
	time.Sleep(time.Duration(ms) * time.Millisecond)
	return []byte("1"), nil
}

// TestDashboardShowsATreeAsItGrows runs a tree job on two workers, one of
// which hands subtrees to the other, and a dashboard with the observer's
// credentials: while the tree grows /api/state never shows the job
// finished before its submitter is done; once done it shows each worker's
// children spawned and handed over as the workers count them, and the
// job's tasks handed over and total as the submitter counts them, all
// succeeded.
func TestDashboardShowsATreeAsItGrows(t *testing.T) {
	srv := startAuthServer(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	var served sync.WaitGroup
	defer served.Wait()
	defer cancel()
	var workers []*cluster.Node
	for _, name := range []string{"a", "b"} {
		w, err := cluster.New(connectAs(t, srv, "admin", "admin-secret"), cluster.WithName(name), cluster.WithSlots(2))
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Handle("tree", treeNode); err != nil {
			t.Fatal(err)
		}
		workers = append(workers, w)
		served.Go(func() { w.Serve(ctx) })
	}

	denied := &permissionErrors{}
	onc := connectAs(t, srv, "observer", "observer-secret", nats.CustomInboxPrefix(clusterops.InboxPrefix(cluster.RoleObserver)), nats.ErrorHandler(denied.handler))
	d, err := clusterdash.New(onc, clusterdash.Config{Page: dash.Config{Interval: 50 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	go d.Run(ctx)
	srvWeb := httptest.NewServer(d)
	defer srvWeb.Close()
	web := srvWeb.URL

	submitter, err := cluster.New(connectAs(t, srv, "admin", "admin-secret"))
	if err != nil {
		t.Fatal(err)
	}
	// 341 nodes of 20 ms on 4 slots: about 2 s, so the observer counts the
	// job's results (once a second) while the tree grows.
	const depth, fanout, ms = 4, 4, 20
	const nodes = 341 // 1 + 4 + 16 + 64 + 256
	job := cluster.Job{ID: "tree", Reduce: "sum", Tasks: []cluster.Task{{ID: "root", Handler: "tree", Payload: fmt.Appendf(nil, "%d,%d,%d", depth, fanout, ms)}}}
	var sub *cluster.Submission
	waitUntil(t, "the submission", func() bool { sub, err = submitter.Submit(ctx, job); return err == nil })
	defer sub.Stop()

	// While the tree grows: never finished early.
	var st clusterobs.State
	grew := false // a state showed children spawned while the job ran
	for waiting := true; waiting; {
		select {
		case <-sub.Done():
			waiting = false
		case <-time.After(20 * time.Millisecond):
		}
		getJSON(t, web+"/api/state", &st)
		for _, j := range st.Jobs {
			select {
			case <-sub.Done():
			default:
				if j.Finished {
					t.Fatalf("the dashboard shows job %s finished (%+v) while its submitter waits for results", j.ID, j)
				}
				for _, w := range st.Workers {
					grew = grew || (w.Spawned > 0 && j.Running > 0)
				}
			}
		}
	}
	if !grew {
		t.Error("no state showed a worker's children spawned while the job ran")
	}
	rs, err := sub.Wait(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if v, ok, err := sub.Value(); err != nil || !ok || string(v) != strconv.Itoa(nodes) {
		t.Fatalf("Value = %q, %v, %v; want %d", v, ok, err, nodes)
	}
	p := sub.Progress()
	var spawned, spilled int64
	for _, w := range workers {
		spawned += clusterops.StatsOf(w).Spawned
		spilled += clusterops.StatsOf(w).Spilled
	}
	if spilled == 0 || p.Spawned != int(spilled) || len(rs) != 1+p.Spawned {
		t.Fatalf("the workers handed over %d tasks, the submitter counts %d and has %d results: want a hand-over seen alike", spilled, p.Spawned, len(rs))
	}

	waitUntil(t, "the finished tree in /api/state, with every worker's counters", func() bool {
		getJSON(t, web+"/api/state", &st)
		var sp, sl int64
		for _, w := range st.Workers {
			sp += w.Spawned
			sl += w.Spilled
		}
		return len(st.Jobs) == 1 && st.Jobs[0].Finished && st.Jobs[0].Handed == p.Spawned && sp == spawned && sl == spilled
	})
	j := st.Jobs[0]
	if j.Total != 1+p.Spawned || j.Succeeded != j.Total || j.Failed != 0 || j.Handed != p.Spawned || j.Reduce != "sum" {
		t.Errorf("job = %+v; want %d tasks (the root and %d handed over), all succeeded, reduced with sum", j, 1+p.Spawned, p.Spawned)
	}
	if spawned != nodes-1 {
		t.Errorf("the workers spawned %d children; want %d", spawned, nodes-1)
	}
	if errs := denied.list(); len(errs) != 0 {
		t.Errorf("the observer hit permission errors: %v", errs)
	}
}
