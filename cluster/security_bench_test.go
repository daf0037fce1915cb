package cluster_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nkeys"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"

	"github.com/worksteal/worksteal/cluster"

	"github.com/worksteal/worksteal/internal/clusterops"
	"github.com/worksteal/worksteal/internal/loadstat"

	"github.com/worksteal/worksteal/internal/proctest"
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
//	WS_BENCH_TASKS=10000 go test -run '^$' -bench ThroughputSecurity -benchtime 3x ./cluster
//
// On a shared machine the variants' rates move with the neighbours more
// than with the variant: BenchmarkSecurityCost alternates them.
func BenchmarkThroughputSecurity(b *testing.B) {
	tasks := benchTasks()
	for _, v := range secVariants {
		b.Run(v.name, func(b *testing.B) {
			t := newSecBench(b, v)
			var r secRun
			for i := 0; b.Loop(); i++ {
				r = t.job(fmt.Sprintf("bench%d", i), tasks)
			}
			b.ReportMetric(r.rate, "tasks/s")
			b.ReportMetric(r.serverCPU, "server-cpu-µs/task")
			b.ReportMetric(r.serverMsgs, "server-msgs/task")
			b.ReportMetric(r.clientCPU, "clients-cpu-µs/task")
			b.ReportMetric(float64(runtime.NumCPU())*1e6/(r.serverCPU+r.clientCPU), "tasks/s-cpu-bound")
		})
	}
}

// BenchmarkSecurityCost measures the number directly: the share of
// trivial-task throughput that authentication and TLS together cost.
// Both tiers (plain, and nkeys + mutual TLS) stay up side by side, and
// each round runs one batch on each, in alternating order (plain first in
// even rounds), so that a change in the machine's load falls on both; the
// cost is the median over rounds of 1 - secure rate / plain rate.
//
//	WS_BENCH_TASKS=10000 go test -run '^$' -bench SecurityCost -benchtime 8x ./cluster
func BenchmarkSecurityCost(b *testing.B) {
	tasks := benchTasks()
	plain, secure := newSecBench(b, secVariants[0]), newSecBench(b, secVariants[3])
	var costs, plainRates, secureRates, plainCPU, secureCPU []float64
	for i := 0; b.Loop(); i++ {
		order := []*secBench{plain, secure}
		if i%2 == 1 {
			order[0], order[1] = secure, plain
		}
		runs := map[*secBench]secRun{}
		for _, t := range order {
			runs[t] = t.job(fmt.Sprintf("cost%d", i), tasks)
		}
		p, s := runs[plain], runs[secure]
		costs = append(costs, 100*(1-s.rate/p.rate))
		plainRates, secureRates = append(plainRates, p.rate), append(secureRates, s.rate)
		plainCPU, secureCPU = append(plainCPU, p.serverCPU+p.clientCPU), append(secureCPU, s.serverCPU+s.clientCPU)
	}
	b.ReportMetric(loadstat.Median(plainRates), "plain-tasks/s")
	b.ReportMetric(loadstat.Median(secureRates), "secure-tasks/s")
	b.ReportMetric(loadstat.Median(costs), "cost-%")
	b.ReportMetric(loadstat.Median(plainCPU), "plain-cpu-µs/task")
	b.ReportMetric(loadstat.Median(secureCPU), "secure-cpu-µs/task")
}

// benchTasks is the batch size: WS_BENCH_TASKS, default 10,000.
func benchTasks() int {
	if v, err := strconv.Atoi(os.Getenv("WS_BENCH_TASKS")); err == nil && v > 0 {
		return v
	}
	return 10000
}

// secVariant is one security setting of the benchmarked tier.
type secVariant struct {
	name      string
	auth, tls bool
}

var secVariants = []secVariant{{"plain", false, false}, {"nkeys", true, false}, {"tls", false, true}, {"nkeys+mtls", true, true}}

// secBench is a tier of one variant: a server process, two workers and a
// submitter (in this process).
type secBench struct {
	b   *testing.B
	srv *serverProcess
	n   *cluster.Node
}

// secRun is what one batch measured.
type secRun struct {
	rate                 float64 // tasks/s, submit to the last result
	clientCPU, serverCPU float64 // µs per task
	// serverMsgs is the messages the server took in and sent out per
	// task (its /varz in_msgs + out_msgs, over every connection, the
	// recorder's in-process one included).
	serverMsgs float64
}

