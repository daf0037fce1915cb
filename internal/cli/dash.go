package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/spf13/cobra"

	"github.com/worksteal/worksteal/cluster"
	"github.com/worksteal/worksteal/dash"
	"github.com/worksteal/worksteal/dash/clusterdash"
)

func init() { addCommand(newDashCommand) }

// dashConfig is what the flags of "worksteal dash" fill in.
type dashConfig struct {
	nats      string
	http      string
	stream    string
	straggler string
	insecure  bool
	creds     cluster.Credentials // client_security.go
}

func newDashCommand(env *Env) *cobra.Command {
	var cfg dashConfig
	cmd := &cobra.Command{
		Use:   "dash --nats URL [--http HOST:PORT]",
		Short: "Serve a live dashboard of a cluster (read-only): workers, jobs, stragglers, Prometheus metrics",
		Long: `dash connects to the NATS server of a cluster (worksteal serve, or an
existing NATS cluster) and serves a web page that shows it live: the
workers (slots, running tasks, utilization, last heartbeat; a worker silent
for 3 s is shown as lost), each job's progress (done, failed, running,
queued, throughput, ETA), the stragglers (tasks running longer than
--straggler × their job's median, the rule of run --timeout N%), the
redeliveries and a timeline of each worker's recent tasks.

The same listener serves the JSON the page is drawn from (/api/state,
/api/workers, /api/jobs, /api/stragglers) and Prometheus metrics
(/metrics). The dashboard only reads: it never writes to the cluster.
worksteal serve --http starts the same dashboard beside its server.`,
		Example: `  worksteal dash --nats nats://127.0.0.1:4222 --http 127.0.0.1:8222
  curl -s http://127.0.0.1:8222/api/jobs`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return runDash(env, cmd, cfg) },
	}
	f := cmd.Flags()
	f.StringVar(&cfg.nats, "nats", "nats://127.0.0.1:4222", "URL of the NATS server (several: comma-separated)")
	f.StringVar(&cfg.http, "http", "127.0.0.1:8222", "HOST:PORT of the dashboard (port 0: any free port)")
	f.StringVar(&cfg.stream, "stream", "ws", "name prefix of the cluster's stream, buckets and subjects")
	f.StringVar(&cfg.straggler, "straggler", "200%", "a running task is a straggler past this percentage of its job's median run time")
	f.BoolVar(&cfg.insecure, "insecure", false, "allow an --http address reachable from the network (the page has no authentication of its own)")
	addCredentialFlags(f, &cfg.creds, "")
	return cmd
}

// checkDashboardAddr refuses a dashboard address reachable from the network
// unless insecure: the page has no authentication of its own and shows
// every job, task, worker and failure of the cluster to whoever reaches
// it. Loopback (the default) is for one machine, or for a tunnel or a
// reverse proxy that authenticates.
func checkDashboardAddr(addr string, insecure bool) error {
	host, _, err := splitHostPort("http", addr)
	if err != nil {
		return err
	}
	if exposed(host) && !insecure {
		return fmt.Errorf("--http %s is reachable from the network, and the dashboard has no authentication: anyone who reaches it sees every job, task and worker. Bind it to loopback (127.0.0.1:PORT) and reach it through an SSH tunnel or an authenticating reverse proxy, or give --insecure on a network you trust", addr)
	}
	return nil
}

// parseStraggler reads --straggler: a percentage of at least 100%.
func parseStraggler(s string) (float64, error) {
	p, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(s), "%"), 64)
	if err != nil || !strings.HasSuffix(strings.TrimSpace(s), "%") || p < 100 || p != p {
		return 0, fmt.Errorf("--straggler %q: want a percentage of the median of 100%% or more, like 200%%", s)
	}
	return p / 100, nil
}

func runDash(env *Env, cmd *cobra.Command, cfg dashConfig) error {
	factor, err := parseStraggler(cfg.straggler)
	if err != nil {
		return usageError(err)
	}
	if err := checkDashboardAddr(cfg.http, cfg.insecure); err != nil {
		return usageError(err)
	}
	nc, ctx, _, err := connectAs(env.Ctx, cfg.nats, "worksteal dash", cluster.RoleObserver, cfg.creds, cmd.ErrOrStderr())
	if err != nil {
		return err
	}
	defer nc.Close()
	err = serveDashboard(ctx, nc, cluster.ObserverConfig{Stream: cfg.stream, StragglerFactor: factor}, cfg.http, cmd.OutOrStdout())
	if r := refused(ctx); r != nil {
		return r
	}
	return err
}

// serveDashboard runs an observer of the cluster behind nc and its
// dashboard on addr until ctx is done.
func serveDashboard(ctx context.Context, nc *nats.Conn, ocfg cluster.ObserverConfig, addr string, out io.Writer) error {
	obs, err := cluster.NewObserver(nc, ocfg)
	if err != nil {
		return usageError(err)
	}
	return serveHTTP(ctx, addr, clusterdash.New(obs, dash.Config{}), out, obs.Run)
}

// serveHTTP serves h on addr, with work running beside it, until ctx is
// done; it prints the dashboard's URL once it listens.
func serveHTTP(ctx context.Context, addr string, h http.Handler, out io.Writer, work func(context.Context) error) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("--http %s: %w", addr, err)
	}
	return serveListener(ctx, ln, h, out, work)
}

// serveListener is serveHTTP on a listener.
func serveListener(ctx context.Context, ln net.Listener, h http.Handler, out io.Writer, work func(context.Context) error) error {
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
