package workercmd

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/spf13/cobra"

	"github.com/worksteal/worksteal/cluster"
	"github.com/worksteal/worksteal/cluster/shelltask"
	"github.com/worksteal/worksteal/internal/cli/benchcmd"
	"github.com/worksteal/worksteal/internal/cli/cmdenv"
	"github.com/worksteal/worksteal/internal/clusterops"
	"github.com/worksteal/worksteal/internal/clusterwire"
	"github.com/worksteal/worksteal/internal/throttle"
	"github.com/worksteal/worksteal/runner"
)

func init() {
	cmdenv.AddCommand(newWorkerCommand)
	cmdenv.AddCommand(newReapCommand)
}

// workerConfig is what the flags of "worksteal worker" fill in.
type workerConfig struct {
	nats  string
	slots int
	name  string
	cmdenv.ClusterFlags
	shell string
	grace time.Duration
	// labels (--label KEY=VALUE) and speed describe the worker: tasks
	// that require labels go only to workers that have them.
	labels []string
	speed  float64
	// load and memFree (--load, --memfree): take no new tasks while the
	// machine is busier or shorter of memory than this (worker_load.go).
	load, memFree string
}

func newWorkerCommand(env *cmdenv.Env) *cobra.Command {
	var cfg workerConfig
	cmd := &cobra.Command{
		Use:   "worker --nats URL [-j N]",
		Short: "Run the cluster tier's tasks: pull them from NATS JetStream as slots free up",
		Long: `worker connects to a NATS server with JetStream (worksteal serve, or a NATS
cluster) and runs the tasks submitted with worksteal run --nats: shell
commands, N at once. It pulls a task only when a slot is free, so a machine
with more slots, or faster ones, takes more of the batch. Long tasks are
kept alive with heartbeats; if the worker dies (kill -9 included), its
commands' processes are killed by its reaper and its tasks go to other
workers after the ack deadline. On SIGINT or SIGTERM the running tasks are
stopped and handed back at once (while the server is unreachable, the
worker exits after --grace and a second more, and its tasks go to other
workers after the ack wait). Neither is an attempt of the task: only a
command's own failure counts against run's --retries.

Workers and submitters that work together use the same --stream. The ack
wait is the deployment's: the first worker or submitter of a stream sets it
(--ack-wait), the others adopt it. A task whose deliveries end without an
outcome --max-deliver times (it kills its workers) is recorded as a poison
task. The worker logs losing and regaining the server.

Besides the --label ones, a worker's labels say what it measures of its
machine: cores=N (CPUs it may use, capped by its cgroup quota), mem=NG (total memory, whole GiB), gpu=N (NVIDIA GPUs the
driver shows; 0 when none) and dri=N (render devices, when present); a
--label with the same key wins. With --load or --memfree (GNU parallel's
flags) the worker takes no new tasks while the machine runs that many
processes or has less memory available, and says so on stderr; the tasks go
to other workers, and its running tasks go on.`,
		Example: `  worksteal worker --nats nats://127.0.0.1:4222
  worksteal worker --nats nats://10.0.0.1:4222 -j 32 --name big-box
  worksteal worker --nats nats://10.0.0.1:4222 --load 100% --memfree 2G`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return runWorker(env, cmd, cfg) },
	}
	f := cmd.Flags()
	f.StringVar(&cfg.nats, "nats", "nats://127.0.0.1:4222", "URL of the NATS server (several: comma-separated)")
	f.IntVarP(&cfg.slots, "jobs", "j", 0, "tasks run at once (default: number of CPUs)")
	f.StringVar(&cfg.name, "name", "", "worker name in results and joblogs (default: the name its --creds key was made for, else host-pid)")
	f.StringArrayVar(&cfg.labels, "label", nil, "a label of this worker, KEY=VALUE (repeatable): tasks that require it (run --require) run only on workers that have it")
	f.StringVar(&cfg.load, "load", "", "take no new tasks while the machine's load (processes running or waiting for the disk) is this or more: N, +N, -N (CPUs plus or minus N) or N% of the CPUs, as run --load; running tasks go on")
	f.StringVar(&cfg.memFree, "memfree", "", "take no new tasks while the machine has less free memory than this (2G, 500M, as run --memfree; a running task is never killed)")
	f.Float64Var(&cfg.speed, "speed", 1, "this worker's relative speed, shown in the worker registry (pulling already gives a faster worker more tasks)")
	cfg.ClusterFlags.Add(f, "")
	f.StringVar(&cfg.shell, "shell", "/bin/sh", "shell that runs each command")
	f.DurationVar(&cfg.grace, "grace", 2*time.Second, "time a stopped task's processes have between SIGTERM and SIGKILL")
	return cmd
}

