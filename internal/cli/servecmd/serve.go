package servecmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/spf13/cobra"

	"github.com/worksteal/worksteal/cluster"
	"github.com/worksteal/worksteal/dash/clusterdash"
	"github.com/worksteal/worksteal/internal/cli/cmdenv"
	"github.com/worksteal/worksteal/internal/clusterops"
)

func init() { cmdenv.AddCommand(newServeCommand) }

// ServeConfig is what the flags of "worksteal serve" fill in.
type ServeConfig struct {
	Listen        string
	Store         string
	name          string
	clusterListen string
	clusterName   string
	routes        []string
	verbose       bool
	http          string        // dashboard address, "" for none
	stream        string        // the dashboard's stream name
	Security      ServeSecurity // serve_security.go
	limits        clusterops.StorageLimits
	taskMiB       int64         // --max-task-mib
	resultMiB     int64         // --max-result-mib
	ackWait       time.Duration // --ack-wait: the deployment's, when the recorder sets the tier up
	ackWaitSet    bool
}

func newServeCommand(env *cmdenv.Env) *cobra.Command {
	var cfg ServeConfig
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run a NATS server with JetStream for the cluster tier (embedded nats-server)",
		Long: `serve runs a NATS server with JetStream in this process: the engine of the
cluster tier. Workers (worksteal worker --nats URL) and submitters
(worksteal run --nats URL) connect to it. It runs until SIGINT or SIGTERM.

The defaults work on one machine: clients on 127.0.0.1:4222, JetStream data
in the user's cache directory, no authentication. For several machines,
listen on a reachable address (--listen 0.0.0.0:4222) with authentication
and TLS: worksteal serve init --dir DIR writes a configuration (an nkey user
per role with its permissions, certificates for clients and routes) and
each role's credentials; start with --config DIR/server.conf and give the
clients --creds and --tls-ca. Without them serve refuses a reachable
address, unless --insecure. For a JetStream cluster that survives the loss
of a server, run three with --cluster-listen and --routes to each other
(routes are mutual TLS), or point --nats at an existing NATS cluster.`,
		Example: `  worksteal serve
  worksteal serve init --dir /etc/worksteal --host head
  worksteal serve --config /etc/worksteal/server.conf --listen 0.0.0.0:4222 --store /var/lib/worksteal
  worksteal serve --config /etc/worksteal/server.conf --name n1 --listen 0.0.0.0:4222 \
      --cluster-listen 10.0.0.1:6222 --routes nats://10.0.0.2:6222,nats://10.0.0.3:6222`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg.ackWaitSet = cmd.Flags().Changed("ack-wait")
			return runServe(env, cmd, cfg)
		},
	}
	cmd.AddCommand(newServeInitCommand(), newServeCredentialsCommand())
	f := cmd.Flags()
	f.StringVar(&cfg.Listen, "listen", "127.0.0.1:4222", "HOST:PORT for clients (port 0: any free port)")
	f.StringVar(&cfg.Store, "store", "", "JetStream data directory (default: worksteal/nats in the user's cache directory)")
	f.StringVar(&cfg.name, "name", "", "server name, unique in a cluster (default: the host name)")
	f.StringVar(&cfg.clusterListen, "cluster-listen", "", "HOST:PORT for routes to other servers of a JetStream cluster")
	f.StringVar(&cfg.clusterName, "cluster-name", "worksteal", "name of the JetStream cluster")
	f.StringSliceVar(&cfg.routes, "routes", nil, "route URLs of the other servers (nats://HOST:PORT,...)")
	f.BoolVarP(&cfg.verbose, "verbose", "v", false, "log the server's notices (on stderr, or to the --config file's log_file or syslog)")
	f.StringVar(&cfg.http, "http", "", "also serve the cluster's live dashboard and /metrics on HOST:PORT (see worksteal dash)")
	f.StringVar(&cfg.stream, "stream", "ws", "name prefix of the cluster's stream, buckets and subjects (the recorder's, and the dashboard's with --http)")
	f.Int64Var(&cfg.limits.Tasks, "max-tasks", clusterops.DefaultStorageLimits.Tasks, "most task messages the task stream holds: a submit past it is refused, nothing waiting is dropped (0: no limit)")
	f.Int64Var(&cfg.taskMiB, "max-task-mib", clusterops.DefaultStorageLimits.TaskBytes>>20, "most MiB the task stream holds (0: no limit)")
	f.Int64Var(&cfg.resultMiB, "max-result-mib", clusterops.DefaultStorageLimits.ResultBytes>>20, "most MiB the results bucket holds: a result past it waits until finished jobs are deleted (0: no limit)")
	f.DurationVar(&cfg.ackWait, "ack-wait", 30*time.Second, "the deployment's ack wait, when serve's recorder is the first to set the tier up (a task whose worker is silent this long goes to another worker; failover is sooner)")
	addServeSecurityFlags(cmd, &cfg.Security)
	return cmd
}

