package clusterdash_test

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"

	"github.com/worksteal/worksteal/cluster"
	"github.com/worksteal/worksteal/dash/clusterdash"

	"github.com/worksteal/worksteal/internal/clusterops"
	"github.com/worksteal/worksteal/internal/loadstat"

	"github.com/worksteal/worksteal/internal/proctest"
	"github.com/worksteal/worksteal/internal/testdeadline"
)

// BenchmarkDashboardCost measures what watching a cluster costs it: the
// throughput of trivial tasks through an embedded server (file storage, as
// worksteal serve) with 2 workers of 16 slots, without a dashboard and with
// one (an observer, its HTTP server, a page reading the live events and a
// Prometheus scrape every second), all in this process, so that the CPU
// time per task counts the dashboard's share too. Each iteration runs one
// job of each kind, alternately, on fresh servers; the metrics are the
// medians over the iterations, and cost-% compares the CPU per task:
//
//	go test -run '^$' -bench DashboardCost -benchtime 5x ./dash/clusterdash
func BenchmarkDashboardCost(b *testing.B) {
	tasks := 10000
	if v, err := strconv.Atoi(os.Getenv("WS_BENCH_TASKS")); err == nil && v > 0 {
		tasks = v
	}
	var rateOff, rateOn, cpuOff, cpuOn, costs []float64
	for b.Loop() {
		r0, c0 := throughput(b, tasks, false)
		r1, c1 := throughput(b, tasks, true)
		rateOff, rateOn, cpuOff, cpuOn = append(rateOff, r0), append(rateOn, r1), append(cpuOff, c0), append(cpuOn, c1)
		costs = append(costs, 100*(c1-c0)/c0)
	}
	b.ReportMetric(loadstat.Median(rateOff), "tasks/s-without")
	b.ReportMetric(loadstat.Median(rateOn), "tasks/s-with")
	b.ReportMetric(loadstat.Median(cpuOff), "cpu-µs/task-without")
	b.ReportMetric(loadstat.Median(cpuOn), "cpu-µs/task-with")
	b.ReportMetric(loadstat.Median(costs), "cost-%")
	b.Logf("tasks/s without %.0f, with %.0f; cpu-µs/task without %.1f, with %.1f; cost %% %.1f", rateOff, rateOn, cpuOff, cpuOn, costs)
}

// throughput runs one job of trivial tasks on a fresh server and two
// workers, watched by a dashboard or not, and returns tasks per second and
// the CPU time per task.
func throughput(b *testing.B, tasks int, watched bool) (rate, cpuPerTask float64) {
	o := &server.Options{ServerName: "bench", Host: "127.0.0.1", Port: -1, JetStream: true, StoreDir: b.TempDir(), NoLog: true, NoSigs: true}
	srv, err := server.NewServer(o)
	if err != nil {
		b.Fatal(err)
	}
	go srv.Start()
	if !srv.ReadyForConnections(testdeadline.Left(b)) {
		b.Fatal("server not ready")
	}
	defer func() { srv.Shutdown(); srv.WaitForShutdown() }()
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	defer func() { cancel(); wg.Wait() }()
	var conns []*nats.Conn
	defer func() {
		for _, nc := range conns {
			nc.Close()
		}
	}()
	conn := func(opts ...nats.Option) *nats.Conn {
		nc, err := nats.Connect(srv.ClientURL(), opts...)
		if err != nil {
			b.Fatal(err)
		}
		conns = append(conns, nc)
		return nc
	}
	for i := range 2 {
		w, err := cluster.New(conn(), cluster.WithSlots(16), cluster.WithName(fmt.Sprintf("bench%d", i)))
		if err != nil {
			b.Fatal(err)
		}
		w.Handle("echo", func(_ context.Context, p []byte) ([]byte, error) { return p, nil })
		wg.Add(1)
		go func() { defer wg.Done(); w.Serve(ctx) }()
	}
	sub, err := cluster.New(conn())
	if err != nil {
		b.Fatal(err)
	}
	if watched {
		watch(b, ctx, &wg, conn(nats.CustomInboxPrefix(clusterops.InboxPrefix(cluster.RoleObserver))))
	}
	job := cluster.Job{ID: "bench"}
	for k := range tasks {
		job.Tasks = append(job.Tasks, cluster.Task{Handler: "echo", Payload: []byte("task " + strconv.Itoa(k))})
	}
	start, cpu0 := time.Now(), proctest.CPUTime()
	var s *cluster.Submission
	for deadline := time.Now().Add(testdeadline.Left(b)); ; time.Sleep(20 * time.Millisecond) {
		if s, err = sub.Submit(ctx, job); err == nil || time.Now().After(deadline) {
			break
		}
	}
	if err != nil {
		b.Fatal(err)
	}
	defer s.Stop()
	if _, err := s.Wait(ctx); err != nil {
		b.Fatal(err)
	}
	elapsed, cpu := time.Since(start), proctest.CPUTime()-cpu0
	return float64(tasks) / elapsed.Seconds(), float64(cpu.Microseconds()) / float64(tasks)
}

// watch runs what an open dashboard runs: an observer, the HTTP server, a
// page reading the event stream, and a Prometheus scrape every second.
func watch(b *testing.B, ctx context.Context, wg *sync.WaitGroup, nc *nats.Conn) {
	d, err := clusterdash.New(nc, clusterdash.Config{})
	if err != nil {
		b.Fatal(err)
	}
	wg.Add(1)
	go func() { defer wg.Done(); d.Run(ctx) }()
	web := httptest.NewServer(d)
	b.Cleanup(web.Close)
	b.Cleanup(d.Close)
	req, _ := http.NewRequestWithContext(ctx, "GET", web.URL+"/events", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	wg.Add(2)
	go func() { // the page
		defer wg.Done()
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<24)
		for sc.Scan() {
		}
	}()
	go func() { // Prometheus
		defer wg.Done()
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				if r, err := http.Get(web.URL + "/metrics"); err == nil {
					r.Body.Close()
				}
			}
		}
	}()
}
