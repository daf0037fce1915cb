package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
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

	"github.com/worksteal/worksteal/internal/joblog"
	"github.com/worksteal/worksteal/internal/syncbuf"
	"github.com/worksteal/worksteal/internal/testdeadline"
)

// Settings every process of a test shares: a short ack wait (heartbeat a
// third of it) so that lost workers are noticed quickly.
const AckWait = "1500ms"

// Process is a running worksteal process.
type Process struct {
	Name string
	Cmd  *exec.Cmd
	Out  *syncbuf.Buffer
	Done chan struct{}
	Code int
}

// Launch runs worksteal args; the test's end kills it (and logs its output
// if the test failed).
func Launch(t *testing.T, name string, args ...string) *Process {
	t.Helper()
	return LaunchEnv(t, name, nil, args...)
}

// LaunchEnv is launch with env added to the test's environment.
func LaunchEnv(t *testing.T, name string, env []string, args ...string) *Process {
	t.Helper()
	p := &Process{Name: name, Cmd: exec.Command(Bin, args...), Out: &syncbuf.Buffer{}, Done: make(chan struct{})}
	if env != nil {
		p.Cmd.Env = append(os.Environ(), env...)
	}
	p.Cmd.Stdout, p.Cmd.Stderr = p.Out, p.Out
	if dir := os.Getenv("WORKSTEAL_E2E_LOGDIR"); dir != "" {
		// Debugging: each process's output also goes to a file there,
		// readable while the test runs (a stall's goroutine dump, after
		// kill -QUIT, included).
		f, err := os.Create(filepath.Join(dir, fmt.Sprintf("%s-%d-%s.log", strings.NewReplacer("/", "_", " ", "_").Replace(t.Name()), time.Now().UnixNano(), strings.ReplaceAll(name, " ", "_"))))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		w := io.MultiWriter(p.Out, f)
		p.Cmd.Stdout, p.Cmd.Stderr = w, w
	}
	if err := p.Cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		p.Cmd.Wait()
		p.Code = p.Cmd.ProcessState.ExitCode()
		close(p.Done)
	}()
	t.Cleanup(func() {
		p.Cmd.Process.Kill()
		<-p.Done
		if t.Failed() {
			t.Logf("--- %s (%s):\n%s", name, strings.Join(args, " "), p.Out.String())
		}
	})
	return p
}

