package test

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/worksteal/worksteal/cluster"
)

// BenchmarkThroughputSecurity measures what authentication and TLS cost:
// trivial tasks end to end, as BenchmarkThroughput, through a server
// without either ("plain") and through one with the roles' nkeys and
// mutual TLS ("nkeys+mtls"), each client with its role's permissions. Run
// both in one invocation and compare them:
//
//	WS_BENCH_TASKS=10000 go test -run '^$' -bench ThroughputSecurity -benchtime 3x ./cluster/test
func BenchmarkThroughputSecurity(b *testing.B) {
	tasks := 10000
	if v, err := strconv.Atoi(os.Getenv("WS_BENCH_TASKS")); err == nil && v > 0 {
		tasks = v
	}
	for _, secure := range []bool{false, true} {
		name := "plain"
		if secure {
			name = "nkeys+mtls"
		}
		b.Run(name, func(b *testing.B) {
			url := ""
			connectAs := func(role cluster.Role) *nats.Conn { return connect(b, url) }
			roleOpt := func(cluster.Role) []cluster.Option { return nil }
			if secure {
				e := newSecureEnv(b)
				url = startSecureServer(b, e, true).ClientURL()
				connectAs = func(role cluster.Role) *nats.Conn { nc, _ := e.connectAs(b, url, role); return nc }
				roleOpt = func(r cluster.Role) []cluster.Option { return []cluster.Option{cluster.WithRole(r)} }
			} else {
				url = startServer(b).ClientURL()
			}
			n, err := cluster.New(connectAs(cluster.RoleSubmitter), testOptions(roleOpt(cluster.RoleSubmitter)...)...)
			if err != nil {
				b.Fatal(err)
			}
			for i := range 2 {
				serveAs(b, connectAs(cluster.RoleWorker), append(roleOpt(cluster.RoleWorker), cluster.WithSlots(16), cluster.WithName(fmt.Sprintf("bench%d", i)))...)
			}
			job := func(id string, count int) float64 {
				j := cluster.Job{ID: id}
				for k := range count {
					j.Tasks = append(j.Tasks, cluster.Task{Handler: "upper", Payload: []byte("task " + strconv.Itoa(k))})
				}
				start := time.Now()
				s, err := n.Submit(context.Background(), j)
				if err != nil {
					b.Fatal(err)
				}
				defer s.Stop()
				rs, err := s.Wait(context.Background())
				if err != nil || len(rs) != count {
					b.Fatalf("%d results, %v; want %d", len(rs), err, count)
				}
				return float64(count) / time.Since(start).Seconds()
			}
			job("warmup", 1) // sets the tier up; the workers bind to it
			var rate, cpuPerTask float64
			for i := 0; b.Loop(); i++ {
				cpu0 := cpuTime()
				rate = job(fmt.Sprintf("bench%d", i), tasks)
				cpuPerTask = float64((cpuTime() - cpu0).Microseconds()) / float64(tasks)
			}
			b.ReportMetric(rate, "tasks/s")
			b.ReportMetric(cpuPerTask, "cpu-µs/task")
			b.ReportMetric(float64(runtime.NumCPU())*1e6/cpuPerTask, "tasks/s-cpu-bound")
		})
	}
}
