// End-to-end tests of the worksteal binary's cluster tier: the binary is
// built once (TestMain), and serve, workers and "run --nats" run as real processes
// that the tests kill with real signals. Each fault test checks the
// operator's promise: the run exits 0, every task has exactly one
// successful result, the joblog has a row per task with real times, and
// the extra executions are counted in the summary.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/worksteal/worksteal/internal/syncbuf"
	"github.com/worksteal/worksteal/internal/testdeadline"
	"github.com/worksteal/worksteal/runner"
)

// Settings every process of a test shares: a short ack wait (heartbeat a
// third of it) so that lost workers are noticed quickly.
const ackWait = "1500ms"

// process is a running worksteal process.
type process struct {
	name string
	cmd  *exec.Cmd
	out  *syncBuffer
	done chan struct{}
	code int
}

// syncBuffer is a buffer a process or command writes while the test reads it.
type syncBuffer = syncbuf.Buffer

// launch runs worksteal args; the test's end kills it (and logs its output
// if the test failed).
func launch(t *testing.T, name string, args ...string) *process {
	t.Helper()
	return launchEnv(t, name, nil, args...)
}

// launchEnv is launch with env added to the test's environment.
func launchEnv(t *testing.T, name string, env []string, args ...string) *process {
	t.Helper()
	p := &process{name: name, cmd: exec.Command(wsBin, args...), out: &syncBuffer{}, done: make(chan struct{})}
	if env != nil {
		p.cmd.Env = append(os.Environ(), env...)
	}
	p.cmd.Stdout, p.cmd.Stderr = p.out, p.out
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		p.cmd.Wait()
		p.code = p.cmd.ProcessState.ExitCode()
		close(p.done)
	}()
	t.Cleanup(func() {
		p.cmd.Process.Kill()
		<-p.done
		if t.Failed() {
			t.Logf("--- %s (%s):\n%s", name, strings.Join(args, " "), p.out.String())
		}
	})
	return p
}

