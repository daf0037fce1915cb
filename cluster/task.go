package cluster

import (
	"context"
	"sync"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/worksteal/worksteal"
)

// Handler does the work of one task: it gets the task's payload and
// returns its result. It must honour ctx: ctx is cancelled when the worker
// stops (the task then goes to another worker) or when another copy of the
// task has recorded its result. A handler may run more than once for one
// task (at-least-once execution), so its effects should be idempotent; only
// one result per task is recorded.
//
// A returned error makes the task run again, after a backoff, until its
// attempts are spent; wrap it with Permanent to record the failure at once.
// The result bytes are recorded with the error too (a failed command's
// output, say). A panic is recovered and counts as an error.
//
// Inside a handler: TaskOf(ctx) says which task runs, SaveCheckpoint and
// LoadCheckpoint keep progress across redeliveries, and PoolFrom(ctx) is the
// worker's work-stealing pool for the task's fine-grained parallel work.
type Handler func(ctx context.Context, payload []byte) ([]byte, error)

// Task is one unit of work of a job.
type Task struct {
	// ID names the task within its job: letters, digits, '-', '_' and '=';
	// "" means its index in Job.Tasks.
	ID string
	// Handler names the registered handler that runs it.
	Handler string
	// Payload is the handler's input.
	Payload []byte
	// Require adds to the job's requirements (Job.Require) for this task;
	// a key in both takes this value.
	Require Labels
}

// Job is a batch of tasks submitted together.
type Job struct {
	// ID names the job: letters, digits, '-' and '_'. Submitting an ID that
	// is already recorded resumes that job. "" means a fresh unique id.
	ID string
	// Tasks are the job's tasks.
	Tasks []Task
	// MaxAttempts limits the attempts of each task, the first included; 0
	// means 3. An attempt is a run whose handler returned (an error, a
	// panic): a run cut short by its worker's death or stop, a partition
	// or a server restart is not one, and the task runs again (see
	// WithMaxDeliver for the limit on those).
	MaxAttempts int
	// RetryDelay is the wait before the first retry of a failed task,
	// doubling for each next one up to a minute, with jitter (as the local
	// runner waits); 0 means the worker's WithBackoff.
	RetryDelay time.Duration
	// Speculate enables speculative copies: once every unfinished task of
	// the job is running, a task that has run longer than SpeculateAfter
	// (0: 1.5 × the 75th percentile of the finished tasks, after three) is
	// published again, once; the first copy to record its result wins, and
	// the other copy's handler is cancelled. For idempotent handlers only.
	Speculate      bool
	SpeculateAfter time.Duration
	// Reduce names the reduction of the job's values (see Combine): a
	// built-in one (sum, count, min, max, concat) or one registered with
	// Node.Reduce on the submitter and the workers. The workers reduce the
	// children they run themselves into their parent's Result.Value, the
	// submitter the results as they arrive (Submission.Value). "" is
	// concat.
	Reduce string
	// RetryFailed, when the job is resumed, runs again the tasks whose
	// recorded result is a failure: their results are removed and the
	// tasks published anew, with their attempts reset.
	RetryFailed bool
	// Require lists labels that a worker must have (WithLabels) to run
	// the job's tasks: only such workers are delivered them. Submit
	// refuses a job a task of which no live worker can run
	// (ErrNoCapableWorker, ErrUnknownHandler).
	Require Labels
	// NoSpawn keeps the children its tasks spawn (Spawn) on the worker
	// that runs their unit: none is handed over to another worker. With
	// a server that runs a recorder (worksteal serve), the recorder
	// refuses a hand-over of such a job's child, so a worker cannot use
	// one of its tasks to make other workers run anything.
	NoSpawn bool
}

