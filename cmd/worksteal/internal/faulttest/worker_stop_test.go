package faulttest

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/worksteal/worksteal/cmd/worksteal/internal/e2e"
	"github.com/worksteal/worksteal/internal/testdeadline"
)

// blackhole listens on addr and accepts connections without ever
// answering: a server that has hung, or a host whose packets vanish, as the
// client's reconnection attempts meet it.
func blackhole(t *testing.T, addr string) {
	t.Helper()
	var l net.Listener
	var err error
	for range 100 { // the killed server's port is free a moment later
		if l, err = net.Listen("tcp", addr); err == nil {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		l.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
	})
}

// A worker stops within moments of SIGTERM while its server is
// unreachable (killed, its port answering nothing), with and without TLS:
// it does not wait for a server that cannot hear it (its tasks go to other
// workers after the ack wait, as a dead worker's do).
func TestWorkerStopsOnSIGTERMWhileTheServerIsUnreachable(t *testing.T) {
	for _, tls := range []bool{false, true} {
		name := "plain"
		if tls {
			name = "tls"
		}
		t.Run(name, func(t *testing.T) {
			srv := &e2e.Server{Name: "s", Addr: fmt.Sprintf("127.0.0.1:%d", e2e.FreePort(t)), Store: t.TempDir()}
			var workerEnv, runArgs []string
			if tls {
				dir := filepath.Join(t.TempDir(), "secrets")
				if code, _, errs := e2e.Run(t, "", nil, "serve", "init", "--dir", dir, "--host", "127.0.0.1", "--shared-worker-key"); code != 0 {
					t.Fatalf("serve init: %s", errs)
				}
				srv.Extra = []string{"--config", filepath.Join(dir, "server.conf")}
				workerEnv = []string{"WORKSTEAL_CREDS=" + filepath.Join(dir, "worker.nk"), "WORKSTEAL_TLS_CA=" + filepath.Join(dir, "ca.pem")}
				runArgs = []string{"--creds", filepath.Join(dir, "submitter.nk"), "--tls-ca", filepath.Join(dir, "ca.pem")}
			}
			srv.Start(t)
			worker := e2e.LaunchEnv(t, "worker", workerEnv, "worker", "--nats", srv.URL(), "-j", "2", "--ack-wait", e2e.AckWait)
			// With roles the worker cannot set the tier up: it waits for
			// the first submitter, saying so, and serves once it has.
			worker.WaitFor(t, "serving sh|not set up yet")
			// A batch sets the tier up and runs; a second one keeps the
			// worker busy when the server goes.
			b := e2e.NewBatch(t, 2)
			if code := b.Run(t, srv.URL(), runArgs...).Wait(t); code != 0 {
				t.Fatalf("run exited %d", code)
			}
			long := filepath.Join(t.TempDir(), "long")
			os.WriteFile(long, []byte("sleep 30\nsleep 30\n"), 0o644)
			e2e.Launch(t, "run long", append([]string{"run", "--nats", srv.URL(), "-a", long}, runArgs...)...)
			time.Sleep(time.Second)
			srv.P.Cmd.Process.Kill()
			<-srv.P.Done
			blackhole(t, srv.Addr)
			worker.WaitFor(t, "lost the NATS server")
			worker.Signal(t, syscall.SIGTERM)
			began := time.Now()
			select {
			case <-worker.Done:
			case <-time.After(testdeadline.Left(t)):
				t.Fatalf("the worker still runs %v after SIGTERM (its server unreachable):\n%s", time.Since(began).Round(time.Millisecond), worker.Out.String())
			}
			t.Logf("the worker exited %d, %v after SIGTERM", worker.Code, time.Since(began).Round(time.Millisecond))
			if !strings.Contains(worker.Out.String(), "unreachable") {
				t.Errorf("the worker did not say that it stopped without the server:\n%s", worker.Out.String())
			}
		})
	}
}