// waitFor waits for a line of p's output matching re, and returns the match.
func (p *process) waitFor(t *testing.T, re string) []string {
	t.Helper()
	rx := regexp.MustCompile(re)
	deadline := time.Now().Add(testdeadline.Left(t))
	for time.Now().Before(deadline) {
		if m := rx.FindStringSubmatch(p.out.String()); m != nil {
			return m
		}
		select {
		case <-p.done:
			if m := rx.FindStringSubmatch(p.out.String()); m != nil {
				return m
			}
			t.Fatalf("%s exited (%d) before printing %q:\n%s", p.name, p.code, re, p.out.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
	t.Fatalf("%s did not print %q:\n%s", p.name, re, p.out.String())
	return nil
}

// wait waits for p to exit and returns its status; it fails the test if p
// is still running when the test's deadline nears (testdeadline.Left).
func (p *process) wait(t *testing.T) int {
	t.Helper()
	limit := testdeadline.Left(t)
	select {
	case <-p.done:
		return p.code
	case <-time.After(limit):
		t.Fatalf("%s did not finish in %v (the test's deadline nears):\n%s", p.name, limit, p.out.String())
		return -1
	}
}

func (p *process) signal(t *testing.T, sig syscall.Signal) {
	t.Helper()
	if err := p.cmd.Process.Signal(sig); err != nil {
		t.Fatalf("signal %v to %s: %v", sig, p.name, err)
	}
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// server is one "worksteal serve" that can be killed and started again on
// the same port and store.
type server struct {
	name, addr, store string
	extra             []string
	p                 *process
}

func (s *server) start(t *testing.T) {
	t.Helper()
	args := append([]string{"serve", "--listen", s.addr, "--store", s.store, "--name", s.name}, s.extra...)
	s.p = launch(t, "serve "+s.name, args...)
	s.p.waitFor(t, `JetStream on (nats|tls)://`)
}

func (s *server) url() string { return "nats://" + s.addr }

// batch is a run's input: n commands, each appending its id to a file,
// then sleeping 50 to 300 ms in a child of the shell (so that a worker's
// death must end a process group, not one process).
type batch struct {
	dir, ids, joblog, input string
	n                       int
	// exactCount: the submitter stays connected, so every extra run is
	// heard of and the summary's count must cover the observed ones.
	exactCount bool
}

func newBatch(t *testing.T, n int) *batch {
	dir := t.TempDir()
	b := &batch{dir: dir, ids: filepath.Join(dir, "ids"), joblog: filepath.Join(dir, "jobs.tsv"), input: filepath.Join(dir, "input"), n: n, exactCount: true}
	var in strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&in, "echo %d >> %s; sleep 0.%03d; true\n", i, b.ids, 50+(i*97)%250)
	}
	if err := os.WriteFile(b.input, []byte(in.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return b
}

// executions is the number of times the batch's commands have started.
func (b *batch) executions() int {
	data, _ := os.ReadFile(b.ids)
	return bytes.Count(data, []byte("\n"))
}

// run starts "worksteal run --nats" on the batch.
func (b *batch) run(t *testing.T, url string, extra ...string) *process {
	args := append([]string{"run", "--nats", url, "--ack-wait", ackWait, "--joblog", b.joblog, "--progress=lines", "--summary", "-a", b.input}, extra...)
	return launch(t, "run", args...)
}

// waitExecutions waits until the batch has started k commands.
func (b *batch) waitExecutions(t *testing.T, k int, run *process) {
	t.Helper()
	deadline := time.Now().Add(testdeadline.Left(t))
	for b.executions() < k {
		select {
		case <-run.done:
			t.Fatalf("run exited %d after %d of %d executions:\n%s", run.code, b.executions(), k, run.out.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("only %d of %d executions started:\n%s", b.executions(), k, run.out.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// check asserts the promise on a finished run: exit 0, every id in the
// input exactly once successful in the joblog with real times, every
// execution (the ids file) of a known task, and the extra executions
// reported.
func (b *batch) check(t *testing.T, run *process, began time.Time) {
	t.Helper()
	if code := run.wait(t); code != 0 {
		t.Fatalf("run exited %d; want 0:\n%s", code, run.out.String())
	}
	recs, err := runner.ReadJoblogFile(b.joblog)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != b.n {
		t.Errorf("joblog has %d rows; want %d", len(recs), b.n)
	}
	seen := map[int]int{}
	for _, r := range recs {
		seen[r.Seq]++
		if !r.OK() || r.Start.Before(began.Add(-time.Second)) || r.Start.After(time.Now()) || r.Runtime < 40*time.Millisecond || r.Host == "" {
			t.Errorf("joblog row %+v: want a success with a real start time and run time", r)
		}
	}
	for i := 1; i <= b.n; i++ {
		if seen[i] != 1 {
			t.Errorf("task %d has %d successful results; want exactly 1", i, seen[i])
		}
	}
	// Every task ran; at-least-once execution may run some twice, and
	// the summary must say how many ran again.
	data, _ := os.ReadFile(b.ids)
	ran := map[int]int{}
	for _, f := range strings.Fields(string(data)) {
		i, _ := strconv.Atoi(f)
		ran[i]++
	}
	extra := b.executions() - b.n
	for i := 1; i <= b.n; i++ {
		if ran[i] == 0 {
			t.Errorf("task %d never ran", i)
		}
	}
	m := regexp.MustCompile(`extra executions: (\d+)`).FindStringSubmatch(run.out.String())
	if m == nil {
		t.Fatalf("the summary reports no extra executions:\n%s", run.out.String())
	}
	reported, _ := strconv.Atoi(m[1])
	t.Logf("%d tasks, %d executions started, %d extra reported", b.n, b.executions(), reported)
	switch {
	case extra > 0 && reported == 0:
		t.Errorf("%d commands ran more than once, the summary reports %d extra executions", extra, reported)
	case b.exactCount && reported < extra:
		// (A run lost while the submitter was away from the server, as
		// when serve restarts, may be missed: then only the above holds.)
		t.Errorf("%d commands ran more than once, the summary reports only %d extra executions", extra, reported)
	}
	if !strings.Contains(run.out.String(), "jobs "+strconv.Itoa(b.n)+": "+strconv.Itoa(b.n)+" succeeded, 0 failed") {
		t.Errorf("summary lacks all %d succeeded:\n%s", b.n, run.out.String())
	}
}

// deployment is one serve and three workers of 4 slots.
func deployment(t *testing.T) (*server, []*process) { return deploymentAck(t, ackWait) }

// deploymentAck is deployment with the ack wait ack.
func deploymentAck(t *testing.T, ack string) (*server, []*process) {
	srv := &server{name: "solo", addr: fmt.Sprintf("127.0.0.1:%d", freePort(t)), store: t.TempDir()}
	srv.start(t)
	var workers []*process
	for i := 1; i <= 3; i++ {
		w := launch(t, fmt.Sprintf("worker w%d", i), "worker", "--nats", srv.url(), "-j", "4", "--name", fmt.Sprintf("w%d", i), "--ack-wait", ack)
		w.waitFor(t, "serving sh")
		workers = append(workers, w)
	}
	return srv, workers
}

// TestWorkerKilledMidBatch: 500 tasks; one of three workers is killed
// with SIGKILL a quarter of the way in.
func TestWorkerKilledMidBatch(t *testing.T) {
	t.Parallel()
	srv, workers := deployment(t)
	b := newBatch(t, 500)
	began := time.Now()
	run := b.run(t, srv.url())
	b.waitExecutions(t, b.n/4, run)
	workers[0].signal(t, syscall.SIGKILL)
	b.check(t, run, began)
}

// TestTwoOfThreeWorkersKilled: two of three workers die with SIGKILL.
func TestTwoOfThreeWorkersKilled(t *testing.T) {
	t.Parallel()
	srv, workers := deployment(t)
	b := newBatch(t, 150)
	began := time.Now()
	run := b.run(t, srv.url())
	b.waitExecutions(t, b.n/4, run)
	workers[0].signal(t, syscall.SIGKILL)
	workers[1].signal(t, syscall.SIGKILL)
	b.check(t, run, began)
}

// TestWorkerStoppedMidBatch: a worker stopped with SIGTERM hands its
// running tasks back at once; it exits 0 and they are not attempts.
func TestWorkerStoppedMidBatch(t *testing.T) {
	t.Parallel()
	srv, workers := deployment(t)
	b := newBatch(t, 150)
	began := time.Now()
	run := b.run(t, srv.url())
	b.waitExecutions(t, b.n/4, run)
	workers[0].signal(t, syscall.SIGTERM)
	if code := workers[0].wait(t); code != 0 {
		t.Errorf("the stopped worker exited %d; want 0", code)
	}
	b.check(t, run, began)
}

// TestServerKilledAndRestarted: serve dies with SIGKILL and comes back on
// the same port and store after 3 s, and after 20 s (longer than the ack
// wait, the heartbeats' timeout and the workers' request timeouts: every
// running task's lease expires while the server is away).
func TestServerKilledAndRestarted(t *testing.T) {
	t.Parallel()
	for _, away := range []time.Duration{3 * time.Second, 20 * time.Second} {
		t.Run(fmt.Sprintf("away %v", away), func(t *testing.T) {
			t.Parallel()
			srv, workers := deployment(t)
			b := newBatch(t, 150)
			b.exactCount = false
			began := time.Now()
			run := b.run(t, srv.url())
			b.waitExecutions(t, b.n/4, run)
			srv.p.signal(t, syscall.SIGKILL)
			<-srv.p.done
			time.Sleep(away)
			srv.start(t)
			b.check(t, run, began)
			b.checkCounts(t, run, srv.url())
			// Workers say when they lose and regain the server.
			for _, w := range workers {
				if out := w.out.String(); !strings.Contains(out, "lost the NATS server") || !strings.Contains(out, "reconnected to") {
					t.Errorf("%s did not log losing and regaining the server:\n%s", w.name, out)
				}
			}
		})
	}
}

// TestClusterLosesStreamLeader: three serve processes form a JetStream
// cluster; the batch runs with --replicas 3 and the server that leads the
// task stream dies with SIGKILL. Workers must not flood their logs while
// the cluster elects a new leader.
func TestClusterLosesStreamLeader(t *testing.T) {
	t.Parallel()
	var servers []*server
	var routes []string
	clusterPorts := []int{freePort(t), freePort(t), freePort(t)}
	for _, p := range clusterPorts {
		routes = append(routes, fmt.Sprintf("nats://127.0.0.1:%d", p))
	}
	for i, p := range clusterPorts {
		servers = append(servers, &server{name: fmt.Sprintf("s%d", i+1), addr: fmt.Sprintf("127.0.0.1:%d", freePort(t)), store: t.TempDir(),
			extra: []string{"--cluster-listen", fmt.Sprintf("127.0.0.1:%d", p), "--routes", strings.Join(routes, ",")}})
	}
	for _, s := range servers {
		s.start(t)
	}
	var urls []string
	for _, s := range servers {
		urls = append(urls, s.url())
	}
	all := strings.Join(urls, ",")
	var workers []*process
	for i := 1; i <= 3; i++ {
		// Each worker first tries a different server.
		order := strings.Join(append(append([]string{}, urls[i-1:]...), urls[:i-1]...), ",")
		w := launch(t, fmt.Sprintf("worker w%d", i), "worker", "--nats", order, "-j", "4", "--name", fmt.Sprintf("w%d", i), "--ack-wait", ackWait, "--replicas", "3")
		w.waitFor(t, "serving sh")
		workers = append(workers, w)
	}
	b := newBatch(t, 150)
	began := time.Now()
	run := b.run(t, all, "--replicas", "3")
	b.waitExecutions(t, b.n/4, run)
	leader := streamLeader(t, all)
	var victim *server
	for _, s := range servers {
		if s.name == leader {
			victim = s
		}
	}
	if victim == nil {
		t.Fatalf("stream leader %q is none of the servers", leader)
	}
	t.Logf("killing %s, the task stream's leader", leader)
	victim.p.signal(t, syscall.SIGKILL)
	b.check(t, run, began)
	elapsed := time.Since(began).Seconds()
	for _, w := range workers {
		lines := strings.Count(w.out.String(), "\n")
		if float64(lines) > 10+5*elapsed {
			t.Errorf("%s logged %d lines in %.0f s; want a quiet log while the cluster elects:\n%s", w.name, lines, elapsed, w.out.String())
		}
	}
}

// streamLeader names the server that leads the task stream.
func streamLeader(t *testing.T, urls string) string {
	t.Helper()
	nc, err := nats.Connect(urls)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, _ := jetstream.New(nc)
	ctx, cancel := context.WithTimeout(context.Background(), testdeadline.Left(t))
	defer cancel()
	st, err := js.Stream(ctx, "ws_tasks")
	if err != nil {
		t.Fatal(err)
	}
	info, err := st.Info(ctx)
	if err != nil || info.Cluster == nil {
		t.Fatalf("stream info: %v", err)
	}
	return info.Cluster.Leader
}

// TestKilledWorkerLeavesNoProcesses: the commands running on a worker
// that dies by SIGKILL die with it, children of the shell included.
func TestKilledWorkerLeavesNoProcesses(t *testing.T) {
	if _, err := os.Stat("/proc/self/environ"); err != nil {
		t.Skip("needs /proc to find the worker's commands")
	}
	t.Parallel()
	srv := &server{name: "solo", addr: fmt.Sprintf("127.0.0.1:%d", freePort(t)), store: t.TempDir()}
	srv.start(t)
	w := launch(t, "worker victim", "worker", "--nats", srv.url(), "-j", "2", "--name", "victim", "--ack-wait", ackWait, "--grace", "200ms")
	w.waitFor(t, "serving sh")
	b := &batch{dir: t.TempDir()}
	b.input = filepath.Join(b.dir, "input")
	os.WriteFile(b.input, []byte("sleep 300; true\nsleep 301; true\n"), 0o644)
	run := launch(t, "run", "run", "--nats", srv.url(), "--progress=lines", "-a", b.input)
	t.Cleanup(func() { run.cmd.Process.Kill() })
	waitProcs := func(want func(n int) bool, what string) {
		t.Helper()
		deadline := time.Now().Add(testdeadline.Left(t))
		for !want(len(commandsOf("victim"))) {
			if time.Now().After(deadline) {
				t.Fatalf("%s: the worker's commands are %v", what, commandsOf("victim"))
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	waitProcs(func(n int) bool { return n >= 4 }, "two shells and their sleeps running") // two shells, two sleeps
	// While nothing finishes, a progress line every second names the
	// longest-running task and its worker.
	run.waitFor(t, `progress: 0/2 done, 0 failed, 2 running \(longest: job [12] on victim for [0-9.]+s\)`)
	w.signal(t, syscall.SIGKILL)
	waitProcs(func(n int) bool { return n == 0 }, "after the worker's SIGKILL")
}

// commandsOf lists the processes whose environment says they run a
// command of the named worker.
func commandsOf(worker string) []int {
	var pids []int
	ents, _ := os.ReadDir("/proc")
	mark := []byte("WORKSTEAL_WORKER=" + worker + "\x00")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err == nil && bytes.Contains(env, mark) {
			if stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat")); err == nil && isZombie(stat) {
				continue
			}
			pids = append(pids, pid)
		}
	}
	return pids
}

func isZombie(stat []byte) bool {
	sc := bufio.NewScanner(bytes.NewReader(stat))
	sc.Split(bufio.ScanWords)
	for i := 0; sc.Scan(); i++ {
		if i == 2 {
			return sc.Text() == "Z"
		}
	}
	return false
}

// checkCounts checks that the run's summary, job status and job results
// count the extra executions from one source: once the workers have
// settled, job status and the sum over job results agree, cover every
// extra execution that happened (the ids file), and the summary, written
// when the last result came, says no more than they do.
func (b *batch) checkCounts(t *testing.T, run *process, url string) {
	t.Helper()
	out := run.out.String()
	m := regexp.MustCompile(`job (\S+): \d+ tasks`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("the run does not name its job:\n%s", out)
	}
	job := m[1]
	summary, _ := strconv.Atoi(regexp.MustCompile(`extra executions: (\d+)`).FindStringSubmatch(out)[1])
	for last, stable := -1, 0; stable < 3; time.Sleep(time.Second) { // the runs still going end
		if n := b.executions(); n == last {
			stable++
		} else {
			last, stable = n, 0
		}
	}
	actual := b.executions() - b.n
	var status, results int
	for range 10 { // a discarded run's count may still be on its way
		st := launch(t, "job status", "job", "status", job, "--nats", url)
		st.wait(t)
		sm := regexp.MustCompile(`extra executions: (\d+)`).FindStringSubmatch(st.out.String())
		if sm == nil {
			t.Fatalf("job status does not count extra executions:\n%s", st.out.String())
		}
		status, _ = strconv.Atoi(sm[1])
		rs := launch(t, "job results", "job", "results", job, "--json", "--nats", url)
		rs.wait(t)
		results = 0
		for _, line := range strings.Split(strings.TrimSpace(rs.out.String()), "\n") {
			var r struct{ Attempt, Deliveries, Discarded int }
			if err := json.Unmarshal([]byte(line), &r); err != nil {
				t.Fatalf("job results --json: %v: %q", err, line)
			}
			results += r.Attempt - 1 + max(0, r.Deliveries-r.Attempt) + r.Discarded
		}
		if status == results && status >= actual {
			break
		}
		time.Sleep(time.Second)
	}
	t.Logf("extra executions: %d happened; summary %d, job status %d, job results %d", actual, summary, status, results)
	if status != results || status < actual || summary > status {
		t.Errorf("extra executions: %d happened, the summary says %d, job status %d, job results %d: want status = results >= what happened, and the summary no more",
			actual, summary, status, results)
	}
}