// Result is the recorded outcome of one task. Exactly one Result is
// recorded per task, by the first copy to finish.
type Result struct {
	Job     string
	Task    string
	Index   int // position of the task in Job.Tasks
	Handler string
	Output  []byte
	// Error is the handler's error, "" on success: its message only (a
	// panic's stack is in Stack).
	Error string
	// Failure says what kind of failure Error is, "" on success.
	Failure Failure
	// Stack is the stack of a handler's panic (Failure == FailurePanic),
	// "" otherwise.
	Stack string
	// Worker is the name of the worker that recorded the result.
	Worker string
	// Attempt is the attempt that produced it, from 1: the handler's
	// failures before it + 1.
	Attempt int
	// Deliveries is how many times the task was delivered, this one
	// included: more than Attempt when deliveries were lost with their
	// worker or server (the task then ran again), or handed back.
	Deliveries int
	// Discarded counts the runs of the task that ended after this result
	// was recorded and whose results were discarded, beyond the
	// deliveries above: a run that went on while the server was away (its
	// delivery forgotten by a restart, or redelivered meanwhile), a
	// speculative copy. The worker of such a run adds it to the record.
	Discarded int
	// Reran counts the spawned children that this task ran itself (on
	// its worker, not handed over) and that had started in a run of the
	// task lost with its worker: each ran again with this run. As a
	// watcher saw them (failover.go); runs lost without one are not known.
	Reran int
	// Speculative says a speculative copy produced it.
	Speculative bool
	Start       time.Time
	Runtime     time.Duration
	// Trees (see Spawn). Parent is the task whose result lists this one
	// ("" for the job's own tasks); Spawned the children this task's run
	// handed over to other workers, recorded as tasks of their own; Value
	// the job's reduction of what this task and the children it ran
	// itself produced, when it spawned or set a value (ReduceValue), else
	// nil (its value is then Output; an empty value is not nil). Runtime
	// includes its local children.
	Parent  string
	Spawned []string
	Value   []byte
}

// OK says the task succeeded.
func (r Result) OK() bool { return r.Error == "" }

// Reruns is how many more times the task ran than its attempts: the
// deliveries lost with a worker or a server (it ran again), the
// discarded runs, and the runs again of its tree's local children
// (Reran): node runs, not task runs. Attempt-1 + Reruns are its executions beyond one; a
// Submission's Progress, worksteal job status and job results all count
// them from the recorded results.
func (r Result) Reruns() int { return max(0, r.Deliveries-r.Attempt) + r.Discarded + r.Reran }

// Failure is the kind of a task's failure.
type Failure string

// Kinds of failure.
const (
	// FailureError: the handler returned an error on every attempt the
	// job allows (Job.MaxAttempts), or its result was over the server's
	// size limit.
	FailureError Failure = "error"
	// FailurePermanent: the handler returned an error wrapped with
	// Permanent; it was not retried.
	FailurePermanent Failure = "permanent"
	// FailurePanic: the handler panicked on its last attempt; the stack is
	// in Result.Stack.
	FailurePanic Failure = "panic"
	// FailurePoison: the task's deliveries ended without an outcome too
	// often (WithMaxDeliver): Error says "cluster: poison task: delivered
	// the maximum number of times without an outcome".
	FailurePoison Failure = "poison"
	// FailureUnknownHandler: no worker that received the task had its
	// handler.
	FailureUnknownHandler Failure = "unknown-handler"
)

// wireResult is Result as stored: times as integers, which encode in a
// tenth of the time of RFC 3339 text (one result is written per task).
type wireResult struct {
	Job         string   `json:"job"`
	Task        string   `json:"task"`
	Index       int      `json:"index"`
	Handler     string   `json:"handler"`
	Output      []byte   `json:"output,omitempty"`
	Error       string   `json:"error,omitempty"`
	Failure     string   `json:"failure,omitempty"`
	Stack       string   `json:"stack,omitempty"`
	Worker      string   `json:"worker"`
	Attempt     int      `json:"attempt"`
	Deliveries  int      `json:"deliveries,omitempty"`
	Discarded   int      `json:"discarded,omitempty"`
	Reran       int      `json:"reran,omitempty"`
	Speculative bool     `json:"speculative,omitempty"`
	StartNs     int64    `json:"start_ns,omitempty"`
	RuntimeNs   int64    `json:"runtime_ns"`
	Parent      string   `json:"parent,omitempty"`
	Spawned     []string `json:"spawned,omitempty"`
	Value       *[]byte  `json:"value,omitempty"` // nil: none; empty: an empty value
}