func newSecBench(b *testing.B, v secVariant) *secBench {
	e := newSecureEnv(b)
	srv := startServerProcess(b, e, v.auth, v.tls)
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
		nc, err := nats.Connect(srv.url, opts...)
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
	t := &secBench{b: b, srv: srv, n: n}
	t.job("warmup", 1) // sets the tier up; the workers bind to it
	return t
}

// job runs a batch of count trivial tasks and measures it.
func (t *secBench) job(id string, count int) secRun {
	j := cluster.Job{ID: id}
	for k := range count {
		j.Tasks = append(j.Tasks, cluster.Task{Handler: "upper", Payload: []byte("task " + strconv.Itoa(k))})
	}
	cpu0, srv0, msgs0 := proctest.CPUTime(), t.srv.cpu(t.b), t.srv.msgs(t.b)
	start := time.Now()
	s, err := t.n.Submit(context.Background(), j)
	if err != nil {
		t.b.Fatal(err)
	}
	defer s.Stop()
	rs, err := s.Wait(context.Background())
	if err != nil || len(rs) != count {
		t.b.Fatalf("%d results, %v; want %d", len(rs), err, count)
	}
	return secRun{
		rate:       float64(count) / time.Since(start).Seconds(),
		clientCPU:  float64((proctest.CPUTime() - cpu0).Microseconds()) / float64(count),
		serverCPU:  float64((t.srv.cpu(t.b) - srv0).Microseconds()) / float64(count),
		serverMsgs: float64(t.srv.msgs(t.b)-msgs0) / float64(count),
	}
}

// serverProcess is a NATS server running in a child process (this test
// binary, role "server").
type serverProcess struct {
	url     string
	monitor string // its monitoring endpoint (http://host:port)
	cmd     *exec.Cmd
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
	url, monitor, _ := strings.Cut(strings.TrimSpace(line), " ")
	return &serverProcess{url: url, monitor: monitor, cmd: cmd}
}

// msgs is the messages the server process has taken in and sent out.
func (p *serverProcess) msgs(b *testing.B) int64 {
	resp, err := http.Get(p.monitor + "/varz")
	if err != nil {
		b.Fatalf("server process's /varz: %v", err)
	}
	defer resp.Body.Close()
	var v struct {
		InMsgs  int64 `json:"in_msgs"`
		OutMsgs int64 `json:"out_msgs"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&v); err != nil {
		b.Fatalf("server process's /varz: %v", err)
	}
	return v.InMsgs + v.OutMsgs
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
	for _, r := range allRoles {
		e.publics[r] = pub(filepath.Join(dir, string(r)+".nk"))
	}
	e.adminPub = pub(filepath.Join(dir, "root.nk"))
	o := &server.Options{ServerName: "bench", Host: "127.0.0.1", Port: -1, JetStream: true, StoreDir: os.Getenv(envURL), NoLog: true, NoSigs: true,
		HTTPHost: "127.0.0.1", HTTPPort: -1}
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
	if f := os.Getenv("WS_CLUSTER_TEST_SERVER_CPUPROFILE"); f != "" { // where the server process's CPU goes
		out, err := os.Create(f)
		if err != nil {
			panic(err)
		}
		pprof.StartCPUProfile(out)
		defer pprof.StopCPUProfile()
	}
	go s.Start()
	if !s.ReadyForConnections(30 * time.Second) {
		return 1
	}
	fmt.Println(s.ClientURL(), "http://"+s.MonitorAddr().String())
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	if os.Getenv(envAuth) == "true" {
		// The recorder that worker-role workers write through, in the
		// server's process, as worksteal serve runs it.
		auth, err := nats.NkeyOptionFromSeed(filepath.Join(dir, "root.nk"))
		if err != nil {
			panic(err)
		}
		nc, err := nats.Connect("", nats.InProcessServer(s), auth)
		if err != nil {
			panic(err)
		}
		n, err := cluster.New(nc, cluster.WithName("recorder"))
		if err != nil {
			panic(err)
		}
		go clusterops.Record(ctx, n, nil)
	}
	<-ctx.Done()
	s.Shutdown()
	s.WaitForShutdown()
	return 0
}
