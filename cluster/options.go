package cluster

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"time"

	"github.com/worksteal/worksteal"
	"github.com/worksteal/worksteal/balance"
	"github.com/worksteal/worksteal/internal/clusterops"
)

// Option configures a Node; see New for the list.
type Option func(*options) error

// options are a Node's resolved settings.
type options struct {
	stream         string
	ackWait        time.Duration
	ackWaitSet     bool // WithAckWait was given: create the consumer with it
	heartbeat      time.Duration
	heartbeatSet   bool
	maxLost        int
	replicas       int
	memory         bool
	slots          int
	name           string
	pool           *worksteal.Pool
	backoff        balance.Backoff
	defaultTimeout time.Duration
	fetchWait      time.Duration
	onError        func(error)
	onReady        func()
	role           Role                      // "": no role, may do everything
	owner          string                    // WithOwner: the person the node acts for
	limits         *clusterops.StorageLimits // withLimits
	labels         Labels
	speed          float64
	admit          func() bool
}

func defaultOptions() options {
	host, _ := os.Hostname()
	if host == "" {
		host = "worker"
	}
	return options{
		stream:         "ws",
		ackWait:        30 * time.Second,
		maxLost:        10,
		replicas:       1,
		slots:          runtime.GOMAXPROCS(0),
		name:           host + "-" + strconv.Itoa(os.Getpid()),
		backoff:        balance.Backoff{Initial: 500 * time.Millisecond, Max: 30 * time.Second, Multiplier: 2, Jitter: 0.5},
		defaultTimeout: 5 * time.Second,
		fetchWait:      2 * time.Second,
		onError:        func(error) {},
		speed:          1,
	}
}

// WithStream sets the name that prefixes everything the tier keeps in
// JetStream: the task stream "<name>_tasks", the buckets "<name>_results",
// "<name>_jobs", "<name>_checkpoints" and "<name>_workers", and the subjects
// "<name>.>". Nodes that work together use the same name; default "ws".
func WithStream(name string) Option {
	return func(o *options) error {
		if !namePattern.MatchString(name) {
			return fmt.Errorf("%w: stream name %q: use letters, digits, '-' and '_'", ErrInvalidOption, name)
		}
		o.stream = name
		return nil
	}
}

// WithAckWait sets the ack deadline of the deployment: a task whose
// worker sends neither a result nor a heartbeat for this long is delivered
// again, to any worker (default 30s). It is a property of the stream's
// consumer, set by the node that creates it; a node that finds the
// consumer already made adopts its ack wait (and derives its heartbeat
// from it) rather than changing it for everyone, and reports a different
// WithAckWait through the error handler.
func WithAckWait(d time.Duration) Option {
	return func(o *options) error {
		if d < 100*time.Millisecond {
			return fmt.Errorf("%w: ack wait %v: must be at least 100ms", ErrInvalidOption, d)
		}
		o.ackWait, o.ackWaitSet = d, true
		return nil
	}
}

// WithHeartbeat sets how often a worker tells the server that a task is
// still running (an in-progress ack); default a third of the deployment's
// ack wait. It must be shorter than the ack wait.
func WithHeartbeat(d time.Duration) Option {
	return func(o *options) error {
		if d <= 0 {
			return fmt.Errorf("%w: heartbeat %v: must be positive", ErrInvalidOption, d)
		}
		o.heartbeat, o.heartbeatSet = d, true
		return nil
	}
}

// WithMaxDeliver sets how many deliveries of a task may end without an
// outcome from its handler before the task is recorded as failed with
// FailurePoison, a poison task (default 10). A delivery ends without an outcome when its
// worker dies, stops, loses the server, or the server restarts: none of
// these is an attempt of the task (Job.MaxAttempts counts the handler's
// failures only), but a task that kills every worker it reaches must end
// some time. Keep it generous: each lost delivery costs an ack wait. The
// submitter's setting travels with its tasks; a worker's applies to tasks
// that carry none.
func WithMaxDeliver(n int) Option {
	return func(o *options) error {
		if n < 1 {
			return fmt.Errorf("%w: max deliver %d: must be 1 or more", ErrInvalidOption, n)
		}
		o.maxLost = n
		return nil
	}
}

