// The cluster package's integration tests: a real NATS
// server with JetStream, embedded in the test process on loopback (random
// ports, temporary store directories), single or as a 3-server cluster,
// with worker and submitter processes killed for real.

package cluster_test

import (
	"fmt"
	"net"
	"net/url"
	"path/filepath"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"

	"github.com/worksteal/worksteal/internal/testdeadline"
)

// startServer runs one embedded JetStream server.
func startServer(t testing.TB) *server.Server {
	t.Helper()
	o := &server.Options{
		ServerName: "solo", Host: "127.0.0.1", Port: -1,
		JetStream: true, StoreDir: t.TempDir(), NoLog: true, NoSigs: true,
	}
	return runServer(t, o)
}

func runServer(t testing.TB, o *server.Options) *server.Server {
	t.Helper()
	s, err := server.NewServer(o)
	if err != nil {
		t.Fatalf("nats server: %v", err)
	}
	go s.Start()
	if !s.ReadyForConnections(testdeadline.Left(t)) {
		t.Fatalf("nats server %s not ready", o.ServerName)
	}
	t.Cleanup(func() {
		s.Shutdown()
		s.WaitForShutdown()
	})
	return s
}

// freePort returns a loopback port that was free a moment ago (the routes
// of a cluster must be known before its servers start).
func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// startCluster runs a 3-server JetStream cluster and waits until it has
// a meta leader.
func startCluster(t testing.TB) []*server.Server {
	t.Helper()
	servers, _ := startClusterWith(t, "", nil)
	return servers
}

// startClusterWith runs a 3-server JetStream cluster on loopback, each
// server's options first passed to secure (nil: plain routes, no auth), and
// waits until the meta leader sees all three peers (with their stats) and
// every server is current: only then can R3 streams be placed. It returns
// the servers and their route ports.
func startClusterWith(t testing.TB, what string, secure func(o *server.Options)) ([]*server.Server, []int) {
	t.Helper()
	ports := []int{freePort(t), freePort(t), freePort(t)}
	var routes []*url.URL
	for _, p := range ports {
		routes = append(routes, &url.URL{Scheme: "nats", Host: fmt.Sprintf("127.0.0.1:%d", p)})
	}
	dir := t.TempDir()
	var servers []*server.Server
	for i, p := range ports {
		o := &server.Options{
			ServerName: fmt.Sprintf("s%d", i+1), Host: "127.0.0.1", Port: -1,
			JetStream: true, StoreDir: filepath.Join(dir, fmt.Sprint(i)), NoLog: true, NoSigs: true,
			Cluster: server.ClusterOpts{Name: "wstest", Host: "127.0.0.1", Port: p},
			Routes:  routes,
		}
		if secure != nil {
			secure(o)
		}
		s, err := server.NewServer(o)
		if err != nil {
			t.Fatalf("nats server %d: %v", i, err)
		}
		go s.Start()
		t.Cleanup(func() {
			s.Shutdown()
			s.WaitForShutdown()
		})
		servers = append(servers, s)
	}
	for _, s := range servers {
		if !s.ReadyForConnections(testdeadline.Left(t)) {
			t.Fatalf("server %s not ready", s.Name())
		}
	}
	waitFor(t, "a JetStream meta leader with 3 peers"+what, func() bool {
		leader := false
		for _, s := range servers {
			if s.JetStreamIsLeader() && len(s.JetStreamClusterPeers()) == 3 {
				leader = true
			}
		}
		if !leader {
			return false
		}
		for _, s := range servers {
			if !s.JetStreamIsCurrent() {
				return false
			}
		}
		return true
	})
	return servers, ports
}

// connect opens a client connection that keeps reconnecting (servers are
// killed in these tests).
func connect(t testing.TB, urls string) *nats.Conn {
	t.Helper()
	nc, err := nats.Connect(urls, nats.MaxReconnects(-1), nats.ReconnectWait(50*time.Millisecond))
	if err != nil {
		t.Fatalf("connect %s: %v", urls, err)
	}
	t.Cleanup(nc.Close)
	return nc
}

// waitFor polls cond until it holds, failing the test when its deadline
// nears (testdeadline.Left): a loaded machine only makes it slower.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	limit := testdeadline.Left(t)
	deadline := time.Now().Add(limit)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", limit, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
