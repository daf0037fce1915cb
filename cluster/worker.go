package cluster

import (
	"context"
	"encoding/json"
	"fmt"
	stdmaps "maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/worksteal/worksteal"
)

// Headers of a task message.
const (
	hdrJob        = "Ws-Job"
	hdrTask       = "Ws-Task"
	hdrIndex      = "Ws-Index"
	hdrAttempts   = "Ws-Max-Attempts"
	hdrRetryDelay = "Ws-Retry-Delay" // ns before the first retry
	hdrMaxLost    = "Ws-Max-Deliver" // lost deliveries before a task is poison
	hdrSpec       = "Ws-Speculative"
	hdrNotify     = "Ws-Notify" // announce the start at once
)

// workerTTL is how long a worker stays in the registry after its last
// refresh; it refreshes every workerTTL/3.
const workerTTL = 15 * time.Second

// Handle registers h under name for Serve. Names use letters, digits, '-'
// and '_'. Registering a name again replaces its handler; handlers added
// after Serve started are used from the next Serve.
func (n *Node) Handle(name string, h Handler) error {
	if !namePattern.MatchString(name) {
		return fmt.Errorf("%w: handler name %q: use letters, digits, '-' and '_'", ErrInvalidOption, name)
	}
	if h == nil {
		return fmt.Errorf("%w: handler %q is nil", ErrInvalidOption, name)
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	n.handlers[name] = h
	return nil
}

// handlerNames (clusterops.Handlers) returns the names of the registered handlers, sorted.
func (n *Node) handlerNames() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return slices.Sorted(stdmaps.Keys(n.handlers))
}

// counters (clusterops.StatsOf) returns the node's worker counters.
func (n *Node) counters() nodeStats {
	return nodeStats{Executed: n.executed.Load(), Recorded: n.recorded.Load(), Duplicates: n.duplicates.Load(), Redelivered: n.redelivered.Load(),
		Delivered: n.delivered.Load(), Spawned: n.spawned.Load(), Spilled: n.spilled.Load(), IdleSignals: n.idleSignals.Load(),
		Reclaimed: n.reclaimed.Load(), IdleAccepted: n.idleAccepted.Load(), IdleRefused: n.idleRefused.Load()}
}

// liveWorkers (clusterops.Workers) lists the live workers (those that refreshed their registration
// in the last 15 seconds and have not stopped).
func (n *Node) liveWorkers(ctx context.Context) ([]workerInfo, error) {
	ws, err := n.registry(ctx)
	return slices.DeleteFunc(ws, func(w workerInfo) bool { return w.Stopped }), err
}

// registry lists the worker registry's entries: the live workers, and
// those that stopped in the last 15 seconds.
func (n *Node) registry(ctx context.Context) ([]workerInfo, error) {
	if err := n.ensure(ctx); err != nil {
		return nil, err
	}
	ctx, cancel := n.timeout(ctx)
	defer cancel()
	var ws []workerInfo
	if n.opts.owner != "" {
		// A person's node lists no bucket's keys (no stream info): it
		// reads the registry from a watch.
		es, err := initialValues(ctx, n.workers, ">")
		if err != nil {
			return nil, err
		}
		for _, e := range es {
			var w workerInfo
			if json.Unmarshal(e.Value(), &w) == nil {
				ws = append(ws, w)
			}
		}
		slices.SortFunc(ws, func(a, b workerInfo) int { return strings.Compare(a.Name, b.Name) })
		return ws, nil
	}
	keys, err := bucketKeys(ctx, n.js, n.workers.Bucket())
	if err != nil {
		return nil, err
	}
	for _, k := range keys {
		e, err := n.workers.Get(ctx, k)
		if err != nil {
			continue // deregistered, or expired since listed
		}
		var w workerInfo
		if json.Unmarshal(e.Value(), &w) == nil {
			ws = append(ws, w)
		}
	}
	return ws, nil
}