// MarshalJSON encodes r as it is stored in the results bucket: the
// fields in snake case, Start as start_ns (Unix nanoseconds), Runtime as
// runtime_ns, empty Output and Error left out.
func (r Result) MarshalJSON() ([]byte, error) { return appendResult(nil, r), nil }

// UnmarshalJSON decodes what MarshalJSON encodes.
func (r *Result) UnmarshalJSON(b []byte) error { return decodeResult(b, r) }

// TaskInfo describes the task a handler is running.
type TaskInfo struct {
	Job, Task   string
	Index       int
	Attempt     int  // the attempt, from 1 (failures so far + 1)
	Speculative bool // a speculative copy
	Worker      string
}

// taskCtxKey carries the running task's state in a handler's ctx.
type taskCtxKey struct{}

// running is the state of one task running on this worker.
type running struct {
	node         *Node
	info         TaskInfo
	key          string
	pool         *worksteal.Pool
	cancel       context.CancelCauseFunc
	delivered    int  // the delivery count: 1 has no checkpoint to load
	checkpointed bool // written by the handler's goroutine only

	// Trees (spawn.go): the serving worker, the delivered message and the
	// handler's ctx; tnode is the task's place in its unit's tree, made on
	// its first Spawn or ReduceValue.
	s      *serving
	msg    *nats.Msg
	ctx    context.Context
	treeMu sync.Mutex
	tnode  *treeNode
}

func runningFrom(ctx context.Context) *running {
	r, _ := ctx.Value(taskCtxKey{}).(*running)
	return r
}

// TaskOf returns the task that a handler's ctx belongs to, and false outside
// a handler.
func TaskOf(ctx context.Context) (TaskInfo, bool) {
	if r := runningFrom(ctx); r != nil {
		return r.info, true
	}
	return TaskInfo{}, false
}

// PoolFrom returns the worker's work-stealing pool, for a handler's
// fine-grained parallel work (worksteal.Run, then Join, For, Scope inside):
// coarse balance across machines comes from pulling tasks, fine balance
// inside one from stealing. Nil outside a handler.
//
// A handler runs on a goroutine of its own, not on a pool worker: it reads
// its files and waits on the network directly. Inside the pool, wrap a
// wait that is long next to the work around it (a network call, a read
// from a network file system or a cold disk) in w.Blocking, so that a
// spare worker keeps the cores busy meanwhile; reading a local file that
// the page cache holds is short work and needs no Blocking.
func PoolFrom(ctx context.Context) *worksteal.Pool {
	if r := runningFrom(ctx); r != nil {
		return r.pool
	}
	return nil
}

// SaveCheckpoint records data as the progress of the handler's task, in a
// JetStream key-value bucket. If the task is delivered again (its worker
// died, or it failed and is retried), LoadCheckpoint returns the latest
// data saved, so the handler can resume instead of starting over. The
// checkpoint is deleted once the task's result is recorded. Outside a
// handler it does nothing.
func SaveCheckpoint(ctx context.Context, data []byte) error {
	r := runningFrom(ctx)
	if r == nil {
		return nil
	}
	cctx, cancel := r.node.timeout(ctx)
	defer cancel()
	if r.node.viaRecorder() {
		// The recorder saves it, for the delivery this worker holds: a
		// worker's credential writes no checkpoint itself (see Record).
		if _, _, err := r.node.askRecorder(cctx, recCkpt, r.msg.Reply, nil, data); err != nil {
			return err
		}
	} else if _, err := r.node.checkpoints.Put(cctx, r.key, data); err != nil {
		return err
	}
	r.checkpointed = true
	return nil
}

// LoadCheckpoint returns the latest checkpoint saved for the handler's task
// by any of its earlier runs, or nil if there is none.
func LoadCheckpoint(ctx context.Context) ([]byte, error) {
	r := runningFrom(ctx)
	if r == nil || (r.delivered == 1 && !r.info.Speculative && !r.checkpointed) {
		return nil, nil // a first run has no past
	}
	cctx, cancel := r.node.timeout(ctx)
	defer cancel()
	v, ok, err := r.node.readHeld(cctx, r.msg, readCkpt, r.node.checkpoints, r.key)
	if err != nil || !ok {
		return nil, err
	}
	return v, nil
}
