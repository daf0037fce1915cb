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
	failuresKV  jetstream.KeyValue

	// The deployment's ack wait (the consumer's, adopted if it existed)
	// and the heartbeat derived from it; written by setup under mu before
	// ready, read after ensure.
	ackWait, heartbeat time.Duration

	// Worker counters (Stats).
	executed, recorded, duplicates, redelivered, delivered atomic.Int64
	// Tree counters (spawn.go): children spawned, handed over, idle signals sent.
	spawned, spilled, idleSignals atomic.Int64
	idleAccepted, idleRefused     atomic.Int64
	reclaimed                     atomic.Int64

	reduces map[string]Combine // Reduce's, under mu

	bindOnly bool             // Record: never creates or changes the tier, whatever the role
	rec      *recorder        // the recorder Record runs, under mu
	outside  map[string]int64 // CountRefusal's counts before Record started, under mu

	resBatch resultBatch // results waiting for the recorder (recordViaRecorder)
}

// New returns a Node that works through the connection nc. It does not
// touch the network: the stream, consumer and buckets are created (or
// updated) by the first call that needs them.
//
// Available options (defaults in brackets): WithStream ["ws"], WithAckWait
// [30s], WithHeartbeat [ack wait / 3], WithMaxDeliver [10], WithReplicas [1],
// WithMemoryStorage [file], WithSlots [GOMAXPROCS], WithName [host-pid],
// WithPool [a pool of GOMAXPROCS workers], WithBackoff [0.5s doubling to
// 30s], WithDefaultTimeout [5s], WithFetchWait [2s], WithErrorHandler
// [none]. An invalid option returns an error wrapping ErrInvalidOption.
//
// The ack wait is the deployment's: the first node to set up the stream's
// consumer sets it, and the others adopt it (see WithAckWait). Nodes that
// share a stream name should share the replicas and storage options.
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
	if o.heartbeatSet && o.ackWaitSet && o.heartbeat >= o.ackWait {
		return nil, fmt.Errorf("%w: heartbeat %v must be shorter than the ack wait %v", ErrInvalidOption, o.heartbeat, o.ackWait)
	}
	// Every request has a deadline: an asynchronous publish (a task)
	// that the server does not acknowledge within the default timeout
	// fails instead of being waited for for ever.
	js, err := jetstream.New(nc, jetstream.WithPublishAsyncTimeout(o.defaultTimeout))
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
func (n *Node) startedSubject(j string) string { return n.opts.stream + ".started." + j }
func (n *Node) cancelSubject(j, t string) string {
	return n.opts.stream + ".cancel." + j + "." + t
}
func resultKey(job, task string) string { return job + "." + task }

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
	f := n.setup
	if n.opts.role.binds() || n.bindOnly {
		f = n.bind // may not create or change them: see WithRole
	}
	if n.opts.owner != "" {
		// A person's key may not set the tier up either: worksteal serve's
		// recorder does, as it starts; wait for it (within ctx).
		f = func(ctx context.Context) error {
			err := n.bind(ctx)
			if errors.Is(err, ErrNotSetUp) {
				sleepCtx(ctx, 100*time.Millisecond)
				return fmt.Errorf("%w (%w)", err, nats.ErrTimeout)
			}
			return err
		}
	}
	return retryTransient(ctx, n.opts.defaultTimeout, f)
}

