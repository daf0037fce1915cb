package test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nkeys"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"

	"github.com/worksteal/worksteal/cluster"
)

// BenchmarkThroughputSecurity measures what authentication and TLS cost:
// trivial tasks end to end, as BenchmarkThroughput, through a server
// without either ("plain"), with the roles' nkeys and permissions only
// ("nkeys"), with mutual TLS only ("tls"), and with both ("nkeys+mtls").
// The server runs in a process of its own, so the CPU it spends per task
// (the shared resource of a cluster: workers scale out, the server does
// not) is reported apart from the clients' (two workers and the
// submitter, in this process). Run the variants in one invocation:
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
			srv := startServerProcess(b, e, v.auth, v.tls)
			url := srv.url
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
			var rate, clientCPU, serverCPU float64
			for i := 0; b.Loop(); i++ {
				cpu0, srv0 := cpuTime(), srv.cpu(b)
				rate = job(fmt.Sprintf("bench%d", i), tasks)
				clientCPU = float64((cpuTime() - cpu0).Microseconds()) / float64(tasks)
				serverCPU = float64((srv.cpu(b) - srv0).Microseconds()) / float64(tasks)
			}
			b.ReportMetric(rate, "tasks/s")
			b.ReportMetric(serverCPU, "server-cpu-µs/task")
			b.ReportMetric(clientCPU, "clients-cpu-µs/task")
			b.ReportMetric(float64(runtime.NumCPU())*1e6/(serverCPU+clientCPU), "tasks/s-cpu-bound")
		})
	}
}

// serverProcess is a NATS server running in a child process (this test
// binary, role "server").
type serverProcess struct {
	url string
	cmd *exec.Cmd
}

// Environment of the server process: the secrets directory and the
// variant.
const (
	envSecrets = "WS_CLUSTER_TEST_SECRETS"
	envAuth    = "WS_CLUSTER_TEST_AUTH"
	envTLS     = "WS_CLUSTER_TEST_TLS"
)

func startServerProcess(b *testing.B, e *secureEnv, auth, tls bool) *serverProcess {
	b.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), envRole+"=server", envSecrets+"="+e.dir, envURL+"="+b.TempDir(),
		envAuth+"="+strconv.FormatBool(auth), envTLS+"="+strconv.FormatBool(tls))
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
	})
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		b.Fatalf("server process: %v", err)
	}
	return &serverProcess{url: strings.TrimSpace(line), cmd: cmd}
}

// cpu is the CPU time (user + system) the server process has used.
func (p *serverProcess) cpu(b *testing.B) time.Duration {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p.cmd.Process.Pid))
	if err != nil {
		b.Skipf("no /proc: %v", err) // the split needs Linux
	}
	f := strings.Fields(string(data[bytes.LastIndexByte(data, ')')+2:]))
	utime, _ := strconv.ParseInt(f[11], 10, 64)
	stime, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(utime+stime) * time.Second / 100 // USER_HZ
}

// serverMain is the server process: JetStream on loopback, with the
// secrets directory's nkeys and TLS as asked, until SIGTERM. It prints its
// URL.
func serverMain() int {
	dir := os.Getenv(envSecrets)
	e := &secureEnv{dir: dir, publics: map[cluster.Role]string{},
		ca: filepath.Join(dir, "ca.pem"), serverCert: filepath.Join(dir, "server.pem"), serverKey: filepath.Join(dir, "server-key.pem")}
	pub := func(file string) string {
		data, err := os.ReadFile(file)
		if err != nil {
			panic(err)
		}
		kp, err := nkeys.ParseDecoratedNKey(data)
		if err != nil {
			panic(err)
		}
		p, _ := kp.PublicKey()
		return p
	}
	for _, r := range cluster.Roles {
		e.publics[r] = pub(filepath.Join(dir, string(r)+".nk"))
	}
	e.adminPub = pub(filepath.Join(dir, "admin.nk"))
	o := &server.Options{ServerName: "bench", Host: "127.0.0.1", Port: -1, JetStream: true, StoreDir: os.Getenv(envURL), NoLog: true, NoSigs: true}
	if os.Getenv(envAuth) == "true" {
		users, err := e.nkeyUsers()
		if err != nil {
			panic(err)
		}
		o.Nkeys = users
	}
	if os.Getenv(envTLS) == "true" {
		tc, err := server.GenTLSConfig(e.tlsConfig(true))
		if err != nil {
			panic(err)
		}
		o.TLSConfig, o.TLSVerify, o.TLSTimeout = tc, true, 5
	}
	s, err := server.NewServer(o)
	if err != nil {
		panic(err)
	}
	go s.Start()
	if !s.ReadyForConnections(30 * time.Second) {
		return 1
	}
	fmt.Println(s.ClientURL())
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	<-ctx.Done()
	s.Shutdown()
	s.WaitForShutdown()
	return 0
}