// serving is one call of Serve.
type serving struct {
	n        *Node
	handlers map[string]Handler
	pool     *worksteal.Pool
	started  time.Time

	// settleCtx bounds the recording of results and failures: while the
	// worker serves, they are retried until the server takes them (a
	// restart, an election), so that finished work is not run again; once
	// it stops, for the default timeout more.
	settleCtx    context.Context
	settleCancel context.CancelFunc

	mu      sync.Mutex
	running map[string][]*running // by result key
	tasks   sync.WaitGroup        // running tasks
	stop    atomic.Bool           // set under mu once ctx is done
	busy    atomic.Int64
	meter   *meter // what the worker's status reports (status.go)

	// settling bounds the outcomes being written at once. A task's slot
	// is freed when its handler returns, not when its outcome is written
	// (one or two round trips to the server): the next task runs
	// meanwhile. So a worker holds at most slots tasks in handlers plus
	// settleWindow(slots) being settled, and a slow server slows the
	// pulls (a handler's slot waits for a place here) instead of piling
	// writes up.
	settling chan struct{}

	tree      *treeState   // spawned children kept here (spawn.go)
	spawnSrv  *spawnServer // spawn requests from tasks' processes (spawnenv.go)
	busyLocal atomic.Int64 // spawned children running here

	puller atomic.Pointer[puller] // set by pull, for failover's spare tokens
	// The task messages held here, by ack subject, for the watchers of
	// this worker (failover.go: hold, sayHeld).
	heldMu   sync.Mutex
	heldSet  map[string]*heldTask
	heldWake chan struct{}

	// Runners (goTask): idle ones wait on runnable; ended closes when
	// Serve returns.
	runnable chan func()
	ended    chan struct{}
}

// runnerIdle is how long a runner waits for its next task before it ends.
const runnerIdle = time.Second

// goTask runs f, a delivered task, on a runner: a goroutine that runs
// tasks one after another, so that a task does not start on a fresh
// goroutine whose stack grows again to execute's depth (copying stacks
// was ~7 % of a worker's CPU on trivial tasks). An idle runner takes f at
// once; if none waits, a new one starts. So the runners are at most the
// tasks running and settling at once (slots + settleWindow), and they end
// after runnerIdle without a task, or when Serve returns.
func (s *serving) goTask(f func()) {
	select {
	case s.runnable <- f:
	default:
		go s.runner(f)
	}
}

func (s *serving) runner(f func()) {
	t := time.NewTimer(runnerIdle)
	defer t.Stop()
	for {
		f()
		f = nil
		t.Reset(runnerIdle)
		select {
		case f = <-s.runnable:
		case <-t.C:
			return
		case <-s.ended:
			return
		}
	}
}

