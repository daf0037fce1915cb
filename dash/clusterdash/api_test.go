package clusterdash_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/worksteal/worksteal/cluster"
	"github.com/worksteal/worksteal/dash"
	"github.com/worksteal/worksteal/dash/clusterdash"
	"github.com/worksteal/worksteal/internal/clusterobs"
	"github.com/worksteal/worksteal/internal/clusterops"
	"github.com/worksteal/worksteal/internal/testdeadline"
)

// startAuthServer runs a JetStream server with two users: "admin", who may
// do anything (workers, submitters), and "observer", who may use only the
// subjects clusterops.ObserverPermissions lists.
func startAuthServer(t *testing.T) *server.Server {
	t.Helper()
	pub, sub := clusterops.ObserverPermissions("ws")
	o := &server.Options{
		ServerName: "dash", Host: "127.0.0.1", Port: -1, JetStream: true, StoreDir: t.TempDir(), NoLog: true, NoSigs: true,
		Users: []*server.User{
			{Username: "admin", Password: "admin-secret"},
			{Username: "observer", Password: "observer-secret", Permissions: &server.Permissions{
				Publish:   &server.SubjectPermission{Allow: pub},
				Subscribe: &server.SubjectPermission{Allow: sub},
			}},
		},
	}
	s, err := server.NewServer(o)
	if err != nil {
		t.Fatal(err)
	}
	go s.Start()
	if !s.ReadyForConnections(testdeadline.Left(t)) {
		t.Fatal("nats server not ready")
	}
	t.Cleanup(func() { s.Shutdown(); s.WaitForShutdown() })
	return s
}

// permissionErrors collects the permission violations the server reports
// to a connection.
type permissionErrors struct {
	mu   sync.Mutex
	errs []string
}

func (p *permissionErrors) handler(_ *nats.Conn, _ *nats.Subscription, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.errs = append(p.errs, err.Error())
}

func (p *permissionErrors) list() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.errs...)
}

func connectAs(t *testing.T, s *server.Server, user, password string, opts ...nats.Option) *nats.Conn {
	t.Helper()
	nc, err := nats.Connect(s.ClientURL(), append(opts, nats.UserInfo(user, password))...)
	if err != nil {
		t.Fatalf("connecting as %s: %v", user, err)
	}
	t.Cleanup(nc.Close)
	return nc
}

func getJSON(t *testing.T, url string, v any) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
		t.Fatalf("GET %s: %s, %s", url, resp.Status, resp.Header.Get("Content-Type"))
	}
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
}

// submitAsAdmin submits job as the server's admin user, once the server
// takes it, and stops following it when the test ends.
func submitAsAdmin(t *testing.T, ctx context.Context, srv *server.Server, job cluster.Job) *cluster.Submission {
	t.Helper()
	submitter, err := cluster.New(connectAs(t, srv, "admin", "admin-secret"))
	if err != nil {
		t.Fatal(err)
	}
	var sub *cluster.Submission
	waitUntil(t, "the submission", func() bool { sub, err = submitter.Submit(ctx, job); return err == nil })
	t.Cleanup(sub.Stop)
	return sub
}