// waitFor waits for a line of p's output matching re, and returns the match.
func (p *Process) WaitFor(t *testing.T, re string) []string {
	t.Helper()
	rx := regexp.MustCompile(re)
	deadline := time.Now().Add(testdeadline.Left(t))
	for time.Now().Before(deadline) {
		if m := rx.FindStringSubmatch(p.Out.String()); m != nil {
			return m
		}
		select {
		case <-p.Done:
			if m := rx.FindStringSubmatch(p.Out.String()); m != nil {
				return m
			}
			t.Fatalf("%s exited (%d) before printing %q:\n%s", p.Name, p.Code, re, p.Out.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
	t.Fatalf("%s did not print %q:\n%s", p.Name, re, p.Out.String())
	return nil
}

// wait waits for p to exit and returns its status; it fails the test if p
// is still running when the test's deadline nears (testdeadline.Left).
func (p *Process) Wait(t *testing.T) int {
	t.Helper()
	limit := testdeadline.Left(t)
	select {
	case <-p.Done:
		return p.Code
	case <-time.After(limit):
		t.Fatalf("%s did not finish in %v (the test's deadline nears):\n%s", p.Name, limit, p.Out.String())
		return -1
	}
}

func (p *Process) Signal(t *testing.T, sig syscall.Signal) {
	t.Helper()
	if err := p.Cmd.Process.Signal(sig); err != nil {
		t.Fatalf("signal %v to %s: %v", sig, p.Name, err)
	}
}

func FreePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// Server is one "worksteal serve" that can be killed and started again on
// the same port and store.
type Server struct {
	Name, Addr, Store string
	Extra             []string
	P                 *Process
}

func (s *Server) Start(t *testing.T) {
	t.Helper()
	args := append([]string{"serve", "--listen", s.Addr, "--store", s.Store, "--name", s.Name}, s.Extra...)
	s.P = Launch(t, "serve "+s.Name, args...)
	s.P.WaitFor(t, `JetStream on (nats|tls)://`)
}

func (s *Server) URL() string { return "nats://" + s.Addr }

// Batch is a run's input: n commands, each appending its id to a file,
// then sleeping 50 to 300 ms in a child of the shell (so that a worker's
// death must end a process group, not one process).
type Batch struct {
	Dir, ids, joblog, Input string
	N                       int
	// exactCount: the submitter stays connected, so every extra run is
	// heard of and the summary's count must cover the observed ones.
	ExactCount bool
}

func NewBatch(t *testing.T, n int) *Batch {
	dir := t.TempDir()
	b := &Batch{Dir: dir, ids: filepath.Join(dir, "ids"), joblog: filepath.Join(dir, "jobs.tsv"), Input: filepath.Join(dir, "input"), N: n, ExactCount: true}
	var in strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&in, "echo %d >> %s; sleep 0.%03d; true\n", i, b.ids, 50+(i*97)%250)
	}
	if err := os.WriteFile(b.Input, []byte(in.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return b
}

// executions is the number of times the batch's commands have started.
func (b *Batch) Executions() int {
	data, _ := os.ReadFile(b.ids)
	return bytes.Count(data, []byte("\n"))
}

// run starts "worksteal run --nats" on the batch.
func (b *Batch) Run(t *testing.T, url string, extra ...string) *Process {
	args := append([]string{"run", "--nats", url, "--ack-wait", AckWait, "--joblog", b.joblog, "--progress=lines", "--summary", "-a", b.Input}, extra...)
	return Launch(t, "run", args...)
}

// waitExecutions waits until the batch has started k commands.
func (b *Batch) WaitExecutions(t *testing.T, k int, run *Process) {
	t.Helper()
	deadline := time.Now().Add(testdeadline.Left(t))
	for b.Executions() < k {
		select {
		case <-run.Done:
			t.Fatalf("run exited %d after %d of %d executions:\n%s", run.Code, b.Executions(), k, run.Out.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("only %d of %d executions started:\n%s", b.Executions(), k, run.Out.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// check asserts the promise on a finished run: exit 0, every id in the
// input exactly once successful in the joblog with real times, every
// execution (the ids file) of a known task, and the extra executions
// reported.
func (b *Batch) Check(t *testing.T, run *Process, began time.Time) {
	t.Helper()
	if code := run.Wait(t); code != 0 {
		t.Fatalf("run exited %d; want 0:\n%s", code, run.Out.String())
	}
	recs, err := joblog.ReadFile(b.joblog)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != b.N {
		t.Errorf("joblog has %d rows; want %d", len(recs), b.N)
	}
	seen := map[int]int{}
	for _, r := range recs {
		seen[r.Seq]++
		if !r.OK() || r.Start.Before(began.Add(-time.Second)) || r.Start.After(time.Now()) || r.Runtime < 40*time.Millisecond || r.Host == "" {
			t.Errorf("joblog row %+v: want a success with a real start time and run time", r)
		}
	}
	for i := 1; i <= b.N; i++ {
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
	extra := b.Executions() - b.N
	for i := 1; i <= b.N; i++ {
		if ran[i] == 0 {
			t.Errorf("task %d never ran", i)
		}
	}
	m := regexp.MustCompile(`extra executions: (\d+)`).FindStringSubmatch(run.Out.String())
	if m == nil {
		t.Fatalf("the summary reports no extra executions:\n%s", run.Out.String())
	}
	reported, _ := strconv.Atoi(m[1])
	t.Logf("%d tasks, %d executions started, %d extra reported", b.N, b.Executions(), reported)
	switch {
	case extra > 0 && reported == 0:
		t.Errorf("%d commands ran more than once, the summary reports %d extra executions", extra, reported)
	case b.ExactCount && reported < extra:
		// (A run lost while the submitter was away from the server, as
		// when serve restarts, may be missed: then only the above holds.)
		t.Errorf("%d commands ran more than once, the summary reports only %d extra executions", extra, reported)
	}
	if !strings.Contains(run.Out.String(), "jobs "+strconv.Itoa(b.N)+": "+strconv.Itoa(b.N)+" succeeded, 0 failed") {
		t.Errorf("summary lacks all %d succeeded:\n%s", b.N, run.Out.String())
	}
}

// Deployment is one serve and three workers of 4 slots.
func Deployment(t *testing.T) (*Server, []*Process) { return DeploymentAck(t, AckWait) }

// DeploymentAck is deployment with the ack wait ack.
func DeploymentAck(t *testing.T, ack string) (*Server, []*Process) {
	srv := &Server{Name: "solo", Addr: fmt.Sprintf("127.0.0.1:%d", FreePort(t)), Store: t.TempDir()}
	srv.Start(t)
	var workers []*Process
	for i := 1; i <= 3; i++ {
		w := Launch(t, fmt.Sprintf("worker w%d", i), "worker", "--nats", srv.URL(), "-j", "4", "--name", fmt.Sprintf("w%d", i), "--ack-wait", ack)
		w.WaitFor(t, "serving sh")
		workers = append(workers, w)
	}
	return srv, workers
}

// checkCounts checks that the run's summary, job status and job results
// count the extra executions from one source: once the workers have
// settled, job status and the sum over job results agree, cover every
// extra execution that happened (the ids file), and the summary, written
// when the last result came, says no more than they do.
func (b *Batch) CheckCounts(t *testing.T, run *Process, url string) {
	t.Helper()
	out := run.Out.String()
	m := regexp.MustCompile(`job (\S+): \d+ tasks`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("the run does not name its job:\n%s", out)
	}
	job := m[1]
	summary, _ := strconv.Atoi(regexp.MustCompile(`extra executions: (\d+)`).FindStringSubmatch(out)[1])
	for last, stable := -1, 0; stable < 3; time.Sleep(time.Second) { // the runs still going end
		if n := b.Executions(); n == last {
			stable++
		} else {
			last, stable = n, 0
		}
	}
	actual := b.Executions() - b.N
	var status, results int
	for range 10 { // a discarded run's count may still be on its way
		st := Launch(t, "job status", "job", "status", job, "--nats", url)
		st.Wait(t)
		sm := regexp.MustCompile(`extra executions: (\d+)`).FindStringSubmatch(st.Out.String())
		if sm == nil {
			t.Fatalf("job status does not count extra executions:\n%s", st.Out.String())
		}
		status, _ = strconv.Atoi(sm[1])
		rs := Launch(t, "job results", "job", "results", job, "--json", "--nats", url)
		rs.Wait(t)
		results = 0
		for _, line := range strings.Split(strings.TrimSpace(rs.Out.String()), "\n") {
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