// Serve runs tasks for the registered handlers until ctx is done: it pulls
// tasks as slots free up (never more than it can start at once, so a slow
// worker does not hoard the queue), runs each handler on its own goroutine
// with heartbeats to the server, records each result once, and acks. On
// return the tasks still running have been cancelled and handed back to
// the queue.
//
// Serve returns nil when ctx is done, or an error if the stream could not
// be set up (ErrJetStream) or no handler is registered (an error saying so).
func (n *Node) Serve(ctx context.Context) error {
	n.mu.Lock()
	handlers := maps(n.handlers)
	n.mu.Unlock()
	if len(handlers) == 0 {
		return errNoHandlers
	}
	// A worker may start before its JetStream cluster has elected its
	// leaders, or before a submitter set the tier up: it waits, saying so.
	if err := n.ensureWaiting(ctx); err != nil || ctx.Err() != nil {
		return err
	}
	s := &serving{n: n, handlers: handlers, pool: n.opts.pool, running: map[string][]*running{}, started: time.Now(), meter: newMeter(),
		settling: make(chan struct{}, n.settleWindow()), heldSet: map[string]*heldTask{}, heldWake: make(chan struct{}, 1),
		runnable: make(chan func()), ended: make(chan struct{})}
	defer close(s.ended)
	s.settleCtx, s.settleCancel = context.WithCancel(context.WithoutCancel(ctx))
	defer s.settleCancel()
	if s.pool == nil {
		p, err := worksteal.New(worksteal.Config{})
		if err != nil {
			return err
		}
		defer p.Close()
		s.pool = p
	}
	cancelSub, err := n.nc.Subscribe(n.opts.stream+".cancel.>", s.onCancel)
	if err != nil {
		return err
	}
	defer cancelSub.Unsubscribe()
	s.tree = newTreeState(s)
	s.spawnSrv = newSpawnServer()
	defer s.spawnSrv.close()
	idleSub, err := n.nc.Subscribe(n.idleSubject(">"), s.tree.onIdle)
	if err != nil {
		return err
	}
	defer idleSub.Unsubscribe()
	idleDone := make(chan struct{})
	go func() { defer close(idleDone); s.tree.idleLoop(ctx) }()
	// Failover (failover.go): pings find this worker subscribed while it
	// lives; its held list says what to hand back if it is lost.
	aliveSub, err := n.nc.Subscribe(n.aliveSubject(n.opts.name, s.tree.id), func(*nats.Msg) {})
	if err != nil {
		return err
	}
	defer aliveSub.Unsubscribe()
	watchDone := make(chan struct{})
	go func() { defer close(watchDone); s.watch(ctx) }()
	heldDone := make(chan struct{})
	go func() { defer close(heldDone); s.sayHeld(ctx) }()

	// The first registration is made before Serve reports ready, so a
	// submitter that waits for the ready signal sees this worker's
	// handlers and labels (checkRoutes would refuse a job otherwise).
	s.registerOnce(ctx)
	if n.viaRecorder() {
		// The recorder hears this Serve's deliveries from now on: it
		// records, acks and hands back only what this worker holds.
		if _, _, err := n.askRecorder(ctx, recHello, "", nil, []byte(s.tree.id)); err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		// A recorder that starts after this hello (serve restarted) has no
		// tap on this Serve and refuses every record as not-held: say hello
		// again after each reconnect (tap is idempotent).
		go s.helloAfterReconnects(ctx)
	}
	s.sayHello() // failover.go: its watchers learn of it now
	if n.opts.onReady != nil {
		n.opts.onReady()
	}
	regDone := make(chan struct{})
	go func() { defer close(regDone); s.register(ctx) }()
	statusDone, tasksDone := make(chan struct{}), make(chan struct{})
	go func() { defer close(statusDone); s.publishStatus(ctx, tasksDone) }()

	// Stopping: no new requests; the running tasks are cancelled and
	// handed back, and so is whatever the open requests still deliver.
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		<-ctx.Done()
		time.AfterFunc(n.opts.defaultTimeout, s.settleCancel)
		s.mu.Lock()
		s.stop.Store(true)
		for _, rs := range s.running {
			for _, r := range rs {
				r.cancel(errStopping)
			}
		}
		s.mu.Unlock()
	}()
	err = s.pull(ctx)
	<-stopped
	s.tasks.Wait()
	close(tasksDone)
	<-regDone
	<-statusDone
	<-idleDone
	<-watchDone
	<-heldDone
	// The entry says the worker stopped, and expires as a lost worker's
	// does: its handlers stay known to Submit meanwhile.
	dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), n.opts.defaultTimeout)
	defer cancel()
	info := s.info()
	info.Stopped = true
	data, _ := json.Marshal(info)
	n.workers.Put(dctx, n.opts.name, data)
	return err
}

// recorderWindow is how many outcomes per slot a worker of a server with
// a recorder may have on their way at once. Its outcome takes two round
// trips where a direct write takes one (the worker's request, in a batch,
// then the recorder's create, see Record), so a window of one per slot
// would hold the next pulls back for the recorder's answers; with four,
// the records of a worker's tasks go in batches behind the runs (a batch
// is sent as soon as fewer than maxBatchesOut are out, see resultBatch).
// The tasks in the window have run: they hold no slot, only their
// delivery's lease, which the heartbeats keep until the record is in.
const recorderWindow = 4

// settleWindow is the capacity of serving.settling: one outcome per slot
// being written, or recorderWindow per slot through the recorder.
func (n *Node) settleWindow() int {
	if n.viaRecorder() {
		return recorderWindow * max(1, n.opts.slots)
	}
	return max(1, n.opts.slots)
}

// info is this worker's registry entry now.
func (s *serving) info() workerInfo {
	names := make([]string, 0, len(s.handlers))
	for h := range s.handlers {
		names = append(names, h)
	}
	slices.Sort(names)
	return workerInfo{Name: s.n.opts.name, Slots: s.n.opts.slots, Handlers: names, Running: int(s.busy.Load()), Started: s.started,
		Labels: s.n.opts.labels, Speed: s.n.opts.speed, Alive: s.tree.id}
}

