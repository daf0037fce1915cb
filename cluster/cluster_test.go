package cluster_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/worksteal/worksteal/balance"
	"github.com/worksteal/worksteal/cluster"
	"github.com/worksteal/worksteal/internal/clusterops"
	"github.com/worksteal/worksteal/internal/testdeadline"
)

var backoffFast = balance.Backoff{Initial: 20 * time.Millisecond, Max: 200 * time.Millisecond, Multiplier: 2}

// startServing runs n.Serve until the test ends, and checks that it
// returns nil then.
func startServing(t testing.TB, n *cluster.Node) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- n.Serve(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
}

// serve starts an in-process worker on nc; it stops with the test.
func serve(t testing.TB, nc *nats.Conn, opts ...cluster.Option) *cluster.Node {
	t.Helper()
	n, err := cluster.New(nc, testOptions(opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	register(n)
	startServing(t, n)
	// Registered once the worker is listed (Submit checks handlers).
	waitFor(t, "the worker's registration", func() bool {
		ws, _ := clusterops.Workers(context.Background(), n)
		for _, w := range ws {
			if w.Name == n.Name() {
				return true
			}
		}
		return false
	})
	return n
}

func submitter(t testing.TB, nc *nats.Conn, opts ...cluster.Option) *cluster.Node {
	t.Helper()
	n, err := cluster.New(nc, testOptions(opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// waitJob waits generously for a job's results.
func waitJob(t *testing.T, s *cluster.Submission) []cluster.Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testdeadline.Left(t))
	defer cancel()
	rs, err := s.Wait(ctx)
	if err != nil && !errors.Is(err, cluster.ErrTasksFailed) { // the tests check the failures
		t.Fatalf("Wait: %v (progress %+v)", err, s.Progress())
	}
	return rs
}

// checkRecordedOnce checks that the results bucket was written exactly
// once per task: every write to a key-value bucket is a message in its
// stream, and a rejected duplicate writes nothing.
func checkRecordedOnce(t *testing.T, nc *nats.Conn, tasks int) {
	t.Helper()
	js, _ := jetstream.New(nc)
	ctx, cancel := context.WithTimeout(context.Background(), testdeadline.Left(t))
	defer cancel()
	st, err := js.Stream(ctx, "KV_ws_results")
	if err != nil {
		t.Fatal(err)
	}
	info, err := st.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// Beyond the one create per task, the only writes are the counts of
	// discarded runs that workers add to a record (Result.Discarded).
	discarded := 0
	kv, err := js.KeyValue(ctx, "ws_results")
	if err != nil {
		t.Fatal(err)
	}
	if keys, err := kv.ListKeys(ctx); err == nil {
		for k := range keys.Keys() {
			if e, err := kv.Get(ctx, k); err == nil {
				var r cluster.Result
				if json.Unmarshal(e.Value(), &r) == nil {
					discarded += r.Discarded
				}
			}
		}
	}
	if info.State.LastSeq != uint64(tasks+discarded) || info.State.Msgs != uint64(tasks) {
		t.Errorf("results stream: %d writes, %d kept; want exactly %d records (one per task) and %d writes (with %d discarded runs counted)",
			info.State.LastSeq, info.State.Msgs, tasks, tasks+discarded, discarded)
	}
}

func TestSingleServerDeliversEachResultOnce(t *testing.T) {
	srv := startServer(t)
	serve(t, connect(t, srv.ClientURL()), cluster.WithSlots(3), cluster.WithName("w1"))
	serve(t, connect(t, srv.ClientURL()), cluster.WithSlots(2), cluster.WithName("w2"))
	n := submitter(t, connect(t, srv.ClientURL()))

	job := cluster.Job{ID: "words"}
	words := strings.Fields("the quick brown fox jumps over the lazy dog again and again")
	for i, w := range words {
		job.Tasks = append(job.Tasks, cluster.Task{ID: "w" + strconv.Itoa(i), Handler: "upper", Payload: []byte(w)})
	}
	job.Tasks = append(job.Tasks, cluster.Task{ID: "sum", Handler: "sum", Payload: []byte("100000")})
	s, err := n.Submit(context.Background(), job)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	if s.Resumed {
		t.Error("a new job says Resumed")
	}
	// Results stream in as they are recorded, each once.
	seen := map[string]bool{}
	rs := make([]cluster.Result, len(job.Tasks))
	for {
		r, err := s.Next(context.Background())
		if errors.Is(err, cluster.ErrNoMoreResults) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if seen[r.Task] {
			t.Errorf("Next returned %s twice", r.Task)
		}
		seen[r.Task] = true
		rs[r.Index] = r
	}
	// What Next returned is the caller's: Wait returns the rest (none).
	if rest := waitJob(t, s); len(rest) != 0 || len(seen) != len(job.Tasks) {
		t.Fatalf("%d streamed, then %d results from Wait; want %d and none", len(seen), len(rest), len(job.Tasks))
	}
	for i, r := range rs[:len(words)] {
		if !r.OK() || string(r.Output) != strings.ToUpper(words[i]) || r.Index != i || r.Attempt != 1 {
			t.Errorf("result %d = %+v; want %q", i, r, strings.ToUpper(words[i]))
		}
	}
	if last := rs[len(rs)-1]; string(last.Output) != "4999950000" {
		t.Errorf("sum on the pool = %s (%s); want 4999950000", last.Output, last.Error)
	}
	if p := s.Progress(); p.Succeeded != len(job.Tasks) || p.Failed != 0 || p.Done() != p.Total {
		t.Errorf("progress %+v", p)
	}
	checkRecordedOnce(t, n2(t, srv), len(job.Tasks))

	// Open follows a recorded job from its state in JetStream.
	o, err := n.Open(context.Background(), "words")
	if err != nil {
		t.Fatal(err)
	}
	defer o.Stop()
	if got := waitJob(t, o); len(got) != len(rs) {
		t.Errorf("Open: %d results; want %d", len(got), len(rs))
	}
}

func n2(t *testing.T, srv *server.Server) *nats.Conn { return connect(t, srv.ClientURL()) }

func TestFailuresRetriesAndPermanentErrors(t *testing.T) {
	srv := startServer(t)
	serve(t, connect(t, srv.ClientURL()), cluster.WithSlots(4), cluster.WithMaxDeliver(4))
	n := submitter(t, connect(t, srv.ClientURL()), cluster.WithMaxDeliver(4))
	job := cluster.Job{ID: "failures", MaxAttempts: 3, Tasks: []cluster.Task{
		{ID: "flaky", Handler: "flaky", Payload: []byte("3")}, // succeeds on its third run
		{ID: "poison", Handler: "poison"},                     // fails its 3 runs
		{ID: "permanent", Handler: "permanent"},               // fails once, for good
		{ID: "panics", Handler: "panics"},                     // a panic is an error
	}}
	s, err := n.Submit(context.Background(), job)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	// Wait says how many tasks failed, and still returns every result.
	ctx, cancel := context.WithTimeout(context.Background(), testdeadline.Left(t))
	defer cancel()
	rs, err := s.Wait(ctx)
	if !errors.Is(err, cluster.ErrTasksFailed) || !strings.Contains(err.Error(), "3 of 4 tasks failed") || len(rs) != 4 {
		t.Fatalf("Wait: %d results, error %v; want 4 and an error wrapping ErrTasksFailed that says 3 of 4 tasks failed", len(rs), err)
	}
	want := []struct {
		ok      bool
		attempt int
		text    string
		failure cluster.Failure
	}{{true, 3, "ok@3", ""}, {false, 3, "always fails", cluster.FailureError}, {false, 1, "bad payload", cluster.FailurePermanent},
		{false, 3, "handler panicked: handler bug", cluster.FailurePanic}}
	for i, w := range want {
		r := rs[i]
		if r.OK() != w.ok || r.Attempt != w.attempt || !strings.Contains(string(r.Output)+r.Error, w.text) || r.Failure != w.failure {
			t.Errorf("task %s: ok %v attempt %d output %q error %q failure %q; want ok %v attempt %d, %q and failure %q",
				r.Task, r.OK(), r.Attempt, r.Output, r.Error, r.Failure, w.ok, w.attempt, w.text, w.failure)
		}
	}
	// A panic's stack is kept apart from its error.
	if p := rs[3]; strings.Contains(p.Error, "goroutine") || !strings.Contains(p.Stack, "goroutine") || rs[1].Stack != "" {
		t.Errorf("panic: error %q, stack %d bytes; a failure without a panic has a %d-byte stack; want the stack apart from the error, and only for a panic",
			p.Error, len(p.Stack), len(rs[1].Stack))
	}
	if string(rs[1].Output) != "partial output" {
		t.Errorf("a failed task's output %q; want it recorded with the error", rs[1].Output)
	}
	checkRecordedOnce(t, n2(t, srv), len(job.Tasks))
}

func TestSpeculativeCopyWins(t *testing.T) {
	srv := startServer(t)
	serve(t, connect(t, srv.ClientURL()), cluster.WithSlots(2), cluster.WithName("a"))
	serve(t, connect(t, srv.ClientURL()), cluster.WithSlots(2), cluster.WithName("b"))
	n := submitter(t, connect(t, srv.ClientURL()))
	before := cancelled.Load()
	job := cluster.Job{ID: "spec", Speculate: true, SpeculateAfter: 300 * time.Millisecond, Tasks: []cluster.Task{
		{ID: "quick1", Handler: "upper", Payload: []byte("a")},
		{ID: "straggler", Handler: "hangs"},
		{ID: "quick2", Handler: "upper", Payload: []byte("b")},
	}}
	s, err := n.Submit(context.Background(), job)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	rs := waitJob(t, s)
	if r := rs[1]; !r.OK() || !r.Speculative || string(r.Output) != "copy" {
		t.Errorf("straggler's result %+v; want the speculative copy's", r)
	}
	if p := s.Progress(); p.Copies < 1 {
		t.Errorf("progress %+v; want a copy", p)
	}
	// The first copy is told to stop once the race is decided.
	waitFor(t, "the losing copy's cancellation", func() bool { return cancelled.Load() > before })
	checkRecordedOnce(t, n2(t, srv), len(job.Tasks))
}

// startWorkerProcess runs a worker in a child process (this test binary,
// re-executed) and returns once it serves. Its "start TASK ATTEMPT" lines
// go to starts.
func startWorkerProcess(t testing.TB, url, name string, starts chan<- string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), envRole+"=worker", envURL+"="+url, envName+"="+name)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	serving := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			line := sc.Text()
			if line == "serving" {
				close(serving)
			} else if starts != nil && strings.HasPrefix(line, "start ") {
				select {
				case starts <- line:
				default:
				}
			}
		}
		io.Copy(io.Discard, out)
	}()
	select {
	case <-serving:
	case <-time.After(testdeadline.Left(t)):
		t.Fatalf("worker %s did not start", name)
	}
	return cmd
}

