package cluster_test

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/worksteal/worksteal/cluster"
	"github.com/worksteal/worksteal/internal/testdeadline"
)

// dropProxy forwards a NATS client's connection to a server, except the
// messages the client publishes on subjects that start with drop: those the
// server never sees, so it never acknowledges them (a server that has
// stopped answering, as one whose store another server overwrote does).
func dropProxy(t testing.TB, serverAddr, drop string) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			s, err := net.Dial("tcp", serverAddr)
			if err != nil {
				c.Close()
				continue
			}
			t.Cleanup(func() { c.Close(); s.Close() })
			go io.Copy(c, s)
			go filterPublishes(s, c, drop)
		}
	}()
	return "nats://" + l.Addr().String()
}

// filterPublishes copies the client protocol from src to dst, dropping the
// PUB and HPUB operations whose subject starts with drop.
func filterPublishes(dst io.Writer, src io.Reader, drop string) {
	r := bufio.NewReader(src)
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return
		}
		f := strings.Fields(line)
		var payload []byte
		if len(f) >= 3 && (f[0] == "PUB" || f[0] == "HPUB") {
			size, err := strconv.Atoi(f[len(f)-1])
			if err != nil {
				return
			}
			payload = make([]byte, size+2) // the payload and its CRLF
			if _, err := io.ReadFull(r, payload); err != nil {
				return
			}
			if strings.HasPrefix(f[1], drop) {
				continue
			}
		}
		if _, err := io.WriteString(dst, line); err != nil {
			return
		}
		if _, err := dst.Write(payload); err != nil {
			return
		}
	}
}

// A submission whose tasks the server never acknowledges ends with an
// error that says what it waited for, after the node's default timeout,
// not never: the caller's ctx has no deadline.
func TestSubmitWhoseTasksAreNeverAcknowledgedFails(t *testing.T) {
	srv := startServer(t)
	url := dropProxy(t, srv.Addr().String(), "ws.task.")
	n := submitter(t, connect(t, url), cluster.WithDefaultTimeout(2*time.Second))
	done := make(chan error, 1)
	go func() {
		s, err := n.Submit(context.Background(), cluster.Job{ID: "unheard", Tasks: []cluster.Task{{Handler: "upper"}, {Handler: "upper"}}})
		if s != nil {
			s.Stop()
		}
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, cluster.ErrJetStream) {
			t.Fatalf("Submit: %v; want an error wrapping ErrJetStream", err)
		}
		for _, want := range []string{"unheard", "acknowledg"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("Submit's error %q does not say %q", err, want)
			}
		}
	case <-time.After(testdeadline.Left(t)):
		t.Fatal("Submit still waits for the server's acknowledgement of its tasks as the test's deadline nears (its timeout is 2 s)")
	}
}
