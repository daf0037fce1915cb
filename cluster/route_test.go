package cluster_test

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/worksteal/worksteal/cluster"
	"github.com/worksteal/worksteal/internal/clusterops"
)

// profile is a worker of a mixed cluster: its handlers and labels.
type profile struct {
	name     string
	slots    int
	handlers []string
	labels   cluster.Labels
}

// serveProfile starts a worker with only p's handlers, each of which
// sleeps ms and notes which worker ran which task; it stops with the test.
func serveProfile(t testing.TB, nc *nats.Conn, p profile, ms int, ran func(worker, task string)) *cluster.Node {
	t.Helper()
	n, err := cluster.New(nc, testOptions(cluster.WithName(p.name), cluster.WithSlots(p.slots), cluster.WithLabels(p.labels))...)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range p.handlers {
		n.Handle(h, func(ctx context.Context, payload []byte) ([]byte, error) {
			info, _ := cluster.TaskOf(ctx)
			if ran != nil {
				ran(p.name, info.Job+"."+info.Task)
			}
			time.Sleep(time.Duration(ms) * time.Millisecond)
			return payload, nil
		})
	}
	startServing(t, n)
	waitFor(t, "the worker's registration", func() bool {
		ws, _ := clusterops.Workers(context.Background(), n)
		for _, w := range ws {
			if w.Name == p.name {
				return true
			}
		}
		return false
	})
	return n
}

// A mixed cluster: CPU workers with compress, GPU workers with render, one
// of them with 64G. Every task runs on a worker that can run it, the first
// time it is delivered, and no worker receives a task it cannot run: the
// deliveries the workers received add up to the tasks.
func TestTasksGoOnlyToCapableWorkers(t *testing.T) {
	srv := startServer(t)
	profiles := []profile{
		{name: "cpu1", slots: 3, handlers: []string{"compress"}},
		{name: "cpu2", slots: 2, handlers: []string{"compress"}, labels: cluster.Labels{"zone": "eu"}},
		{name: "gpu1", slots: 2, handlers: []string{"render"}, labels: cluster.Labels{"gpu": "1", "mem": "16G"}},
		{name: "gpu2", slots: 2, handlers: []string{"render"}, labels: cluster.Labels{"gpu": "1", "mem": "64G"}},
	}
	var mu sync.Mutex
	ranOn := map[string][]string{} // task -> workers that ran it
	var nodes []*cluster.Node
	for _, p := range profiles {
		nodes = append(nodes, serveProfile(t, connect(t, srv.ClientURL()), p, 2, func(w, task string) {
			mu.Lock()
			ranOn[task] = append(ranOn[task], w)
			mu.Unlock()
		}))
	}
	sub := submitter(t, connect(t, srv.ClientURL()))
	ctx := context.Background()
	ws, err := clusterops.Workers(ctx, sub)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range ws {
		if w.Name == "gpu2" && (cluster.Labels(w.Labels).String() != "gpu=1,mem=64G" || w.Speed != 1) {
			t.Errorf("worker gpu2 registered with labels %q, speed %v; want gpu=1,mem=64G and 1", w.Labels, w.Speed)
		}
	}

	// Submit-time refusals: nobody has the handler, or the label.
	if _, err := sub.Submit(ctx, cluster.Job{ID: "nobody", Tasks: []cluster.Task{{Handler: "transcode"}}}); !errors.Is(err, cluster.ErrUnknownHandler) {
		t.Errorf("a handler no worker has: %v; want ErrUnknownHandler", err)
	}
	if _, err := sub.Submit(ctx, cluster.Job{ID: "nolabel", Require: cluster.Labels{"gpu": "2"}, Tasks: []cluster.Task{{Handler: "render"}}}); !errors.Is(err, cluster.ErrNoCapableWorker) {
		t.Errorf("a label no worker has: %v; want ErrNoCapableWorker", err)
	}
	if _, err := sub.Submit(ctx, cluster.Job{ID: "crossed", Tasks: []cluster.Task{{Handler: "compress", Require: cluster.Labels{"gpu": "1"}}}}); !errors.Is(err, cluster.ErrNoCapableWorker) {
		t.Errorf("a label only workers without the handler have: %v; want ErrNoCapableWorker", err)
	}

	// Two jobs at once: one with task requirements, one with a job-wide one.
	mixed := cluster.Job{ID: "mixed"}
	for i := range 60 {
		t := cluster.Task{ID: "c" + strconv.Itoa(i), Handler: "compress", Payload: []byte("x")}
		if i%3 == 0 {
			t.Require = cluster.Labels{"zone": "eu"}
		}
		mixed.Tasks = append(mixed.Tasks, t)
		r := cluster.Task{ID: "r" + strconv.Itoa(i), Handler: "render", Payload: []byte("y")}
		if i%4 == 0 {
			r.Require = cluster.Labels{"mem": "64G"}
		}
		mixed.Tasks = append(mixed.Tasks, r)
	}
	gpuJob := cluster.Job{ID: "gpujob", Require: cluster.Labels{"gpu": "1"}}
	for i := range 40 {
		gpuJob.Tasks = append(gpuJob.Tasks, cluster.Task{ID: strconv.Itoa(i), Handler: "render"})
	}
	var subs []*cluster.Submission
	for _, j := range []cluster.Job{mixed, gpuJob} {
		s, err := sub.Submit(ctx, j)
		if err != nil {
			t.Fatalf("submit %s: %v", j.ID, err)
		}
		defer s.Stop()
		subs = append(subs, s)
	}
	can := func(w string, job cluster.Job, task cluster.Task) bool {
		for _, p := range profiles {
			if p.name != w {
				continue
			}
			has := false
			for _, h := range p.handlers {
				has = has || h == task.Handler
			}
			return has && p.labels.Satisfy(job.Require) && p.labels.Satisfy(task.Require)
		}
		return false
	}
	total := 0
	for i, j := range []cluster.Job{mixed, gpuJob} {
		rs := waitJob(t, subs[i])
		total += len(rs)
		for k, r := range rs {
			task := j.Tasks[k]
			switch {
			case !r.OK():
				t.Errorf("%s.%s failed: %s", j.ID, r.Task, r.Error)
			case r.Deliveries != 1 || r.Attempt != 1:
				t.Errorf("%s.%s: delivery %d, attempt %d; want 1 and 1", j.ID, r.Task, r.Deliveries, r.Attempt)
			case !can(r.Worker, j, task):
				t.Errorf("%s.%s (handler %s, requires %s%s) recorded by %s, which cannot run it", j.ID, r.Task, task.Handler, j.Require, task.Require, r.Worker)
			}
			mu.Lock()
			on := ranOn[j.ID+"."+r.Task]
			mu.Unlock()
			if len(on) != 1 || !can(on[0], j, task) {
				t.Errorf("%s.%s ran on %v; want once, on a capable worker", j.ID, r.Task, on)
			}
		}
	}
	var delivered int64
	for i, n := range nodes {
		st := clusterops.StatsOf(n)
		delivered += st.Delivered
		if st.Delivered != st.Executed {
			t.Errorf("%s: %d deliveries, %d runs: a delivery was spent on a task it did not run", profiles[i].name, st.Delivered, st.Executed)
		}
	}
	if delivered != int64(total) {
		t.Errorf("the workers received %d deliveries for %d tasks; want one each", delivered, total)
	}
}