func ServerOptions(cfg ServeConfig) (*server.Options, error) {
	host, port, err := cmdenv.SplitHostPort("listen", cfg.Listen)
	if err != nil {
		return nil, err
	}
	if port == 0 {
		port = server.RANDOM_PORT
	}
	store := cfg.Store
	if store == "" {
		dir, err := os.UserCacheDir()
		if err != nil {
			dir = os.TempDir()
		}
		store = filepath.Join(dir, "worksteal", "nats")
	}
	name := cfg.name
	if name == "" {
		name, _ = os.Hostname()
	}
	o, err := baseServerOptions(cfg.Security) // the --config file, or none
	if err != nil {
		return nil, err
	}
	o.ServerName, o.Host, o.Port = name, host, port
	o.JetStream, o.StoreDir = true, store
	o.NoSigs, o.NoLog = true, !cfg.verbose
	if cfg.clusterListen != "" {
		ch, cp, err := cmdenv.SplitHostPort("cluster-listen", cfg.clusterListen)
		if err != nil {
			return nil, err
		}
		if cp == 0 {
			cp = server.RANDOM_PORT
		}
		o.Cluster.Name, o.Cluster.Host, o.Cluster.Port = cfg.clusterName, ch, cp
		for _, r := range cfg.routes {
			u, err := url.Parse(r)
			if err != nil || u.Host == "" {
				return nil, fmt.Errorf("--routes %q: want nats://HOST:PORT", r)
			}
			o.Routes = append(o.Routes, u)
		}
	} else if len(cfg.routes) > 0 {
		return nil, errors.New("--routes needs --cluster-listen")
	}
	if err := secureServerOptions(o, cfg); err != nil {
		return nil, err
	}
	return o, nil
}

