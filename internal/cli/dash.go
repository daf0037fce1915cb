package cli

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/worksteal/worksteal/cluster"
	"github.com/worksteal/worksteal/dash/clusterdash"
	"github.com/worksteal/worksteal/internal/cli/cmdenv"
)

func init() { cmdenv.AddCommand(newDashCommand) }

// dashConfig is what the flags of "worksteal dash" fill in.
type dashConfig struct {
	nats      string
	http      string
	stream    string
	straggler string
	insecure  bool
	creds     cluster.Credentials // client_security.go
}

func newDashCommand(env *cmdenv.Env) *cobra.Command {
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
	cmdenv.AddCredentialFlags(f, &cfg.creds, "")
	return cmd
}

// parseStraggler reads --straggler: a percentage of at least 100%.
func parseStraggler(s string) (float64, error) {
	p, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(s), "%"), 64)
	if err != nil || !strings.HasSuffix(strings.TrimSpace(s), "%") || p < 100 || p != p {
		return 0, fmt.Errorf("--straggler %q: want a percentage of the median of 100%% or more, like 200%%", s)
	}
	return p / 100, nil
}

func runDash(env *cmdenv.Env, cmd *cobra.Command, cfg dashConfig) error {
	factor, err := parseStraggler(cfg.straggler)
	if err != nil {
		return cmdenv.UsageError(err)
	}
	if err := cmdenv.CheckDashboardAddr(cfg.http, cfg.insecure); err != nil {
		return cmdenv.UsageError(err)
	}
	nc, ctx, _, err := cmdenv.ConnectAs(env.Ctx, cfg.nats, "worksteal dash", cluster.RoleObserver, cfg.creds, cmd.ErrOrStderr())
	if err != nil {
		return err
	}
	defer nc.Close()
	err = cmdenv.ServeDashboard(ctx, nc, clusterdash.Config{Stream: cfg.stream, StragglerFactor: factor}, cfg.http, cmd.OutOrStdout())
	if r := cmdenv.Refused(ctx); r != nil {
		return r
	}
	return err
}
