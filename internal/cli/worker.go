package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	neturl "net/url"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/worksteal/worksteal/cluster"
	"github.com/worksteal/worksteal/runner"
)

func init() {
	addCommand(newWorkerCommand)
	addCommand(newReapCommand)
}

// workerConfig is what the flags of "worksteal worker" fill in.
type workerConfig struct {
	nats  string
	slots int
	name  string
	clusterFlags
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

// shellHandler is the name of the handler that runs shell commands, the
// tasks of "worksteal run --nats".
const shellHandler = "sh"

// shellTask is the payload of a shell task.
type shellTask struct {
	Cmd       string `json:"cmd"`
	Seq       int    `json:"seq"`
	TimeoutMs int64  `json:"timeout_ms,omitempty"`
	Stdin     []byte `json:"stdin,omitempty"` // the command's stdin: a chunk of run --pipe
	// Env is what run --env copies to the job: NAME=value.
	Env []string `json:"env,omitempty"`
}

// What a spawned child inherits from its parent's task (worksteal spawn
// reads these): the names of the variables run --env gave the task, whose
// values the child takes from the spawning command's environment, and the
// task's --timeout. The retries and the job's reduction are the job's, so
// a child has them anyway; the working directory is the worker's for every
// task.
const (
	envInheritNames   = "WORKSTEAL_ENV_NAMES"
	envInheritTimeout = "WORKSTEAL_TIMEOUT_MS"
)

// inheritEnv is the environment that lets worksteal spawn give a child
// what its parent task t was given.
func inheritEnv(t shellTask) []string {
	var names []string
	for _, kv := range t.Env {
		if k, _, ok := strings.Cut(kv, "="); ok {
			names = append(names, k)
		}
	}
	var env []string
	if len(names) > 0 {
		env = append(env, envInheritNames+"="+strings.Join(names, ","))
	}
	if t.TimeoutMs > 0 {
		env = append(env, envInheritTimeout+"="+strconv.FormatInt(t.TimeoutMs, 10))
	}
	return env
}

// inherited is the part of a spawned child's shell task that it inherits
// from the task whose command runs worksteal spawn (see inheritEnv).
func inherited(t *shellTask) {
	if names := os.Getenv(envInheritNames); names != "" {
		for _, k := range strings.Split(names, ",") {
			if v, ok := os.LookupEnv(k); ok {
				t.Env = append(t.Env, k+"="+v)
			}
		}
	}
	t.TimeoutMs, _ = strconv.ParseInt(os.Getenv(envInheritTimeout), 10, 64)
}

// shellResult is the output of a shell task.
type shellResult struct {
	Exit   int    `json:"exit"`
	Signal int    `json:"signal,omitempty"`
	Stdout []byte `json:"stdout,omitempty"`
	Stderr []byte `json:"stderr,omitempty"`
}

func newWorkerCommand(env *Env) *cobra.Command {
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
	cfg.clusterFlags.add(f, "")
	f.StringVar(&cfg.shell, "shell", "/bin/sh", "shell that runs each command")
	f.DurationVar(&cfg.grace, "grace", 2*time.Second, "time a stopped task's processes have between SIGTERM and SIGKILL")
	return cmd
}

// clusterFlags are the flags that workers and submitters share.
type clusterFlags struct {
	stream     string
	ackWait    time.Duration
	maxDeliver int
	replicas   int
	changed    func(name string) bool
	creds      cluster.Credentials // client_security.go
}

// add adds the flags to f, their help prefixed with prefix.
func (c *clusterFlags) add(f *pflag.FlagSet, prefix string) {
	f.StringVar(&c.stream, "stream", "ws", prefix+"name prefix of the JetStream stream, buckets and subjects")
	f.DurationVar(&c.ackWait, "ack-wait", 30*time.Second, prefix+"a task whose worker is silent this long goes to another worker; set by the first worker or submitter of a stream, adopted by the others")
	f.IntVar(&c.maxDeliver, "max-deliver", 10, prefix+"deliveries of a task that may end without an outcome (its worker died, stopped or lost the server) before it is recorded as a poison task")
	f.IntVar(&c.replicas, "replicas", 1, prefix+"servers that keep a copy of the tasks and results (3 survives the loss of one server of a JetStream cluster)")
	c.changed = func(name string) bool { return f.Changed(name) }
	addCredentialFlags(f, &c.creds, prefix)
}

// options are the cluster options the flags ask for: the ack wait only if
// given, so that a client does not override the deployment's.
func (c *clusterFlags) options() []cluster.Option {
	opts := []cluster.Option{cluster.WithStream(c.stream), cluster.WithMaxDeliver(c.maxDeliver), cluster.WithReplicas(c.replicas)}
	if c.changed != nil && c.changed("ack-wait") {
		opts = append(opts, cluster.WithAckWait(c.ackWait))
	}
	return opts
}

// connectNATS connects to url with an error that names it. Losing and
// regaining the server is logged to log, if not nil.
func connectNATS(ctx context.Context, url, name string, log io.Writer, extra ...nats.Option) (*nats.Conn, error) {
	if u, err := neturl.Parse(url); err == nil && u.Scheme != "" && u.Scheme != "nats" && u.Scheme != "tls" && u.Scheme != "ws" && u.Scheme != "wss" {
		return nil, usageError(fmt.Errorf("--nats %q: want a NATS URL such as nats://HOST:4222, not %s://", url, u.Scheme))
	}
	opts := []nats.Option{nats.Name(name), nats.Timeout(5 * time.Second),
		nats.MaxReconnects(-1), nats.ReconnectWait(250 * time.Millisecond)}
	if log != nil {
		opts = append(opts,
			nats.DisconnectErrHandler(func(nc *nats.Conn, err error) {
				if err != nil {
					fmt.Fprintf(log, "%s: lost the NATS server: %v; reconnecting\n", name, err)
				} else if !nc.IsClosed() {
					fmt.Fprintf(log, "%s: lost the NATS server; reconnecting\n", name)
				}
			}),
			nats.ReconnectHandler(func(nc *nats.Conn) {
				fmt.Fprintf(log, "%s: reconnected to %s\n", name, nc.ConnectedUrl())
			}))
	}
	nc, err := nats.Connect(url, append(opts, extra...)...)
	if err != nil {
		return nil, fmt.Errorf("cannot connect to NATS at %s: %w (is worksteal serve running?)", url, err)
	}
	return nc, nil
}

func runWorker(env *Env, cmd *cobra.Command, cfg workerConfig) error {
	if cfg.slots < 0 {
		return usageError(fmt.Errorf("-j %d: want 1 or more slots (0: one per CPU)", cfg.slots))
	}
	opts := cfg.clusterFlags.options()
	if cfg.slots > 0 {
		opts = append(opts, cluster.WithSlots(cfg.slots))
	}
	if cfg.name == "" {
		// A worker's key of its own (serve credentials add, serve init
		// --workers) names it: it may register only under that name.
		if holder, role, ok := cfg.creds.FromEnv().Holder(); ok && role == cluster.RoleWorker {
			cfg.name = holder
		}
	}
	if cfg.name != "" {
		opts = append(opts, cluster.WithName(cfg.name))
	}
	labels, err := cluster.ParseLabels(cfg.labels)
	if err != nil {
		return usageError(fmt.Errorf("--label: %w", err))
	}
	if !(cfg.speed > 0) {
		return usageError(fmt.Errorf("--speed %v: want a positive number", cfg.speed))
	}
	opts = append(opts, cluster.WithLabels(cluster.MachineLabels().Merge(labels)), cluster.WithSpeed(cfg.speed))
	errs := cmd.ErrOrStderr()
	admit, err := newAdmission(cfg.load, cfg.memFree, runner.ReadMachine)
	if err != nil {
		return usageError(err)
	}
	if admit != nil {
		opts = append(opts, cluster.WithAdmission(admit.ok.Load))
	}
	opts = append(opts, cluster.WithErrorHandler(newErrorLog(errs, "worksteal worker").log))
	nc, ctx, roleOpts, err := connectAs(env.Ctx, cfg.nats, "worksteal worker", cluster.RoleWorker, cfg.creds, errs)
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
	ready := cluster.WithReady(func() {
		fmt.Fprintf(cmd.OutOrStdout(), "worksteal worker %s: serving %s on %s\n", node.Name(), strings.Join(node.Handlers(), ", "), nc.ConnectedUrl())
	})
	node, err = cluster.New(nc, append(append(opts, roleOpts...), ready)...)
	if err != nil {
		return usageError(err)
	}
	// The reaper kills the running commands' process groups if this
	// worker dies (kill -9 included): a dead worker leaves no orphans.
	var reaper *runner.Reaper
	if argv := reaperCommand(cfg.grace); argv != nil {
		reaper, err = runner.StartReaper(argv...)
		if err != nil {
			fmt.Fprintf(errs, "worksteal worker: %v: the commands of this worker will outlive it if it dies\n", err)
		} else {
			defer reaper.Close()
		}
	}
	if err := node.Handle(shellHandler, shellTaskHandler(cfg.shell, cfg.grace, reaper)); err != nil {
		return err
	}
	if err := registerBuiltins(node); err != nil { // bench_cluster.go
		return err
	}
	if admit != nil {
		go admit.run(ctx, "worksteal worker "+node.Name(), errs)
	}
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
		limit := cfg.grace + workerStopWait
		select {
		case err = <-served:
		case <-time.After(limit):
			if r := refused(ctx); r != nil {
				return r // refused, not unreachable: its last writes wait for answers that do not come
			}
			fmt.Fprintf(errs, "worksteal worker: stopped without the NATS server's answer within %v (is it unreachable?): the tasks that ran go to other workers after the ack wait\n", limit)
			return nil
		}
	}
	if r := refused(ctx); r != nil {
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
var credentialEnv = []string{cluster.EnvCreds, cluster.EnvTLSCA, cluster.EnvTLSCert, cluster.EnvTLSKey, "NATS_CREDS", "NATS_NKEY", "NKEYS_PATH"}

// dropCredentialEnv removes the credential variables from this process's
// environment, which the tasks' processes inherit.
func dropCredentialEnv() {
	for _, v := range credentialEnv {
		os.Unsetenv(v)
	}
}

// shellTaskHandler runs one shell command per task, its process group
// killed when the task is cancelled. A non-zero exit is an error (the task
// is retried as the job allows); the output is the result either way.
func shellTaskHandler(shell string, grace time.Duration, reaper *runner.Reaper) cluster.Handler {
	return func(ctx context.Context, payload []byte) ([]byte, error) {
		var t shellTask
		if err := json.Unmarshal(payload, &t); err != nil || t.Cmd == "" {
			return nil, cluster.Permanent(fmt.Errorf("malformed shell task %q", payload))
		}
		if t.TimeoutMs > 0 {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, time.Duration(t.TimeoutMs)*time.Millisecond)
			defer cancel()
		}
		seq := fmt.Sprint(t.Seq)
		info, _ := cluster.TaskOf(ctx)
		env := append(slices.Clip(t.Env), "WORKSTEAL_SEQ="+seq, "PARALLEL_SEQ="+seq, "WORKSTEAL_WORKER="+info.Worker, "WORKSTEAL_TASK="+info.Task)
		if spawn, err := cluster.SpawnEnv(ctx); err == nil { // its command may spawn children (worksteal spawn)
			env = append(env, spawn...)
			env = append(env, inheritEnv(t)...)
		}
		c := runner.Command{Shell: shell, Line: t.Cmd, Grace: grace, Reaper: reaper, Env: env}
		if t.Stdin != nil {
			c.Stdin = bytes.NewReader(t.Stdin)
		}
		e := runner.Exec(ctx, c)
		sr := shellResult{Exit: e.Code, Signal: e.Signal, Stdout: e.Stdout, Stderr: e.Stderr}
		// A command that succeeds gives its standard output as its value
		// (the job's reduction: printed by run, concatenated with its
		// children's, or summed...), not twice.
		if e.Err == nil && e.Signal == 0 && e.Code == 0 && cluster.ReduceValue(ctx, e.Stdout) == nil {
			sr.Stdout = nil
		}
		out, _ := json.Marshal(sr)
		if strings.Contains(info.Task, "=") { // a spawned child: its parent's error names it, with this
			switch {
			case e.Err != nil && ctx.Err() == context.DeadlineExceeded:
				return out, fmt.Errorf("command %q timed out after %v", t.Cmd, time.Duration(t.TimeoutMs)*time.Millisecond)
			case e.Err != nil:
				return out, fmt.Errorf("command %q: %w", t.Cmd, e.Err)
			case e.Signal != 0:
				return out, fmt.Errorf("command %q killed by signal %d%s", t.Cmd, e.Signal, stderrTail(e.Stderr))
			case e.Code != 0:
				return out, fmt.Errorf("command %q: exit status %d%s", t.Cmd, e.Code, stderrTail(e.Stderr))
			}
			return out, nil
		}
		switch {
		case e.Err != nil && ctx.Err() == context.DeadlineExceeded:
			return out, fmt.Errorf("timed out after %v", time.Duration(t.TimeoutMs)*time.Millisecond)
		case e.Err != nil:
			return out, e.Err
		case e.Signal != 0:
			return out, fmt.Errorf("killed by signal %d", e.Signal)
		case e.Code != 0:
			return out, fmt.Errorf("exit status %d", e.Code)
		}
		return out, nil
	}
}

// stderrTail is the last line of a failed child's standard error, for
// its error ("" if none): a spawned child's output is not printed.
func stderrTail(b []byte) string {
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return ""
	}
	if i := bytes.LastIndexByte(b, '\n'); i >= 0 {
		b = b[i+1:]
	}
	if len(b) > 200 {
		b = append(b[:200:200], "..."...)
	}
	return "; stderr: " + string(b)
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

// reaperCommand is the command line of the worker's reaper: this binary's
// hidden "reap" command. Nil when this process is not the worksteal binary
// (the package's tests run the worker in-process).
var reaperCommand = func(grace time.Duration) []string {
	exe, err := os.Executable()
	if err != nil {
		return nil
	}
	return []string{exe, "reap", "--grace", grace.String()}
}

// newReapCommand is the worker's reaper process (see runner.Reaper): not
// for users, hidden from help.
func newReapCommand(env *Env) *cobra.Command {
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