func runServe(env *cmdenv.Env, cmd *cobra.Command, cfg ServeConfig) error {
	o, err := ServerOptions(cfg)
	if err != nil {
		return cmdenv.UsageError(err)
	}
	if cfg.http != "" {
		if err := cmdenv.CheckDashboardAddr(cfg.http, cfg.Security.insecure); err != nil {
			return cmdenv.UsageError(err)
		}
	}
	configured := len(o.Nkeys) // the users of the configuration; serve adds its own below
	var dashAuth []nats.Option
	if cfg.http != "" {
		if dashAuth, err = addDashboardUser(o, cfg.stream); err != nil {
			return err
		}
	}
	recAuth, err := addRecorderUser(o)
	if err != nil {
		return err
	}
	if err := checkServeResources(o); err != nil {
		return err
	}
	release, err := lockStore(o.StoreDir)
	if err != nil {
		return err
	}
	defer release()
	s, err := server.NewServer(o)
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	// The server's permission violations: logged and counted by holder;
	// with -v every line goes on to the server's own logger.
	violations := newViolationLog(cfg.Security.Config, cmd.ErrOrStderr())
	if cfg.verbose {
		if violations.next, err = serverLogger(o); err != nil {
			return fmt.Errorf("serve: %w", err)
		}
	}
	violations.install(s, o)
	defer violations.Close()
	defer violations.summary()
	go s.Start()
	if !s.ReadyForConnections(30 * time.Second) {
		s.Shutdown()
		return fmt.Errorf("serve: the server did not start listening on %s within 30s (run with -v to see its log)", cfg.Listen)
	}
	out := cmd.OutOrStdout()
	fmt.Fprintf(out, "worksteal serve: NATS with JetStream on %s (store %s)\n", s.ClientURL(), o.StoreDir)
	announceSecurity(out, cmd.ErrOrStderr(), o, cfg, configured)
	if len(o.Routes) > 0 {
		var rs []string
		for _, r := range o.Routes {
			rs = append(rs, r.String())
		}
		fmt.Fprintf(out, "worksteal serve: cluster %s on %s, routes %s\n", o.Cluster.Name, cfg.clusterListen, strings.Join(rs, ","))
	}
	if cfg.limits.Tasks < 0 || cfg.taskMiB < 0 || cfg.resultMiB < 0 {
		return cmdenv.UsageError(fmt.Errorf("serve: --max-tasks %d, --max-task-mib %d, --max-result-mib %d: each must be 0 (no limit) or more", cfg.limits.Tasks, cfg.taskMiB, cfg.resultMiB))
	}
	cfg.limits.TaskBytes, cfg.limits.ResultBytes = cfg.taskMiB<<20, cfg.resultMiB<<20
	if err := fitStore(&cfg.limits, s.JetStreamConfig(), cmd.Flags().Changed("max-task-mib") || cmd.Flags().Changed("max-result-mib"), out); err != nil {
		s.Shutdown()
		s.WaitForShutdown()
		return err
	}
	fmt.Fprintf(out, "worksteal serve: storage limits: %s\n", cfg.limits)
	ctx, cancel := context.WithCancel(env.Ctx)
	defer cancel()
	recDone := make(chan struct{})
	var recErr error
	go func() {
		defer close(recDone)
		recErr = runRecorder(ctx, s, cfg, cmd.ErrOrStderr(), violations.countTo, recAuth...)
	}()
	defer func() { cancel(); <-recDone }()
	dashDone := make(chan error, 1)
	if cfg.http != "" {
		go func() { dashDone <- serveDashboardInProcess(ctx, s, cfg, out, dashAuth...) }()
	}
	select {
	case <-ctx.Done():
	case <-cmd.Context().Done():
	case <-recDone:
		// The recorder could not set the tier up: without it no result
		// is ever recorded and every submitter and worker would wait for
		// ever, so serve stops and says why.
		if recErr != nil {
			cancel()
			if cfg.http != "" {
				<-dashDone
			}
			s.Shutdown()
			s.WaitForShutdown()
			return fmt.Errorf("serve: recorder: %w", recErr)
		}
		<-ctx.Done()
	case err := <-dashDone:
		s.Shutdown()
		s.WaitForShutdown()
		return fmt.Errorf("serve: dashboard: %w", err)
	}
	cancel()
	if cfg.http != "" {
		<-dashDone
	}
	s.Shutdown()
	s.WaitForShutdown()
	fmt.Fprintln(out, "worksteal serve: stopped")
	return nil
}

// runRecorder runs the tier's recorder (clusterops.Record) on an
// in-process connection of its own until ctx is done, logging each refusal
// (a worker's write that names a delivery it does not hold, ...) on errs,
// and the counts by reason when it stops.
//
// Refusals counted outside it (the server's, countTo) join its counts.
// It returns an error, at once, only when it cannot connect or set the
// tier up; a recorder that ran and stopped with ctx returns nil.
func runRecorder(ctx context.Context, s *server.Server, cfg ServeConfig, errs io.Writer, countTo func(func(role, reason string)), auth ...nats.Option) error {
	nc, err := nats.Connect("", append([]nats.Option{nats.InProcessServer(s), nats.Name("worksteal recorder"), nats.MaxReconnects(-1)}, auth...)...)
	if err != nil {
		return err
	}
	defer nc.Close()
	opts := []cluster.Option{cluster.WithStream(cfg.stream), cluster.WithName("recorder"), clusterops.WithLimits(cfg.limits).(cluster.Option)}
	if cfg.ackWaitSet {
		opts = append(opts, cluster.WithAckWait(cfg.ackWait))
	}
	node, err := cluster.New(nc, opts...)
	if err != nil {
		return err
	}
	countTo(func(role, reason string) { clusterops.CountRefusal(node, role, reason) })
	var mu sync.Mutex
	err = clusterops.Record(ctx, node, func(op, reason, detail string) {
		mu.Lock()
		defer mu.Unlock()
		if reason == clusterops.DiscardedNoJob {
			fmt.Fprintf(errs, "worksteal serve: %s\n", detail)
			return
		}
		who := "a worker's"
		if strings.HasPrefix(op, "own.") {
			who = "a person's" // the owner service
		}
		fmt.Fprintf(errs, "worksteal serve: refused %s %s: %s: %s\n", who, op, reason, detail)
	})
	if err != nil {
		fmt.Fprintf(errs, "worksteal serve: recorder: %v\n", err)
	}
	if st := clusterops.RecorderStatsOf(node); len(st.Refused) > 0 {
		mu.Lock()
		fmt.Fprintf(errs, "worksteal serve: recorder: refused or discarded %v (by reason)\n", st.Refused)
		mu.Unlock()
	}
	return nil
}