func runWorker(env *cmdenv.Env, cmd *cobra.Command, cfg workerConfig) error {
	errs := cmd.ErrOrStderr()
	opts, admit, err := workerOptions(&cfg, errs)
	if err != nil {
		return err
	}
	nc, ctx, roleOpts, err := cmdenv.ConnectAs(env.Ctx, cfg.nats, "worksteal worker", cluster.RoleWorker, cfg.Creds, errs)
	if err != nil {
		return err
	}
	// Tasks do not inherit the worker's credentials: the variables that
	// name them are read (connectAs) and dropped from the environment the
	// tasks' processes get.
	dropCredentialEnv()
	defer closeWithin(nc, time.Second)
	var node *cluster.Node
	// "serving" is printed once the worker is in the registry: a
	// submitter started after it sees this worker's handlers and labels.
	ready := clusterops.WithReady(func() {
		fmt.Fprintf(cmd.OutOrStdout(), "worksteal worker %s: serving %s on %s\n", node.Name(), strings.Join(clusterops.Handlers(node), ", "), nc.ConnectedUrl())
	})
	node, err = cluster.New(nc, append(append(opts, roleOpts...), ready.(cluster.Option))...)
	if err != nil {
		return cmdenv.UsageError(err)
	}
	// The reaper kills the running commands' process groups if this
	// worker dies (kill -9 included): a dead worker leaves no orphans.
	var reaper *runner.Reaper
	if argv := ReaperCommand(cfg.grace); argv != nil {
		reaper, err = runner.StartReaper(argv...)
		if err != nil {
			fmt.Fprintf(errs, "worksteal worker: %v: the commands of this worker will outlive it if it dies\n", err)
		} else {
			defer reaper.Close()
		}
	}
	if err := node.Handle(shelltask.HandlerName, shelltask.NewHandler(cfg.shell, cfg.grace, reaper)); err != nil {
		return err
	}
	if err := benchcmd.RegisterBuiltins(node); err != nil { // bench_cluster.go
		return err
	}
	if admit != nil {
		go admit.run(ctx, "worksteal worker "+node.Name(), errs)
	}
	return serveUntilStopped(ctx, node, cfg.grace, errs)
}

// workerOptions checks the worker's flags and turns them into the node's
// options: slots, name (from a worker key of its own when --name is not
// given), labels (the machine's and --label), speed, admission (--load,
// --memfree; nil when neither is set) and the error log.
func workerOptions(cfg *workerConfig, errs io.Writer) ([]cluster.Option, *admission, error) {
	if cfg.slots < 0 {
		return nil, nil, cmdenv.UsageError(fmt.Errorf("-j %d: want 1 or more slots (0: one per CPU)", cfg.slots))
	}
	opts := cfg.ClusterFlags.Options()
	if cfg.slots > 0 {
		opts = append(opts, cluster.WithSlots(cfg.slots))
	}
	if cfg.name == "" {
		// A worker's key of its own (serve credentials add, serve init
		// --workers) names it: it may register only under that name.
		if holder, role, ok := cfg.Creds.FromEnv().Holder(); ok && role == cluster.RoleWorker {
			cfg.name = holder
		}
	}
	if c := cfg.Creds.FromEnv(); c.Creds != "" && sharedWorkerKey(c.Creds) {
		fmt.Fprintf(errs, "worksteal worker: warning: %s is the key every worker shares (serve init --shared-worker-key): a stolen copy acts as any worker, and revoking it stops them all; give this machine a key of its own (serve credentials add --role worker --name NAME)\n", c.Creds)
	}
	if cfg.name != "" {
		opts = append(opts, cluster.WithName(cfg.name))
	}
	labels, err := cmdenv.ParseLabels(cfg.labels)
	if err != nil {
		return nil, nil, cmdenv.UsageError(fmt.Errorf("--label: %w", err))
	}
	if !(cfg.speed > 0) {
		return nil, nil, cmdenv.UsageError(fmt.Errorf("--speed %v: want a positive number", cfg.speed))
	}
	opts = append(opts, cluster.WithLabels(clusterops.MachineLabels(labels)), clusterops.WithSpeed(cfg.speed).(cluster.Option))
	admit, err := NewAdmission(cfg.load, cfg.memFree, throttle.ReadMachine)
	if err != nil {
		return nil, nil, cmdenv.UsageError(err)
	}
	if admit != nil {
		opts = append(opts, cluster.WithAdmission(admit.Ok.Load))
	}
	opts = append(opts, cluster.WithErrorHandler(newErrorLog(errs, "worksteal worker").log))
	return opts, admit, nil
}