func TestWorkerKilledMidJob(t *testing.T) {
	srv := startServer(t)
	starts := make(chan string, 100)
	victim := startWorkerProcess(t, srv.ClientURL(), "victim", starts)
	startWorkerProcess(t, srv.ClientURL(), "survivor", nil)
	n := submitter(t, connect(t, srv.ClientURL()))
	job := slowJob("killed", 24, 400)
	s, err := n.Submit(context.Background(), job)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	// Kill the victim while it runs tasks that have saved a checkpoint.
	select {
	case <-starts:
	case <-time.After(testdeadline.Left(t)):
		t.Fatal("the victim started no task")
	}
	if err := victim.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	victim.Wait()
	rs := waitJob(t, s)
	resumed := 0
	for _, r := range rs {
		if !r.OK() {
			t.Errorf("task %s: %+v", r.Task, r)
		}
		if strings.HasPrefix(string(r.Output), "resumed from victim@") {
			resumed++
			if r.Deliveries < 2 || r.Attempt != 1 {
				t.Errorf("task %s resumed on delivery %d, attempt %d; want a redelivery that is still the first attempt", r.Task, r.Deliveries, r.Attempt)
			}
		}
	}
	if resumed == 0 {
		t.Error("no task resumed from the killed worker's checkpoint")
	}
	checkRecordedOnce(t, n2(t, srv), len(job.Tasks))
}

