package e2e

import (
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The set-ups of the fault tests (internal/faulttest and its trees): a
// run on a deployment, part-way in, when the test strikes.

// BatchPartWay starts a Deployment and a Batch of n commands on it, and
// returns once a quarter of them have started, with the run and when it
// began.
func BatchPartWay(t *testing.T, n int) (srv *Server, workers []*Process, b *Batch, run *Process, began time.Time) {
	t.Helper()
	srv, workers = Deployment(t)
	b = NewBatch(t, n)
	began = time.Now()
	run = b.Run(t, srv.URL())
	b.WaitExecutions(t, b.N/4, run)
	return srv, workers, b, run, began
}

// TreePartWay starts a Deployment and a TreeRun of depth 3 and fanout 4
// (85 nodes) on it, and returns once a third of its nodes have started,
// with the root held on its worker (TreeRun.HoldRoot): release it once
// the fault is done.
func TreePartWay(t *testing.T) (srv *Server, workers []*Process, tr *TreeRun, run *Process) {
	t.Helper()
	srv, workers = Deployment(t)
	tr = NewTreeRun(t, 3, 4)
	tr.HoldRoot(t)
	run = tr.Run(t, srv.URL())
	tr.WaitRuns(t, len(tr.IDs())/3, run)
	return srv, workers, tr, run
}

// Restart kills s with SIGKILL and starts it again on its port and store
// after away.
func (s *Server) Restart(t *testing.T, away time.Duration) {
	t.Helper()
	s.P.Signal(t, syscall.SIGKILL)
	<-s.P.Done
	time.Sleep(away)
	s.Start(t)
}

// Cluster is three serve processes that form a JetStream cluster (routes
// to each other), and three workers of 4 slots with --replicas 3, each
// trying a different server first.
type Cluster struct {
	Servers []*Server
	URLs    string // every server's URL, comma-separated
	Workers []*Process
}

// NewCluster starts a Cluster.
func NewCluster(t *testing.T) *Cluster {
	t.Helper()
	c := &Cluster{}
	var routes []string
	clusterPorts := []int{FreePort(t), FreePort(t), FreePort(t)}
	for _, p := range clusterPorts {
		routes = append(routes, fmt.Sprintf("nats://127.0.0.1:%d", p))
	}
	for i, p := range clusterPorts {
		c.Servers = append(c.Servers, &Server{Name: fmt.Sprintf("s%d", i+1), Addr: fmt.Sprintf("127.0.0.1:%d", FreePort(t)), Store: t.TempDir(),
			Extra: []string{"--cluster-listen", fmt.Sprintf("127.0.0.1:%d", p), "--routes", strings.Join(routes, ",")}})
	}
	var urls []string
	for _, s := range c.Servers {
		s.Start(t)
		urls = append(urls, s.URL())
	}
	c.URLs = strings.Join(urls, ",")
	for i := 1; i <= 3; i++ {
		order := strings.Join(append(append([]string{}, urls[i-1:]...), urls[:i-1]...), ",")
		w := Launch(t, fmt.Sprintf("worker w%d", i), "worker", "--nats", order, "-j", "4", "--name", fmt.Sprintf("w%d", i), "--ack-wait", AckWait, "--replicas", "3")
		w.WaitFor(t, "serving sh")
		c.Workers = append(c.Workers, w)
	}
	return c
}

// LogIfSlow logs what every process of the cluster and run printed when
// more than a minute has passed since the fault at since, although the
// test passed: losing the stream leader usually costs seconds, and a run
// of minutes (seen now and then under load, cause not yet known) leaves
// its story in the test's log.
func (c *Cluster) LogIfSlow(t *testing.T, since time.Time, run *Process) {
	t.Helper()
	took := time.Since(since)
	if took < time.Minute || t.Failed() { // a failed test logs them anyway
		return
	}
	t.Logf("the run took %v after the leader's death; what each process printed:", took.Round(time.Second))
	ps := append([]*Process{run}, c.Workers...)
	for _, s := range c.Servers {
		ps = append(ps, s.P)
	}
	for _, p := range ps {
		t.Logf("--- %s:\n%s", p.Name, p.Out.String())
	}
}

// KillStreamLeader kills the server that leads the task stream with
// SIGKILL, and returns the leader's name and the server killed (nil when
// the leader is none of the servers).
func (c *Cluster) KillStreamLeader(t *testing.T) (string, *Server) {
	t.Helper()
	leader := StreamLeader(t, c.URLs)
	for _, s := range c.Servers {
		if s.Name == leader {
			t.Logf("killing %s, the task stream's leader", leader)
			s.P.Signal(t, syscall.SIGKILL)
			return leader, s
		}
	}
	return leader, nil
}
