package test

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"

	"github.com/worksteal/worksteal/cluster"
)

// BenchmarkThroughputSecurity measures what authentication and TLS cost:
// trivial tasks end to end, as BenchmarkThroughput, through a server
// without either ("plain"), with the roles' nkeys and permissions only
// ("nkeys"), with mutual TLS only ("tls"), and with both ("nkeys+mtls").
// Run them in one invocation and compare:
//
//	WS_BENCH_TASKS=10000 go test -run '^$' -bench ThroughputSecurity -benchtime 3x ./cluster/test
func BenchmarkThroughputSecurity(b *testing.B) {
	tasks := 10000
	if v, err := strconv.Atoi(os.Getenv("WS_BENCH_TASKS")); err == nil && v > 0 {
		tasks = v
	}
	for _, v := range []struct {
		name      string
		auth, tls bool
	}{{"plain", false, false}, {"nkeys", true, false}, {"tls", false, true}, {"nkeys+mtls", true, true}} {
		b.Run(v.name, func(b *testing.B) {
			e := newSecureEnv(b)
			o := &server.Options{ServerName: "bench", Host: "127.0.0.1", Port: -1, JetStream: true, StoreDir: b.TempDir(), NoLog: true, NoSigs: true}
			if v.auth {
				o.Nkeys = e.users(b)
			}
			if v.tls {
				tc, err := server.GenTLSConfig(e.tlsConfig(b, true))
				if err != nil {
					b.Fatal(err)
				}
				o.TLSConfig, o.TLSVerify, o.TLSTimeout = tc, true, 5
			}
			url := runServer(b, o).ClientURL()
			connectAs := func(role cluster.Role) *nats.Conn {
				creds := cluster.Credentials{}
				if v.auth {
					creds.Creds = e.seeds[role]
				}
				if v.tls {
					creds.TLSCA, creds.TLSCert, creds.TLSKey = e.ca, e.clientCert, e.clientKey
				}
				opts, err := cluster.ConnectOptions(role, creds)
				if err != nil {
					b.Fatal(err)
				}
				nc, err := nats.Connect(url, opts...)
				if err != nil {
					b.Fatal(err)
				}
				b.Cleanup(nc.Close)
				return nc
			}
			roleOpt := func(r cluster.Role) []cluster.Option {
				if !v.auth {
					return nil
				}
				return []cluster.Option{cluster.WithRole(r)}
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