func TestSubmitterRestartResumes(t *testing.T) {
	srv := startServer(t)
	serve(t, connect(t, srv.ClientURL()), cluster.WithSlots(4))
	// The first submitter is a process, killed after some results.
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), envRole+"=submitter", envURL+"="+srv.ClientURL(), envJob+"=restart")
	out, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	sc := bufio.NewScanner(out)
	results := 0
	for results < 5 && sc.Scan() {
		if strings.HasPrefix(sc.Text(), "result ") {
			results++
		}
	}
	if results < 5 {
		t.Fatalf("the first submitter saw %d results", results)
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()

	// A new submitter with the same job resumes it.
	n := submitter(t, connect(t, srv.ClientURL()))
	s, err := n.Submit(context.Background(), slowJob("restart", 40, 100))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	if !s.Resumed || s.Progress().Done() < 5 {
		t.Errorf("resumed %v, progress %+v; want the job resumed with its results", s.Resumed, s.Progress())
	}
	rs := waitJob(t, s)
	for _, r := range rs {
		if !r.OK() {
			t.Errorf("task %s: %s", r.Task, r.Error)
		}
	}
	checkRecordedOnce(t, n2(t, srv), 40)

	// The same id with other tasks is refused, naming the job.
	if _, err := n.Submit(context.Background(), slowJob("restart", 41, 100)); !errors.Is(err, cluster.ErrJobMismatch) || !strings.Contains(err.Error(), "restart") {
		t.Errorf("Submit of other tasks under the same id: %v; want ErrJobMismatch", err)
	}
}