// Two jobs on one worker: the second, submitted while the first has many
// tasks waiting, gets a share of the slots at once and finishes long before
// the first, instead of waiting for the first job's queue to drain.
func TestSecondJobSharesTheSlots(t *testing.T) {
	srv := startServer(t)
	serveProfile(t, connect(t, srv.ClientURL()), profile{name: "w", slots: 4, handlers: []string{"work"}}, 10, nil)
	sub := submitter(t, connect(t, srv.ClientURL()))
	ctx := context.Background()
	job := func(id string, k int) cluster.Job {
		j := cluster.Job{ID: id}
		for i := range k {
			j.Tasks = append(j.Tasks, cluster.Task{ID: strconv.Itoa(i), Handler: "work", Payload: []byte(fmt.Sprint(i))})
		}
		return j
	}
	a, err := sub.Submit(ctx, job("first", 300))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Stop()
	if _, err := a.Next(ctx); err != nil { // the first job runs
		t.Fatal(err)
	}
	b, err := sub.Submit(ctx, job("second", 20))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Stop()
	waitJob(t, b)
	left := a.Progress().Total - a.Progress().Done()
	if left < 100 {
		t.Errorf("the second job of 20 tasks finished when the first had %d of 300 left; want it to share the slots (at least 100 left)", left)
	}
	waitJob(t, a)
}