// retryTransient runs f until it succeeds, fails for good, or ctx is done,
// each try with its own timeout: a JetStream API request that a cluster
// without a leader leaves unanswered must not use up the whole budget.
func retryTransient(ctx context.Context, each time.Duration, f func(ctx context.Context) error) error {
	for tries := 1; ; tries++ {
		tctx, cancel := context.WithTimeout(ctx, each)
		err := f(tctx)
		cancel()
		if err == nil || !(transient(err) || errors.Is(err, nats.ErrNoResponders)) || !sleepCtx(ctx, backoffDelay(tries)) {
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
	return errors.Is(err, context.DeadlineExceeded) || errors.Is(err, nats.ErrTimeout) || errors.Is(err, jetstream.ErrConsumerExists)
}

// setup finds or creates the stream, its consumer and the buckets. What
// exists with at least the replicas asked for is used as it is: in a
// JetStream cluster every update is a proposal to its meta leader, and
// many nodes starting at once must not queue them. What is missing is
// created, never created-or-updated: nodes that start together all find the
// stream missing, and jetstream's CreateOrUpdate tries an update first,
// which the server applies to the stream another node has just made while
// a third adds its consumer to it. nats-server 2.15.2 reads the stream's
// config unlocked while adding a consumer, so that update was a data race
// in the server (reported by the race detector in CI, stop 44); creating a
// stream or bucket that exists with the same config changes nothing. An
// update is sent only to a stream that needs one (fewer replicas, no direct
// gets, other limits). What a failed try got is kept for the next try.
func (n *Node) setup(ctx context.Context) error {
	storage := jetstream.FileStorage
	if n.opts.memory {
		storage = jetstream.MemoryStorage
	}
	if n.stream == nil {
		cfg := jetstream.StreamConfig{
			Name:        n.streamName(),
			Description: "worksteal tasks waiting for a worker",
			Subjects:    []string{n.opts.stream + ".task.>"},
			Retention:   jetstream.WorkQueuePolicy,
			Storage:     storage,
			Replicas:    n.opts.replicas,
			Duplicates:  2 * time.Minute,
			// Direct gets: the recorder reads the task a worker acts for
			// by its sequence, at the cost of a message read (no worker
			// may: see RolePermissions).
			AllowDirect: true,
		}
		n.limitStream(&cfg)
		st, err := n.js.Stream(ctx, cfg.Name)
		switch {
		case errors.Is(err, jetstream.ErrStreamNotFound):
			st, err = n.js.CreateStream(ctx, cfg)
			if errors.Is(err, jetstream.ErrStreamNameAlreadyInUse) {
				st, err = n.js.Stream(ctx, cfg.Name) // made meanwhile by another node (serve's recorder, with its limits): use it
			}
		case err == nil && (st.CachedInfo().Config.Replicas < cfg.Replicas || !st.CachedInfo().Config.AllowDirect):
			st, err = n.js.UpdateStream(ctx, cfg)
		case err == nil:
			st, err = n.applyLimits(ctx, st, false) // serve's limits on a tier set up before
		}
		if err != nil {
			return jsError("stream "+n.streamName(), err)
		}
		n.stream = st
	}
	if n.consumer == nil {
		cons, err := n.consumerSetup(ctx)
		if err != nil {
			return err
		}
		n.consumer = cons
	}
	bucket := func(kv *jetstream.KeyValue, name, desc string, ttl time.Duration) error {
		if *kv != nil {
			return nil
		}
		cfg := jetstream.KeyValueConfig{Bucket: n.opts.stream + "_" + name, Description: desc, History: 1, TTL: ttl,
			Storage: storage, Replicas: n.opts.replicas}
		if name == "results" && n.opts.limits != nil {
			cfg.MaxBytes = or(n.opts.limits.ResultBytes)
		}
		st, err := n.js.Stream(ctx, "KV_"+cfg.Bucket)
		if err == nil && st.CachedInfo().Config.Replicas >= cfg.Replicas {
			if name == "results" {
				_, err = n.applyLimits(ctx, st, true)
			}
			if err == nil {
				*kv, err = n.js.KeyValue(ctx, cfg.Bucket)
			}
		} else if errors.Is(err, jetstream.ErrStreamNotFound) {
			*kv, err = n.js.CreateKeyValue(ctx, cfg)
			if errors.Is(err, jetstream.ErrStreamNameAlreadyInUse) {
				*kv, err = n.js.KeyValue(ctx, cfg.Bucket) // made meanwhile by another node: use it
			}
		} else if err == nil {
			*kv, err = n.js.UpdateKeyValue(ctx, cfg) // fewer replicas than asked for
		}
		if err != nil {
			*kv = nil
			return jsError("bucket "+cfg.Bucket, err)
		}
		return nil
	}
	if err := bucket(&n.results, "results", "worksteal task results, one per task", 0); err != nil {
		return err
	}
	if err := bucket(&n.jobs, "jobs", "worksteal job records", 0); err != nil {
		return err
	}
	if err := bucket(&n.checkpoints, "checkpoints", "worksteal task checkpoints", 0); err != nil {
		return err
	}
	if err := bucket(&n.workers, "workers", "worksteal live workers", workerTTL); err != nil {
		return err
	}
	if err := bucket(&n.failuresKV, "failures", "worksteal handler failures per task", 0); err != nil {
		return err
	}
	n.ready = true
	return nil
}

// consumerSetup creates the deployment's consumer with this node's ack wait,
// or adopts the ack wait of the one that exists: the ack wait belongs to
// the deployment, and a client that connects later must not change it
// under the tasks that are running. Redelivery is the state machine's
// (see the package doc): no server-side delivery limit and no server-side
// backoff, which would count and delay a lost worker's tasks.
func (n *Node) consumerSetup(ctx context.Context) (jetstream.Consumer, error) {
	cfg := jetstream.ConsumerConfig{
		Durable:     n.consumerName(),
		Description: "worksteal deployment settings (ack wait); tasks wait in the route consumers",
		// Tasks are pulled from the routes' consumers (route.go), which a
		// work-queue stream allows only on subjects no other consumer
		// filters: this one filters a subject no task has (a route's last
		// token is never "_"), and only keeps the ack wait.
		FilterSubject: n.opts.stream + ".task._._._",
		AckPolicy:     jetstream.AckExplicitPolicy,
		AckWait:       n.opts.ackWait,
		MaxDeliver:    -1,
		MaxAckPending: -1,
		MaxWaiting:    4096,
		// Replicas 0: as many as the stream, which a node may scale.
	}
	cons, err := n.js.Consumer(ctx, n.streamName(), n.consumerName())
	switch {
	case err == nil:
		have := cons.CachedInfo().Config
		if have.AckWait != n.opts.ackWait && n.opts.ackWaitSet {
			n.opts.onError(fmt.Errorf("cluster: ack wait %v not applied: stream %s's deployment uses %v (set when its consumer was made; delete the consumer %s to change it)",
				n.opts.ackWait, n.opts.stream, have.AckWait, n.consumerName()))
		}
		cfg.AckWait = have.AckWait
		if have.MaxDeliver != -1 || len(have.BackOff) > 0 || have.Replicas != 0 || have.FilterSubject != cfg.FilterSubject {
			// Made by an older version: same ack wait, today's redelivery.
			cons, err = n.js.UpdateConsumer(ctx, n.streamName(), cfg)
		}
	case errors.Is(err, jetstream.ErrConsumerNotFound):
		cons, err = n.js.CreateConsumer(ctx, n.streamName(), cfg)
		if errors.Is(err, jetstream.ErrConsumerExists) {
			return nil, jetstream.ErrConsumerExists // raced another node: setup again adopts
		}
	}
	if err != nil {
		return nil, jsError("consumer "+n.consumerName(), err)
	}
	n.adoptAckWait(cons)
	return cons, nil
}

// adoptAckWait takes the deployment's ack wait from its consumer, and the
// heartbeat that goes with it.
func (n *Node) adoptAckWait(cons jetstream.Consumer) {
	n.ackWait = cons.CachedInfo().Config.AckWait
	n.heartbeat = n.opts.heartbeat
	if !n.opts.heartbeatSet || n.heartbeat >= n.ackWait {
		n.heartbeat = n.ackWait / 3
	}
}

func jsError(what string, err error) error {
	if errors.Is(err, jetstream.ErrJetStreamNotEnabled) || errors.Is(err, jetstream.ErrJetStreamNotEnabledForAccount) || errors.Is(err, nats.ErrNoResponders) {
		return fmt.Errorf("%w: %s: the server has no JetStream (start it with -js, or use worksteal serve)", ErrJetStream, what)
	}
	return fmt.Errorf("%w: %s: %w", ErrJetStream, what, err)
}