func TestThreeServerClusterLosesOne(t *testing.T) {
	servers := startCluster(t)
	var urls []string
	for _, s := range servers {
		urls = append(urls, s.ClientURL())
	}
	all := strings.Join(urls, ",")
	opts := []cluster.Option{cluster.WithReplicas(3)}
	// One worker on each of two servers' URLs first (connections move
	// when their server dies), the submitter on all.
	serve(t, connect(t, strings.Join(append(urls[1:], urls[0]), ",")), append(opts, cluster.WithSlots(3), cluster.WithName("wa"))...)
	serve(t, connect(t, strings.Join(append(urls[2:], urls[:2]...), ",")), append(opts, cluster.WithSlots(3), cluster.WithName("wb"))...)
	n := submitter(t, connect(t, all), opts...)
	job := slowJob("r3", 30, 150)
	s, err := n.Submit(context.Background(), job)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	waitFor(t, "a third of the results", func() bool { return s.Progress().Done() >= 10 })
	// Kill the server that leads the task stream.
	var victim *server.Server
	for _, srv := range servers {
		if srv.JetStreamIsStreamLeader("$G", "ws_tasks") {
			victim = srv
		}
	}
	if victim == nil {
		victim = servers[0]
	}
	t.Logf("shutting down %s, the task stream's leader", victim.Name())
	victim.Shutdown()
	rs := waitJob(t, s)
	for _, r := range rs {
		if !r.OK() {
			t.Errorf("task %s: %s", r.Task, r.Error)
		}
	}
	var alive *server.Server
	for _, srv := range servers {
		if srv != victim {
			alive = srv
		}
	}
	checkRecordedOnce(t, connect(t, alive.ClientURL()), len(job.Tasks))
}

