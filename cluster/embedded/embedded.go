// Package embedded runs a NATS server with JetStream inside a Go program:
// the engine of the cluster tier (what "worksteal serve" runs), for a
// program or a test that wants no separate server process.
//
//	srv, err := embedded.Start(embedded.Config{})
//	if err != nil { ... }
//	defer srv.Shutdown()
//	nc, _ := nats.Connect(srv.URL())
//	node, _ := cluster.New(nc)
//
// The server listens on loopback without authentication, like "worksteal
// serve" on one machine; workers on other machines need "worksteal serve"
// with its security (see package cluster, "Security"). One server per
// store directory: two servers on one store overwrite each other's data.
package embedded

import (
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// Config configures Start. The zero value is a server on 127.0.0.1 on a
// free port, its JetStream data in a temporary directory that Shutdown
// removes.
type Config struct {
	// Listen is the client address, HOST:PORT (port 0: any free port);
	// "" means 127.0.0.1:0.
	Listen string
	// StoreDir is the JetStream data directory, kept across restarts (a
	// restarted server still has the queued tasks and the results); ""
	// means a fresh temporary directory, removed by Shutdown.
	StoreDir string
	// StartTimeout bounds the wait for the server to accept clients; 0
	// means 30 s.
	StartTimeout time.Duration
}

// Server is a running embedded server.
type Server struct {
	s   *server.Server
	tmp string // the temporary store to remove, if any
}

// Start starts a server and returns once it accepts clients. Errors name
// the field at fault (an address that is not HOST:PORT or cannot be
// listened on, a store that cannot be written).
func Start(cfg Config) (*Server, error) {
	host, port := "127.0.0.1", server.RANDOM_PORT
	if cfg.Listen != "" {
		h, p, err := net.SplitHostPort(cfg.Listen)
		if err != nil {
			return nil, fmt.Errorf("embedded: Listen %q: want HOST:PORT: %v", cfg.Listen, err)
		}
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 || n > 65535 {
			return nil, fmt.Errorf("embedded: Listen %q: %q is not a port number", cfg.Listen, p)
		}
		if n != 0 {
			port = n
		}
		host = h
	}
	srv := &Server{}
	store := cfg.StoreDir
	if store == "" {
		dir, err := os.MkdirTemp("", "worksteal-embedded-")
		if err != nil {
			return nil, fmt.Errorf("embedded: temporary store: %w", err)
		}
		store, srv.tmp = dir, dir
	} else if err := os.MkdirAll(store, 0o700); err != nil {
		return nil, fmt.Errorf("embedded: StoreDir %s: %w", store, err)
	}
	fail := func(err error) (*Server, error) {
		if srv.tmp != "" {
			os.RemoveAll(srv.tmp)
		}
		return nil, err
	}
	s, err := server.NewServer(&server.Options{Host: host, Port: port, JetStream: true, StoreDir: store, NoLog: true, NoSigs: true})
	if err != nil {
		return fail(fmt.Errorf("embedded: %w", err))
	}
	srv.s = s
	go s.Start()
	limit := cfg.StartTimeout
	if limit <= 0 {
		limit = 30 * time.Second
	}
	if !s.ReadyForConnections(limit) {
		s.Shutdown()
		return fail(fmt.Errorf("embedded: the server did not accept clients on %s:%d within %v (address in use, or not this machine's?)", host, port, limit))
	}
	if !s.JetStreamEnabled() {
		s.Shutdown()
		return fail(errors.New("embedded: JetStream did not start (is StoreDir writable?)"))
	}
	return srv, nil
}

// URL is the address clients connect to, nats://HOST:PORT.
func (s *Server) URL() string { return s.s.ClientURL() }

// Shutdown stops the server, waits for it to stop, and removes its
// temporary store (a StoreDir given in Config is kept).
func (s *Server) Shutdown() {
	s.s.Shutdown()
	s.s.WaitForShutdown()
	if s.tmp != "" {
		os.RemoveAll(s.tmp)
	}
}