func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(testdeadline.Left(t)); !cond(); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// TestJSONEndpointsWithObserverCredentials runs a worker and a job, and a
// dashboard connected as a user with only the observer's permissions: the
// endpoints show the worker and the job with the documented fields, the
// metrics count the job's tasks, the observer's connection cannot write to
// the cluster, and the dashboard refuses every method but GET and HEAD.
func TestJSONEndpointsWithObserverCredentials(t *testing.T) {
	srv := startAuthServer(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	worker, err := cluster.New(connectAs(t, srv, "admin", "admin-secret"), cluster.WithName("w1"), cluster.WithSlots(3), cluster.WithLabels(cluster.Labels{"zone": "eu"}),
		cluster.WithAckWait(2*time.Second), cluster.WithFetchWait(200*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	worker.Handle("echo", func(_ context.Context, p []byte) ([]byte, error) { return p, nil })
	served := make(chan error, 1)
	go func() { served <- worker.Serve(ctx) }()
	defer func() { cancel(); <-served }()

	denied := &permissionErrors{}
	onc := connectAs(t, srv, "observer", "observer-secret", nats.CustomInboxPrefix(clusterops.InboxPrefix(cluster.RoleObserver)), nats.ErrorHandler(denied.handler))
	d, err := clusterdash.New(onc, clusterdash.Config{Page: dash.Config{Interval: 50 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	go d.Run(ctx)
	web := httptest.NewServer(d)
	defer web.Close()

	job := cluster.Job{ID: "shape"}
	for i := range 12 {
		job.Tasks = append(job.Tasks, cluster.Task{Handler: "echo", Payload: []byte(fmt.Sprint(i))})
	}
	sub := submitAsAdmin(t, ctx, srv, job)
	if _, err := sub.Wait(ctx); err != nil {
		t.Fatal(err)
	}

	// /api/state: the whole view, with the job finished and the worker up.
	var st clusterobs.State
	// Ready comes after the observer's first round of counts (jobs,
	// queue, results), which a busy machine may see after the job: wait
	// for it too.
	waitUntil(t, "the observer ready, the finished job in /api/state, and a worker status sent after it", func() bool {
		getJSON(t, web.URL+"/api/state", &st)
		return st.Ready && len(st.Jobs) == 1 && st.Jobs[0].Succeeded == 12 && len(st.Workers) == 1 && st.Workers[0].Executed == 12
	})
	if st.Kind != "cluster" || !st.Ready || st.Stream != "ws" || st.StragglerFactor != 2 {
		t.Errorf("state header = %q ready=%v stream=%q factor=%v; want cluster, true, ws, 2", st.Kind, st.Ready, st.Stream, st.StragglerFactor)
	}
	j := st.Jobs[0]
	if j.ID != "shape" || j.Total != 12 || j.Failed != 0 || !j.Finished || j.ETASec != 0 || j.Queued != 0 {
		t.Errorf("job = %+v; want shape, 12 tasks, finished, nothing queued or failed", j)
	}
	w := st.Workers[0]
	if w.Name != "w1" || w.Status != "up" || w.Slots != 3 || w.Executed != 12 || len(w.Handlers) != 1 || w.Handlers[0] != "echo" || w.Labels["zone"] != "eu" {
		t.Errorf("worker = %+v; want w1 up with 3 slots, 12 runs, handler echo, label zone=eu", w)
	}
	if len(w.Timeline) == 0 || len(w.Timeline) > 32 {
		t.Errorf("worker timeline has %d spans; want 1 to 32", len(w.Timeline))
	}
	if st.Latency.Total() != 12 {
		t.Errorf("latency histogram counts %d tasks; want 12", st.Latency.Total())
	}

	// The parts, as raw JSON: the field names are the API.
	for _, c := range []struct {
		path   string
		fields []string
	}{
		{"/api/workers", []string{"name", "status", "slots", "running", "handlers", "labels", "last_seen", "silent_s", "executed", "failures", "redelivered", "busy_s", "utilization", "tasks", "timeline"}},
		{"/api/jobs", []string{"id", "total", "succeeded", "failed", "running", "queued", "retries", "reruns", "finished", "rate", "eta_s", "median_s", "elapsed_s"}},
	} {
		var rows []map[string]any
		getJSON(t, web.URL+c.path, &rows)
		if len(rows) != 1 {
			t.Fatalf("%s: %d rows; want 1", c.path, len(rows))
		}
		for _, f := range c.fields {
			if _, ok := rows[0][f]; !ok {
				t.Errorf("%s: no field %q in %v", c.path, f, rows[0])
			}
		}
	}
	var stragglers []clusterobs.Straggler
	getJSON(t, web.URL+"/api/stragglers", &stragglers)
	if stragglers == nil || len(stragglers) != 0 {
		t.Errorf("/api/stragglers = %v; want an empty list", stragglers)
	}

	// /metrics: Prometheus text with the job's and the worker's series.
	resp, err := http.Get(web.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, want := range []string{
		`worksteal_cluster_tasks_succeeded_total{job="shape"} 12`,
		`worksteal_cluster_tasks_failed_total{job="shape"} 0`,
		`worksteal_cluster_tasks_queued{job="shape"} 0`,
		`worksteal_cluster_job_tasks{job="shape"} 12`,
		`worksteal_cluster_worker_slots{worker="w1"} 3`,
		`worksteal_cluster_worker_up{worker="w1"} 1`,
		`worksteal_cluster_task_start_latency_seconds_count 12`,
		`worksteal_cluster_redeliveries_total 0`,
	} {
		if !strings.Contains(string(body), want) {
			t.Errorf("/metrics has no %q:\n%s", want, body)
		}
	}

	// /events: server-sent events carrying the same state.
	resp, err = http.Get(web.URL + "/events")
	if err != nil {
		t.Fatal(err)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Errorf("/events Content-Type %q; want text/event-stream", ct)
	}
	line, err := readEvent(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	var ev clusterobs.State
	if err := json.Unmarshal([]byte(line), &ev); err != nil || ev.Kind != "cluster" || len(ev.Jobs) != 1 {
		t.Errorf("first event %q: %v", line, err)
	}

	// The dashboard is read-only over HTTP.
	for _, method := range []string{"POST", "PUT", "DELETE", "PATCH"} {
		for _, path := range []string{"/api/state", "/api/jobs", "/events", "/metrics", "/"} {
			req, _ := http.NewRequest(method, web.URL+path, strings.NewReader("{}"))
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusMethodNotAllowed {
				t.Errorf("%s %s: %s; want 405", method, path, resp.Status)
			}
		}
	}

	// The dashboard did its work without a single permission violation...
	if errs := denied.list(); len(errs) != 0 {
		t.Errorf("the observer hit permission errors while reading: %v", errs)
	}
	// ...and with its credentials nothing can be written: no task, no
	// result, no job record, no stream. (A denied request gets no reply:
	// each attempt ends at its deadline.)
	js, err := jetstream.New(onc)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := js.Publish(short(t), "ws.task.shape.echo", []byte("x")); err == nil {
		t.Error("the observer published a task")
	}
	for _, bucket := range []string{"ws_results", "ws_jobs"} {
		kv, err := js.KeyValue(ctx, bucket)
		if err != nil {
			t.Fatalf("the observer cannot read bucket %s: %v", bucket, err)
		}
		if _, err := kv.Put(short(t), "shape.99", []byte("{}")); err == nil {
			t.Errorf("the observer wrote to bucket %s", bucket)
		}
		if err := kv.Delete(short(t), "shape.0"); err == nil {
			t.Errorf("the observer deleted from bucket %s", bucket)
		}
	}
	if _, err := js.CreateStream(short(t), jetstream.StreamConfig{Name: "intruder", Subjects: []string{"intruder.>"}}); err == nil {
		t.Error("the observer created a stream")
	}
	if err := js.DeleteStream(short(t), "ws_tasks"); err == nil {
		t.Error("the observer deleted the task stream")
	}
	waitUntil(t, "the violations to be reported", func() bool { return len(denied.list()) > 0 })
	for _, e := range denied.list() {
		if !strings.Contains(strings.ToLower(e), "permissions violation") {
			t.Errorf("unexpected error: %s", e)
		}
	}
	// Still 12 results: nothing was added or removed.
	if rs := sub.Results(); len(rs) != 12 {
		t.Errorf("%d results after the observer's attempts; want 12", len(rs))
	}
}

// short is the deadline of a write that is expected to be denied.
func short(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	t.Cleanup(cancel)
	return ctx
}

// readEvent returns the data of the first server-sent event.
func readEvent(r io.Reader) (string, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			return data, nil
		}
	}
	return "", errors.Join(errors.New("no event"), sc.Err())
}