func maps(m map[string]Handler) map[string]Handler {
	c := make(map[string]Handler, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}

// register keeps this worker in the registry until ctx is done.
func (s *serving) register(ctx context.Context) {
	t := time.NewTicker(workerTTL / 3)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		s.putRegistration(ctx)
	}
}

// registerOnce makes the first registry entry (register renews it).
func (s *serving) registerOnce(ctx context.Context) { s.putRegistration(ctx) }

func (s *serving) putRegistration(ctx context.Context) {
	data, _ := json.Marshal(s.info())
	pctx, cancel := s.n.timeout(ctx)
	defer cancel()
	if _, err := s.n.workers.Put(pctx, s.n.opts.name, data); err != nil && ctx.Err() == nil {
		s.n.opts.onError(fmt.Errorf("cluster: registering worker: %w", err))
	}
}

// pull runs the puller until ctx is done: each task it delivers runs on
// its own goroutine, holding its slot's token until settled. It pulls from
// the routes this worker can serve only (see route).
func (s *serving) pull(ctx context.Context) error {
	n := s.n
	p := newPuller(n.nc, n.streamName(), n.opts.slots, n.opts.fetchWait)
	if n.viaRecorder() {
		// Deliveries come on this worker's own subject, which the
		// recorder hears too (it was told by hello, in Serve).
		p.inbox = n.deliverySubject(n.opts.name, s.tree.id)
	}
	p.onErr = n.opts.onError
	p.admit = n.opts.admit
	s.puller.Store(p)
	p.refresh = func(ctx context.Context) ([]routeInfo, error) { return n.capableRoutes(ctx, s.handlers, n.opts.labels) }
	p.nak = func(m *nats.Msg) { n.delivered.Add(1); n.settleMsg(m, ackNak) }
	p.run = func(m *nats.Msg, done func()) {
		n.delivered.Add(1)
		if s.stop.Load() {
			n.settleMsg(m, ackNak) // handed back: this worker is stopping
			done()
			return
		}
		s.tasks.Add(1)
		s.goTask(func() {
			defer s.tasks.Done()
			var once sync.Once
			free := func() { once.Do(done) } // the slot: freed once, early by run
			defer free()
			s.execute(ctx, m, free)
		})
	}
	sub, err := n.nc.Subscribe(n.routesSubject(), func(*nats.Msg) { p.announce() })
	if err != nil {
		return err
	}
	defer sub.Unsubscribe()
	return p.loop(ctx)
}

func backoffDelay(failures int) time.Duration {
	return min(time.Duration(1<<min(failures, 5))*50*time.Millisecond, 2*time.Second)
}

// onCancel stops the local copies of a task whose result another copy
// recorded (a speculative race was decided).
func (s *serving) onCancel(m *nats.Msg) {
	prefix := s.n.opts.stream + ".cancel."
	key := strings.TrimPrefix(m.Subject, prefix)
	s.mu.Lock()
	defer s.mu.Unlock()
	// ws.cancel.<job>: the job was cancelled; ws.cancel.<job>.<task>: a
	// task's race was decided. A job's id may hold a dot ("<owner>.<id>",
	// WithOwner), so a key is both a job's (the running tasks under it)
	// and a task's (the running copies of it).
	for k, rs := range s.running {
		if strings.HasPrefix(k, key+".") {
			for _, r := range rs {
				r.cancel(errJobCancelled)
			}
		}
	}
	for _, r := range s.running[key] {
		r.cancel(errSuperseded)
	}
}

// helloAfterReconnects says hello to the recorder again once the
// connection has reconnected (a restarted serve's recorder knows no Serve
// that started before it), retrying each watchEvery until one is answered.
func (s *serving) helloAfterReconnects(ctx context.Context) {
	t := time.NewTicker(watchEvery)
	defer t.Stop()
	said := s.n.nc.Stats().Reconnects
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		now := s.n.nc.Stats().Reconnects
		if now == said || !s.n.nc.IsConnected() {
			continue
		}
		if _, _, err := s.n.askRecorder(ctx, recHello, "", nil, []byte(s.tree.id)); err == nil {
			said = now
		}
	}
}
