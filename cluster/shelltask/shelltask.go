package shelltask

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/worksteal/worksteal/cluster"
	"github.com/worksteal/worksteal/runner"
)

// HandlerName is the handler a shell task names ([cluster.Task].Handler):
// "worksteal worker" registers [NewHandler]'s handler under it, and
// "worksteal run --nats" submits every job to it.
const HandlerName = "sh"

// Task is the payload of a shell task, JSON-encoded in [cluster.Task].Payload:
// the command line the worker's shell runs (Cmd, required), its job number
// (Seq: $WORKSTEAL_SEQ and $PARALLEL_SEQ), a time limit in milliseconds
// (0: none), its standard input, and extra environment variables.
type Task struct {
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
func inheritEnv(t Task) []string {
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

// Inherit fills in what a child task inherits from the task whose command
// spawns it (run inside that command, as "worksteal spawn" is): the
// variables the parent was given with run --env, and its time limit.
func Inherit(t *Task) {
	if names := os.Getenv(envInheritNames); names != "" {
		for _, k := range strings.Split(names, ",") {
			if v, ok := os.LookupEnv(k); ok {
				t.Env = append(t.Env, k+"="+v)
			}
		}
	}
	t.TimeoutMs, _ = strconv.ParseInt(os.Getenv(envInheritTimeout), 10, 64)
}

// Result is what a shell task's handler writes back, JSON-encoded in
// [cluster.Result].Output: the exit status, the signal that killed the
// command (0 if none) and its output. A command that succeeds gives its
// standard output as the task's value ([cluster.ReduceValue]), so Stdout is
// empty then.
type Result struct {
	Exit   int    `json:"exit"`
	Signal int    `json:"signal,omitempty"`
	Stdout []byte `json:"stdout,omitempty"`
	Stderr []byte `json:"stderr,omitempty"`
}

// NewHandler returns the handler that runs each [Task]'s command with
// shell (as "shell -c CMD"), in a process group of its own that is stopped
// (SIGTERM, then SIGKILL after grace) when the task is cancelled or times
// out; reaper, if not nil, kills the groups a dying worker leaves. A
// non-zero exit or a signal is an error (the task is retried as its job
// allows); the [Result] is the output either way. A malformed task is a
// permanent failure.
func NewHandler(shell string, grace time.Duration, reaper *runner.Reaper) cluster.Handler {
	return func(ctx context.Context, payload []byte) ([]byte, error) {
		var t Task
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
		sr := Result{Exit: e.Code, Signal: e.Signal, Stdout: e.Stdout, Stderr: e.Stderr}
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