// fitStore keeps the storage limits within what the JetStream store may
// hold. JetStream reserves a stream's byte limit from the store when the
// stream is made, and the store's size defaults to 75 % of the free disk
// under --store: limits past it make the recorder's set-up fail
// ("insufficient storage resources available") and nothing is ever
// recorded. Defaults that do not fit are lowered, keeping their 1:4 ratio
// within nine tenths of the store (the other buckets need a little), with a
// line saying so; limits given on the command line are kept, and an error
// names them when they cannot fit.
func fitStore(l *clusterops.StorageLimits, js *server.JetStreamConfig, given bool, out io.Writer) error {
	if js == nil || js.MaxStore <= 0 {
		return nil
	}
	need := l.TaskBytes + l.ResultBytes
	if l.TaskBytes == 0 || l.ResultBytes == 0 || need <= js.MaxStore*9/10 {
		return nil // 0 is no limit: nothing reserved for it
	}
	if given {
		return cmdenv.UsageError(fmt.Errorf("serve: --max-task-mib %d and --max-result-mib %d reserve %d MiB, more than the JetStream store's %d MiB (75 %% of the free disk under --store): give smaller limits or more disk",
			l.TaskBytes>>20, l.ResultBytes>>20, need>>20, js.MaxStore>>20))
	}
	budget := js.MaxStore * 9 / 10
	l.TaskBytes = max(1, budget/5>>20) << 20
	l.ResultBytes = max(1, budget*4/5>>20) << 20
	fmt.Fprintf(out, "worksteal serve: the default storage limits do not fit the store's %d MiB (75 %% of the free disk under --store): lowered to %d MiB of tasks and %d MiB of results (--max-task-mib, --max-result-mib)\n",
		js.MaxStore>>20, l.TaskBytes>>20, l.ResultBytes>>20)
	return nil
}

// serveDashboardInProcess serves the dashboard of the server s, connected
// in-process (no socket), until ctx is done.
func serveDashboardInProcess(ctx context.Context, s *server.Server, cfg ServeConfig, out io.Writer, auth ...nats.Option) error {
	nc, err := nats.Connect("", append([]nats.Option{nats.InProcessServer(s), nats.Name("worksteal dash")}, auth...)...)
	if err != nil {
		return err
	}
	defer nc.Close()
	return cmdenv.ServeDashboard(ctx, nc, clusterdash.Config{Stream: cfg.stream}, cfg.http, out)
}

// checkServeResources finds at once what would keep the server from
// starting, and names it: an address it cannot listen on (in use, not an
// address of this machine, a privileged port) and a store it cannot write.
// The embedded server would otherwise only fail to become ready, 30 s
// later, and say nothing of why.
func checkServeResources(o *server.Options) error {
	listen := func(flag, host string, port int) error {
		if port <= 0 {
			return nil // any free port
		}
		addr := net.JoinHostPort(host, strconv.Itoa(port))
		l, err := net.Listen("tcp", addr)
		if err != nil {
			var sys *os.SyscallError
			cause := err
			if errors.As(err, &sys) {
				cause = sys.Err
			}
			return cmdenv.UsageError(fmt.Errorf("serve: --%s %s: cannot listen: %v", flag, addr, cause))
		}
		return l.Close()
	}
	if err := listen("listen", o.Host, o.Port); err != nil {
		return err
	}
	if o.Cluster.Port != 0 {
		if err := listen("cluster-listen", o.Cluster.Host, o.Cluster.Port); err != nil {
			return err
		}
	}
	if o.HTTPPort > 0 {
		if err := listen("monitor", o.HTTPHost, o.HTTPPort); err != nil {
			return err
		}
	}
	if o.JetStream && o.StoreDir != "" {
		if err := os.MkdirAll(o.StoreDir, 0o755); err != nil {
			return fmt.Errorf("serve: --store %s: %w", o.StoreDir, cmdenv.UnwrapPath(err))
		}
		f, err := os.CreateTemp(o.StoreDir, ".worksteal-write-test-*")
		if err != nil {
			return fmt.Errorf("serve: --store %s: cannot write there: %w", o.StoreDir, cmdenv.UnwrapPath(err))
		}
		f.Close()
		os.Remove(f.Name())
	}
	return nil
}