// serveUntilStopped serves node until ctx ends (a signal) or Serve fails,
// and then waits for Serve to hand the running tasks back, at most the
// commands' grace and workerStopWait.
func serveUntilStopped(ctx context.Context, node *cluster.Node, grace time.Duration, errs io.Writer) error {
	var err error
	served := make(chan error, 1)
	go func() { served <- node.Serve(ctx) }()
	select {
	case err = <-served:
	case <-ctx.Done():
		// Stopping: Serve hands the running tasks back and says goodbye
		// to the server. While the server is unreachable each of those
		// waits for a connection that does not come (the client holds
		// its lock for each reconnection attempt), so the worker stops
		// after the commands' grace and a short wait, as a dead worker
		// would: its tasks go to other workers after the ack wait.
		limit := grace + workerStopWait
		select {
		case err = <-served:
		case <-time.After(limit):
			if r := cmdenv.Refused(ctx); r != nil {
				return r // refused, not unreachable: its last writes wait for answers that do not come
			}
			fmt.Fprintf(errs, "worksteal worker: stopped without the NATS server's answer within %v (is it unreachable?): the tasks that ran go to other workers after the ack wait\n", limit)
			return nil
		}
	}
	if r := cmdenv.Refused(ctx); r != nil {
		return r
	}
	return err
}

// workerStopWait is how long a stopping worker waits, beyond its commands'
// grace, for the server to take back its tasks.
const workerStopWait = time.Second

// closeWithin closes nc, waiting at most d: closing waits for the client's
// lock, which a reconnection attempt to an unreachable server holds for
// its whole timeout.
func closeWithin(nc *nats.Conn, d time.Duration) {
	done := make(chan struct{})
	go func() { nc.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(d):
	}
}

// credentialEnv lists the environment variables that name a client's
// credentials (cluster.Credentials.FromEnv) or a NATS client's.
var credentialEnv = []string{clusterwire.EnvCreds, clusterwire.EnvTLSCA, clusterwire.EnvTLSCert, clusterwire.EnvTLSKey, "NATS_CREDS", "NATS_NKEY", "NKEYS_PATH"}

// dropCredentialEnv removes the credential variables from this process's
// environment, which the tasks' processes inherit.
func dropCredentialEnv() {
	for _, v := range credentialEnv {
		os.Unsetenv(v)
	}
}

// errorLog writes background errors, at most one line per kind a second:
// while a JetStream cluster elects a leader every request fails, and the
// log says so once a second with a count, not hundreds of times.
type errorLog struct {
	w      io.Writer
	prefix string
	mu     sync.Mutex
	last   map[string]time.Time
	quiet  map[string]int
}

func newErrorLog(w io.Writer, prefix string) *errorLog {
	return &errorLog{w: w, prefix: prefix, last: map[string]time.Time{}, quiet: map[string]int{}}
}

func (l *errorLog) log(err error) {
	msg := err.Error()
	kind := msg
	if i := strings.IndexByte(msg, ':'); i >= 0 {
		if j := strings.IndexByte(msg[i+1:], ':'); j >= 0 {
			kind = msg[:i+1+j] // "cluster: what failed"
		}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	now := time.Now()
	if now.Sub(l.last[kind]) < time.Second {
		l.quiet[kind]++
		return
	}
	l.last[kind] = now
	if n := l.quiet[kind]; n > 0 {
		fmt.Fprintf(l.w, "%s: %s (and %d more like it)\n", l.prefix, msg, n)
		l.quiet[kind] = 0
		return
	}
	fmt.Fprintf(l.w, "%s: %s\n", l.prefix, msg)
}

// ReaperCommand is the command line of the worker's reaper: this binary's
// hidden "reap" command. Nil when this process is not the worksteal binary
// (the package's tests run the worker in-process).
var ReaperCommand = func(grace time.Duration) []string {
	exe, err := os.Executable()
	if err != nil {
		return nil
	}
	return []string{exe, "reap", "--grace", grace.String()}
}

// newReapCommand is the worker's reaper process (see runner.Reaper): not
// for users, hidden from help.
func newReapCommand(env *cmdenv.Env) *cobra.Command {
	var grace time.Duration
	cmd := &cobra.Command{
		Use:    "reap",
		Short:  "Kill a dead worker's commands (started by worksteal worker)",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			signal.Ignore(syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
			return runner.ReapGroups(env.Stdin, grace)
		},
	}
	cmd.Flags().DurationVar(&grace, "grace", 2*time.Second, "time between SIGTERM and SIGKILL")
	return cmd
}

// sharedWorkerKey says file is the workers' shared key that serve init
// --shared-worker-key writes: its first line names the role and no holder.
func sharedWorkerKey(file string) bool {
	f, err := os.Open(file)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, 64)
	k, _ := f.Read(head)
	return strings.HasPrefix(string(head[:k]), "# worksteal worker credentials: ")
}
