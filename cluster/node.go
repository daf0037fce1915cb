package cluster

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Node is one process's handle on the cluster tier: it serves handlers as a
// worker (Handle, Serve), submits jobs and follows them (Submit, Open), or
// both. It is safe for concurrent use.
type Node struct {
	nc   *nats.Conn
	js   jetstream.JetStream
	opts options

	mu       sync.Mutex
	handlers map[string]Handler
	ready    bool // the stream, consumer and buckets exist

	stream      jetstream.Stream
	consumer    jetstream.Consumer
	results     jetstream.KeyValue
	jobs        jetstream.KeyValue
	checkpoints jetstream.KeyValue
	workers     jetstream.KeyValue

	// Worker counters (Stats).
	executed, recorded, duplicates, redelivered atomic.Int64
}

// New returns a Node that works through the connection nc. It does not
// touch the network: the stream, consumer and buckets are created (or
// updated) by the first call that needs them.
//
// Available options (defaults in brackets): WithStream ["ws"], WithAckWait
// [30s], WithHeartbeat [ack wait / 3], WithMaxDeliver [5], WithReplicas [1],
// WithMemoryStorage [file], WithSlots [GOMAXPROCS], WithName [host-pid],
// WithPool [a pool of GOMAXPROCS workers], WithBackoff [0.5s doubling to
// 30s], WithDefaultTimeout [5s], WithFetchWait [2s], WithErrorHandler
// [none]. An invalid option returns an error wrapping ErrInvalidOption.
//
// Nodes that share a stream name should share the options that shape the
// stream and consumer (ack wait, max deliver, replicas, storage): the last
// node to set them up wins.
func New(nc *nats.Conn, opts ...Option) (*Node, error) {
	if nc == nil {
		return nil, fmt.Errorf("%w: nil connection", ErrInvalidOption)
	}
	o := defaultOptions()
	for _, opt := range opts {
		if err := opt(&o); err != nil {
			return nil, err
		}
	}
	if o.heartbeat == 0 {
		o.heartbeat = o.ackWait / 3
	}
	if o.heartbeat >= o.ackWait {
		return nil, fmt.Errorf("%w: heartbeat %v must be shorter than the ack wait %v", ErrInvalidOption, o.heartbeat, o.ackWait)
	}
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, err
	}
	return &Node{nc: nc, js: js, opts: o, handlers: map[string]Handler{}}, nil
}

// Name returns the node's worker name.
func (n *Node) Name() string { return n.opts.name }

// timeout applies the default timeout to a ctx without a deadline.
func (n *Node) timeout(ctx context.Context) (context.Context, context.CancelFunc) {
	if _, ok := ctx.Deadline(); ok {
		return ctx, func() {}
	}
	return context.WithTimeout(ctx, n.opts.defaultTimeout)
}

// Names of what the tier keeps in JetStream.
func (n *Node) streamName() string             { return n.opts.stream + "_tasks" }
func (n *Node) consumerName() string           { return n.opts.stream + "_workers" }
func (n *Node) taskSubject(h string) string    { return n.opts.stream + ".task." + h }
func (n *Node) startedSubject(j string) string { return n.opts.stream + ".started." + j }
func (n *Node) cancelSubject(j, t string) string {
	return n.opts.stream + ".cancel." + j + "." + t
}
func resultKey(job, task string) string { return job + "." + task }

// backoffSteps are the ack waits of the successive deliveries of a task
// whose worker fell silent, in multiples of the ack wait.
var backoffSteps = []time.Duration{1, 2, 4, 8}

// ensure creates or updates the stream, its consumer and the buckets, once.
// A JetStream cluster that is still electing its leaders answers "temporarily
// unavailable" for a while: that is retried, for up to 30s.
func (n *Node) ensure(ctx context.Context) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.ready {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, max(n.opts.defaultTimeout, 30*time.Second))
	defer cancel()
	for tries := 1; ; tries++ {
		err := n.setup(ctx)
		if err == nil || !transient(err) || !sleepCtx(ctx, backoffDelay(tries)) {
			return err
		}
	}
}

// transient says err may go away by itself: a cluster without a leader yet,
// a request that timed out.
func transient(err error) bool {
	var jsErr jetstream.JetStreamError
	if errors.As(err, &jsErr) && jsErr.APIError() != nil && jsErr.APIError().Code == 503 {
		return true
	}
	return errors.Is(err, context.DeadlineExceeded) || errors.Is(err, nats.ErrTimeout)
}

// setup creates or updates the stream, its consumer and the buckets.
func (n *Node) setup(ctx context.Context) error {
	storage := jetstream.FileStorage
	if n.opts.memory {
		storage = jetstream.MemoryStorage
	}
	st, err := n.js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{
		Name:        n.streamName(),
		Description: "worksteal tasks waiting for a worker",
		Subjects:    []string{n.opts.stream + ".task.>"},
		Retention:   jetstream.WorkQueuePolicy,
		Storage:     storage,
		Replicas:    n.opts.replicas,
		Duplicates:  2 * time.Minute,
	})
	if err != nil {
		return jsError("stream "+n.streamName(), err)
	}
	// Redelivery after silence backs off: 1, 2, 4, 8 × the ack wait.
	var backoff []time.Duration
	for i := 0; i < len(backoffSteps) && i < n.opts.maxDeliver; i++ {
		backoff = append(backoff, backoffSteps[i]*n.opts.ackWait)
	}
	cons, err := n.js.CreateOrUpdateConsumer(ctx, n.streamName(), jetstream.ConsumerConfig{
		Durable:       n.consumerName(),
		Description:   "worksteal workers pull tasks here",
		AckPolicy:     jetstream.AckExplicitPolicy,
		AckWait:       n.opts.ackWait,
		BackOff:       backoff,
		MaxDeliver:    n.opts.maxDeliver,
		MaxAckPending: -1,
		MaxWaiting:    4096,
		Replicas:      n.opts.replicas,
	})
	if err != nil {
		return jsError("consumer "+n.consumerName(), err)
	}
	bucket := func(name, desc string, ttl time.Duration) (jetstream.KeyValue, error) {
		kv, err := n.js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{
			Bucket: n.opts.stream + "_" + name, Description: desc, History: 1, TTL: ttl,
			Storage: storage, Replicas: n.opts.replicas,
		})
		if err != nil {
			return nil, jsError("bucket "+n.opts.stream+"_"+name, err)
		}
		return kv, nil
	}
	if n.results, err = bucket("results", "worksteal task results, one per task", 0); err != nil {
		return err
	}
	if n.jobs, err = bucket("jobs", "worksteal job records", 0); err != nil {
		return err
	}
	if n.checkpoints, err = bucket("checkpoints", "worksteal task checkpoints", 0); err != nil {
		return err
	}
	if n.workers, err = bucket("workers", "worksteal live workers", workerTTL); err != nil {
		return err
	}
	n.stream, n.consumer, n.ready = st, cons, true
	return nil
}

func jsError(what string, err error) error {
	if errors.Is(err, jetstream.ErrJetStreamNotEnabled) || errors.Is(err, jetstream.ErrJetStreamNotEnabledForAccount) || errors.Is(err, nats.ErrNoResponders) {
		return fmt.Errorf("%w: %s: the server has no JetStream (start it with -js, or use worksteal serve)", ErrJetStream, what)
	}
	return fmt.Errorf("%w: %s: %w", ErrJetStream, what, err)
}

func isNotFound(err error) bool {
	return errors.Is(err, jetstream.ErrKeyNotFound) || errors.Is(err, jetstream.ErrKeyDeleted)
}