// WithReplicas sets the number of servers that keep a copy of the stream
// and buckets (default 1; 3 survives the loss of one server of a JetStream
// cluster).
func WithReplicas(n int) Option {
	return func(o *options) error {
		if n < 1 || n > 5 {
			return fmt.Errorf("%w: replicas %d: must be 1 to 5", ErrInvalidOption, n)
		}
		o.replicas = n
		return nil
	}
}

// WithMemoryStorage keeps the stream and buckets in the servers' memory
// instead of on disk: faster, but lost when the servers restart.
func WithMemoryStorage() Option {
	return func(o *options) error {
		o.memory = true
		return nil
	}
}

// WithSlots sets how many tasks a worker runs at once, and so how many it
// fetches at most (default GOMAXPROCS). A faster machine is given more
// slots and pulls more work.
func WithSlots(n int) Option {
	return func(o *options) error {
		if n < 1 {
			return fmt.Errorf("%w: slots %d: must be 1 or more", ErrInvalidOption, n)
		}
		o.slots = n
		return nil
	}
}

// WithAdmission makes a worker start new tasks only while admit returns
// true — for example while the machine's load and free memory allow
// (worksteal worker --load, --memfree). It is asked before each pull
// request; while it says no, the free slots wait and ask again every
// 250 ms, so the tasks go to other workers. Running tasks are not affected.
func WithAdmission(admit func() bool) Option {
	return func(o *options) error {
		o.admit = admit
		return nil
	}
}

// WithName names the worker in results and in the worker registry
// (default host-pid).
func WithName(name string) Option {
	return func(o *options) error {
		if !namePattern.MatchString(name) {
			return fmt.Errorf("%w: worker name %q: use letters, digits, '-' and '_'", ErrInvalidOption, name)
		}
		o.name = name
		return nil
	}
}

// WithPool gives the handlers this work-stealing pool (see PoolFrom). By
// default Serve makes one with GOMAXPROCS workers and closes it on return.
func WithPool(p *worksteal.Pool) Option {
	return func(o *options) error {
		if p == nil {
			return fmt.Errorf("%w: nil pool", ErrInvalidOption)
		}
		o.pool = p
		return nil
	}
}

// WithBackoff sets the wait before a task whose handler failed is
// delivered again, for jobs that set no RetryDelay: Backoff.Wait(k) after
// the k-th failure (default 0.5s doubling to at most 30s, with jitter).
func WithBackoff(b balance.Backoff) Option {
	return func(o *options) error {
		o.backoff = b
		return nil
	}
}

// WithDefaultTimeout sets the timeout of calls whose ctx has no deadline
// (default 5s).
func WithDefaultTimeout(d time.Duration) Option {
	return func(o *options) error {
		if d <= 0 {
			return fmt.Errorf("%w: default timeout %v: must be positive", ErrInvalidOption, d)
		}
		o.defaultTimeout = d
		return nil
	}
}

// WithFetchWait sets how long a worker's request for tasks waits on an
// empty queue before it is renewed (default 2s). A stopping worker waits
// for its outstanding requests to end (handing back what they deliver), so
// this also bounds how long Serve takes to return.
func WithFetchWait(d time.Duration) Option {
	return func(o *options) error {
		if d < 10*time.Millisecond {
			return fmt.Errorf("%w: fetch wait %v: must be at least 10ms", ErrInvalidOption, d)
		}
		o.fetchWait = d
		return nil
	}
}

// WithErrorHandler receives the errors of background work that has no
// caller to return them to (a failed ack, a lost heartbeat). Default: none.
func WithErrorHandler(f func(error)) Option {
	return func(o *options) error {
		if f == nil {
			return fmt.Errorf("%w: nil error handler", ErrInvalidOption)
		}
		o.onError = f
		return nil
	}
}

// withReady (clusterops.WithReady) calls f once Serve has put this worker in the registry and is
// about to pull tasks: from then on a submitter sees its handlers and
// labels (a job that requires them is accepted). Tools print "serving"
// from it, and health checks wait for it. Default: none.
func withReady(f func()) Option {
	return func(o *options) error {
		if f == nil {
			return fmt.Errorf("%w: nil ready func", ErrInvalidOption)
		}
		o.onReady = f
		return nil
	}
}
