package cmdenv

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/worksteal/worksteal/dash/clusterdash"
)

// SplitHostPort parses HOST:PORT for a flag.
func SplitHostPort(flag, hp string) (string, int, error) {
	host, p, err := net.SplitHostPort(hp)
	if err != nil {
		return "", 0, fmt.Errorf("--%s %q: want HOST:PORT: %v", flag, hp, err)
	}
	port, err := strconv.Atoi(p)
	if err != nil || port < 0 || port > 65535 {
		return "", 0, fmt.Errorf("--%s %q: port %q is not a port number", flag, hp, p)
	}
	return host, port, nil
}

// Exposed says a listen host is reachable from other machines: anything
// but a loopback name or address ("" and 0.0.0.0 are every interface).
func Exposed(host string) bool {
	if host == "localhost" {
		return false
	}
	ip := net.ParseIP(host)
	return ip == nil || !ip.IsLoopback()
}

// CheckDashboardAddr refuses a dashboard address reachable from the network
// unless insecure: the page has no authentication of its own and shows
// every job, task, worker and failure of the cluster to whoever reaches
// it. Loopback (the default) is for one machine, or for a tunnel or a
// reverse proxy that authenticates.
func CheckDashboardAddr(addr string, insecure bool) error {
	host, _, err := SplitHostPort("http", addr)
	if err != nil {
		return err
	}
	if Exposed(host) && !insecure {
		return fmt.Errorf("--http %s is reachable from the network, and the dashboard has no authentication: anyone who reaches it sees every job, task and worker. Bind it to loopback (127.0.0.1:PORT) and reach it through an SSH tunnel or an authenticating reverse proxy, or give --insecure on a network you trust", addr)
	}
	return nil
}

// ServeDashboard runs an observer of the cluster behind nc and its
// dashboard on addr until ctx is done.
func ServeDashboard(ctx context.Context, nc *nats.Conn, cfg clusterdash.Config, addr string, out io.Writer) error {
	d, err := clusterdash.New(nc, cfg)
	if err != nil {
		return UsageError(err)
	}
	return serveHTTP(ctx, addr, d, out, d.Run)
}

// serveHTTP serves h on addr, with work running beside it, until ctx is
// done; it prints the dashboard's URL once it listens.
func serveHTTP(ctx context.Context, addr string, h http.Handler, out io.Writer, work func(context.Context) error) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("--http %s: %w", addr, err)
	}
	return ServeListener(ctx, ln, h, out, work)
}

// ServeListener is serveHTTP on a listener.
func ServeListener(ctx context.Context, ln net.Listener, h http.Handler, out io.Writer, work func(context.Context) error) error {
	ctx, cancel := context.WithCancel(ctx)
	var err error
	defer cancel()
	// The requests' contexts end with ctx, so open event streams end too.
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, BaseContext: func(net.Listener) context.Context { return ctx }}
	workDone := make(chan error, 1)
	go func() { workDone <- work(ctx) }()
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	fmt.Fprintf(out, "worksteal dashboard on http://%s/\n", ln.Addr())
	select {
	case <-ctx.Done():
	case err = <-workDone:
		cancel()
	case err = <-served:
		cancel()
	}
	if c, ok := h.(interface{ Close() }); ok {
		c.Close() // end the event streams
	}
	sctx, scancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer scancel()
	srv.Shutdown(sctx) // SSE streams end with their requests' contexts
	srv.Close()
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return err
}