func TestBadInputErrorsNameTheProblem(t *testing.T) {
	srv := startServer(t)
	serve(t, connect(t, srv.ClientURL()), cluster.WithSlots(1))
	n := submitter(t, connect(t, srv.ClientURL()))
	ctx := context.Background()
	big := make([]byte, 2<<20)
	cases := []struct {
		name string
		job  cluster.Job
		is   error
		want string
	}{
		{"no tasks", cluster.Job{ID: "j"}, cluster.ErrInvalidJob, "job j has no tasks"},
		{"bad job id", cluster.Job{ID: "a.b", Tasks: []cluster.Task{{Handler: "upper"}}}, cluster.ErrInvalidJob, `job id "a.b"`},
		{"bad task id", cluster.Job{ID: "j", Tasks: []cluster.Task{{ID: "x y", Handler: "upper"}}}, cluster.ErrInvalidJob, `id "x y"`},
		{"duplicate task ids", cluster.Job{ID: "j", Tasks: []cluster.Task{{ID: "a", Handler: "upper"}, {ID: "a", Handler: "upper"}}}, cluster.ErrInvalidJob, `tasks 0 and 1 have the same id "a"`},
		{"payload too large", cluster.Job{ID: "j", Tasks: []cluster.Task{{ID: "a", Handler: "upper", Payload: big}}}, cluster.ErrInvalidJob, "task a: payload of 2097152 bytes"},
		{"unknown handler", cluster.Job{ID: "j", Tasks: []cluster.Task{{ID: "a", Handler: "uper"}}}, cluster.ErrUnknownHandler, `"uper": the 1 live worker(s) have`},
		{"negative attempts", cluster.Job{ID: "j", MaxAttempts: -1, Tasks: []cluster.Task{{Handler: "upper"}}}, cluster.ErrInvalidJob, "max attempts -1"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := n.Submit(ctx, tc.job)
			if !errors.Is(err, tc.is) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Submit: %v; want %v mentioning %q", err, tc.is, tc.want)
			}
		})
	}
	if _, err := n.Open(ctx, "never-submitted"); !errors.Is(err, cluster.ErrJobNotFound) || !strings.Contains(err.Error(), "never-submitted") {
		t.Errorf("Open: %v; want ErrJobNotFound naming the job", err)
	}
	for _, opt := range []cluster.Option{cluster.WithStream("a.b"), cluster.WithAckWait(0), cluster.WithSlots(0), cluster.WithReplicas(7), cluster.WithMaxDeliver(0)} {
		if _, err := cluster.New(connect(t, srv.ClientURL()), opt); !errors.Is(err, cluster.ErrInvalidOption) {
			t.Errorf("New with a bad option: %v; want ErrInvalidOption", err)
		}
	}
	// Nothing done is lost: a job submitted after the errors runs.
	s, err := n.Submit(ctx, cluster.Job{ID: "after", Tasks: []cluster.Task{{Handler: "upper", Payload: []byte("ok")}}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	if rs := waitJob(t, s); string(rs[0].Output) != "OK" {
		t.Errorf("result %+v", rs[0])
	}
}

func TestServerWithoutJetStream(t *testing.T) {
	s := runServer(t, &server.Options{ServerName: "plain", Host: "127.0.0.1", Port: -1, NoLog: true, NoSigs: true})
	n := submitter(t, connect(t, s.ClientURL()))
	_, err := n.Submit(context.Background(), cluster.Job{Tasks: []cluster.Task{{Handler: "upper"}}})
	if !errors.Is(err, cluster.ErrJetStream) || !strings.Contains(err.Error(), "no JetStream") {
		t.Errorf("Submit: %v; want ErrJetStream saying the server has no JetStream", err)
	}
}

// keep imports used when tests are trimmed.
var _ = fmt.Sprint
var _ sync.Mutex

func TestPoisonTaskRecordedAfterLostDeliveries(t *testing.T) {
	srv := startServer(t)
	// A task that kills each worker it reaches: after 2 deliveries that
	// ended without an outcome, the third worker records it as poison
	// (no attempt spent: the handler never returned), and lives on.
	for _, name := range []string{"p1", "p2", "p3"} {
		startWorkerProcess(t, srv.ClientURL(), name, nil)
	}
	n := submitter(t, connect(t, srv.ClientURL()), cluster.WithMaxDeliver(2))
	s, err := n.Submit(context.Background(), cluster.Job{ID: "poison", Tasks: []cluster.Task{{ID: "crash", Handler: "crash"}}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	rs := waitJob(t, s)
	if r := rs[0]; r.OK() || !strings.Contains(r.Error, "poison") || r.Failure != cluster.FailurePoison || r.Deliveries != 3 || r.Attempt != 1 {
		t.Errorf("result %+v; want a poison failure on the 3rd delivery, no attempt spent", r)
	}
	after, err := n.Submit(context.Background(), cluster.Job{ID: "after", Tasks: []cluster.Task{{Handler: "upper", Payload: []byte("x")}}})
	if err != nil {
		t.Fatal(err)
	}
	defer after.Stop()
	if r := waitJob(t, after)[0]; !r.OK() || r.Deliveries != 1 {
		t.Errorf("a task after the poison one: %+v", r)
	}
}

func TestRetriesWaitTheJobsRetryDelay(t *testing.T) {
	srv := startServer(t)
	serve(t, connect(t, srv.ClientURL()), cluster.WithSlots(2))
	n := submitter(t, connect(t, srv.ClientURL()))
	clearFlakyStarts("delays.f") // an earlier run in this process (-count) left its own
	// flaky fails its first two attempts; the retries wait the job's
	// delay, doubling: [100, 200] ms, then [200, 400] ms (jitter 0.5),
	// not the worker's backoff (20 ms here) nor any server backoff.
	job := cluster.Job{ID: "delays", MaxAttempts: 3, RetryDelay: 200 * time.Millisecond,
		Tasks: []cluster.Task{{ID: "f", Handler: "flaky", Payload: []byte("3")}}}
	s, err := n.Submit(context.Background(), job)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	r := waitJob(t, s)[0]
	if !r.OK() || r.Attempt != 3 {
		t.Fatalf("result %+v; want success on attempt 3", r)
	}
	// Each attempt starts once, or more (at least once: a heartbeat
	// late past the ack wait on a loaded machine redelivers a running
	// attempt, which runs again as the same attempt), and no attempt
	// beyond the job's 3 ever starts.
	first := map[int]time.Time{}
	for _, st := range flakyStarts("delays.f") {
		if st.attempt < 1 || st.attempt > 3 {
			t.Errorf("flaky started as attempt %d; the job allows 3", st.attempt)
		}
		if _, ok := first[st.attempt]; !ok {
			first[st.attempt] = st.at
		}
	}
	if len(first) != 3 {
		t.Fatalf("flaky started as attempts %v; want 1, 2 and 3", first)
	}
	for i, min := range []time.Duration{100 * time.Millisecond, 200 * time.Millisecond} {
		if gap := first[i+2].Sub(first[i+1]); gap < min {
			t.Errorf("retry %d came %v after the failure; want at least %v (the job's retry delay)", i+1, gap, min)
		}
	}
}

func TestAckWaitIsTheDeployments(t *testing.T) {
	srv := startServer(t)
	// The first node sets the deployment's ack wait; a later one that
	// asks for another adopts it, says so, and does not change it.
	first := submitter(t, connect(t, srv.ClientURL()), cluster.WithStream("aw"), cluster.WithAckWait(3*time.Second))
	if _, err := clusterops.Jobs(context.Background(), first); err != nil {
		t.Fatal(err)
	}
	var told []string
	var mu sync.Mutex
	later := submitter(t, connect(t, srv.ClientURL()), cluster.WithStream("aw"), cluster.WithAckWait(500*time.Millisecond),
		cluster.WithErrorHandler(func(err error) { mu.Lock(); told = append(told, err.Error()); mu.Unlock() }))
	if _, err := clusterops.Jobs(context.Background(), later); err != nil {
		t.Fatal(err)
	}
	js, _ := jetstream.New(connect(t, srv.ClientURL()))
	c, err := js.Consumer(context.Background(), "aw_tasks", "aw_workers")
	if err != nil {
		t.Fatal(err)
	}
	if got := c.CachedInfo().Config.AckWait; got != 3*time.Second {
		t.Errorf("consumer ack wait %v after a later node asked for 500ms; want the deployment's 3s", got)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(told) != 1 || !strings.Contains(told[0], "ack wait 500ms not applied") || !strings.Contains(told[0], "uses 3s") {
		t.Errorf("the later node said %q; want one notice that its 500ms is not applied", told)
	}
}