// A retry is not starved by another job's queue: a task of the second job
// fails once and is handed back with a delay (which a consumer's pending
// count does not show); it runs again long before the first job ends.
func TestRetryRunsWhileAnotherJobQueues(t *testing.T) {
	srv := startServer(t)
	n, err := cluster.New(connect(t, srv.ClientURL()), testOptions(cluster.WithName("r"), cluster.WithSlots(2))...)
	if err != nil {
		t.Fatal(err)
	}
	n.Handle("work", func(ctx context.Context, p []byte) ([]byte, error) {
		time.Sleep(10 * time.Millisecond)
		return p, nil
	})
	n.Handle("flaky", func(ctx context.Context, p []byte) ([]byte, error) {
		if info, _ := cluster.TaskOf(ctx); info.Attempt == 1 {
			return nil, errors.New("first attempt fails")
		}
		return p, nil
	})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- n.Serve(ctx) }()
	defer func() { cancel(); <-done }()
	sub := submitter(t, connect(t, srv.ClientURL()))
	long := cluster.Job{ID: "long"}
	for i := range 300 {
		long.Tasks = append(long.Tasks, cluster.Task{ID: strconv.Itoa(i), Handler: "work"})
	}
	a, err := sub.Submit(ctx, long)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Stop()
	if _, err := a.Next(ctx); err != nil {
		t.Fatal(err)
	}
	b, err := sub.Submit(ctx, cluster.Job{ID: "retried", RetryDelay: 50 * time.Millisecond, Tasks: []cluster.Task{{Handler: "flaky"}}})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Stop()
	rs := waitJob(t, b)
	left := a.Progress().Total - a.Progress().Done()
	if !rs[0].OK() || rs[0].Attempt != 2 {
		t.Errorf("retried task: %+v; want success at attempt 2", rs[0])
	}
	if left < 100 {
		t.Errorf("the retry ran when the other job had %d of 300 tasks left; want it to run while that job queues (at least 100 left)", left)
	}
	waitJob(t, a)
}

// A worker runs at most its slots of handlers at once, however its free
// slots are grouped into pull requests, and holds no more deliveries than
// its slots in handlers plus its slots being settled. The route's
// consumer counts as unacknowledged also the acks still on their way: the
// server takes acks on a goroutine of their own, apart from the pull
// requests, so a request sent after an ack can be served before the ack
// counts. The bound tested allows the workers' slots once more for those
// (CI under -race saw 15 against the 14 held). The worker with more slots
// takes more of the job, and every task succeeds exactly once.
func TestWorkersRunAtMostTheirSlots(t *testing.T) {
	srv := startServer(t)
	slots := map[string]int{"small": 2, "big": 5}
	var mu sync.Mutex
	running, most, ran := map[string]int{}, map[string]int{}, map[string]int{}
	for name, k := range slots {
		n, err := cluster.New(connect(t, srv.ClientURL()), testOptions(cluster.WithName(name), cluster.WithSlots(k))...)
		if err != nil {
			t.Fatal(err)
		}
		n.Handle("work", func(ctx context.Context, payload []byte) ([]byte, error) {
			mu.Lock()
			running[name]++
			most[name] = max(most[name], running[name])
			ran[name]++
			mu.Unlock()
			time.Sleep(2 * time.Millisecond)
			mu.Lock()
			running[name]--
			mu.Unlock()
			return payload, nil
		})
		startServing(t, n)
	}
	sub := submitter(t, connect(t, srv.ClientURL()))
	job := cluster.Job{ID: "slots"}
	for i := range 400 {
		job.Tasks = append(job.Tasks, cluster.Task{ID: strconv.Itoa(i), Handler: "work", Payload: []byte(strconv.Itoa(i))})
	}
	s, err := sub.Submit(context.Background(), job)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	// Sample the route consumers' unacknowledged deliveries while it runs.
	nc := connect(t, srv.ClientURL())
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	sampled := make(chan int, 1)
	go func() {
		worst := 0
		defer func() { sampled <- worst }()
		for {
			select {
			case <-stop:
				return
			case <-time.After(3 * time.Millisecond):
			}
			st, err := js.Stream(context.Background(), "ws_tasks")
			if err != nil {
				continue
			}
			for name := range st.ListConsumers(context.Background()).Info() {
				worst = max(worst, name.NumAckPending)
			}
		}
	}()
	rs := waitJob(t, s)
	close(stop)
	worstPending := <-sampled
	if len(rs) != 400 {
		t.Fatalf("%d results; want 400", len(rs))
	}
	for _, r := range rs {
		if !r.OK() {
			t.Errorf("task %s failed: %s", r.Task, r.Error)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	for name, k := range slots {
		if most[name] > k {
			t.Errorf("worker %s ran %d handlers at once; it has %d slots", name, most[name], k)
		}
	}
	if ran["big"] <= ran["small"] {
		t.Errorf("the worker with 5 slots ran %d tasks, the one with 2 ran %d; want the bigger to take more", ran["big"], ran["small"])
	}
	if limit := 3 * (slots["small"] + slots["big"]); worstPending > limit {
		t.Errorf("the route held %d unacknowledged deliveries; want at most %d (slots running + slots settling + acks in flight)", worstPending, limit)
	}
	t.Logf("most at once %v, ran %v, most unacknowledged %d", most, ran, worstPending)
}
