package cluster

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Failover: a lost worker's tasks move on in seconds, not the ack wait.
//
// Every serving worker says every watchEvery (250 ms), and whenever a task
// is delivered to it or a local child starts, which task messages it
// holds (and how many local children each one's tree has started)
// (their ack subjects, one a line) on <stream>.held.<name>.<id> (name: its
// worker name as one token; id: its Serve's own, also in its registry
// entry, WorkerInfo.Alive), and subscribes to <stream>.alive.<name>.<id>,
// where it answers nothing. A worker with a key of its own may publish
// those lists, and hear those pings, only under its own name, so nobody
// speaks or answers for another. Each worker watches the next watchPeers
// live workers after it in the ring of ids, as it knows them from their
// hellos on <stream>.hello.<name> (body: the id; at most servesPerName ids
// a name) (so every worker has
// watchers, at watchPeers subscriptions and a few pings a second per
// worker, whatever the size of the cluster; the hellos cost one message
// per worker every 5 s to each worker):
//
//   - a worker killed (kill -9, a crash, its network gone) has lost its
//     connection, and the server knows at once: its alive subject has no
//     subscriber, and the watcher's next ping there (a request, every watchEvery) is
//     answered "no responders" by the server, within watchEvery of the death (while
//     the worker lives the ping just expires: no worker answers, so no
//     permission to reply to another's inbox is needed);
//   - a worker frozen (SIGSTOP, a stalled VM) keeps its connection but
//     says nothing: after aliveMisses heartbeats of aliveEvery (2 s) of
//     silence, it is taken for lost (the silence is looked at every
//     watchEvery, before the ping), so its tasks run elsewhere within 3
//     heartbeats of the freeze. Its held lists go out every watchEvery, so
//     2 s of silence is 8 lists missed: a worker starved that long on a
//     loaded machine is taken for lost too, and its tasks run twice; the
//     outcome stays once (below). The silence is measured against the
//     watcher's own held lists heard back through the server, so a
//     watcher that is frozen or starved itself takes no peer for lost.
//
// A watcher that finds its peer lost claims it (a create of
// lost.<id>.<number of the last held list> in the checkpoints bucket: one
// watcher acts, however many saw the same list) and naks
// every message of the peer's last held list: the server redelivers them at
// once, as it would after the ack wait. The nak of a message the peer has
// settled since its list finds nothing pending and does nothing; one the
// peer handed back itself (a retry) that was delivered again meanwhile is
// delivered once more (the server does not check which delivery a nak
// names): a copy whose result is discarded, not a second outcome.
//
// A task so redelivered does not wait for a slot behind long subtrees:
// the watcher asks for it with spare tokens, beyond its slots (see
// puller.spare), which go away as tasks end. Spare slots rather than
// preempting: a running handler cannot be paused, and a queue of local
// children is not where a redelivered task waits (it waits in the stream,
// for a pull); the spare slots last one task each, so a worker runs at most
// the lost worker's held tasks more than its slots, for as long as those run.
//
// What it does not see: tasks delivered to a frozen worker after it froze
// (into its connection: its open pull requests last the fetch wait, 2 s)
// are in no held list; they wait for it to wake up, or for the ack wait.
// Its requests have expired by the time it is found lost, so the tasks
// handed back do not go to it again.
//
// Nor does it see a worker frozen before any watcher heard its held list
// (a watcher that moves to it from a peer found gone, or just started):
// that one is left to the ack wait.
//
// What it costs in exactness: none of the outcomes. A frozen worker that
// wakes up runs its copy to the end; its result finds the task's key
// created and is discarded (Result.Discarded counts it), as after an ack
// wait. A worker partitioned from the server but alive, likewise.
const (
	aliveEvery  = time.Second
	aliveMisses = 2
	watchPeers  = 2
	// watchEvery is how often a watcher pings and looks at the silences.
	watchEvery = aliveEvery / 4
	// peersEvery is how often a worker says hello and looks again at the
	// peers it watches.
	peersEvery = 5 * time.Second
)

// heldEvery is the shortest time between two held lists: a delivery is
// said at most that long after it arrives (a list goes out at once when a
// delivery arrives, unless one went out in the last heldEvery), and every
// aliveEvery in any case (the heartbeat).
const heldEvery = 20 * time.Millisecond

// heldTask is a task message held here: its result key, and its tree's
// unit once it spawns (whose started count goes with the held list).
type heldTask struct {
	msg  *nats.Msg // its key is read from its headers when a list is made
	unit atomic.Pointer[treeUnit]
}

// hold lists a delivered task message as held here until the returned
// func is called, and has the held list said soon (sayHeld).
func (s *serving) hold(m *nats.Msg) (release func()) {
	if m.Reply == "" {
		return func() {}
	}
	s.heldMu.Lock()
	s.heldSet[m.Reply] = &heldTask{msg: m}
	s.heldMu.Unlock()
	s.heldChanged()
	return func() {
		s.heldMu.Lock()
		delete(s.heldSet, m.Reply)
		s.heldMu.Unlock()
	}
}

// heldChanged has the held list said soon.
func (s *serving) heldChanged() {
	select {
	case s.heldWake <- struct{}{}:
	default:
	}
}

// heldUnit notes that the held message m's task spawned: unit u.
func (s *serving) heldUnit(m *nats.Msg, u *treeUnit) {
	if m == nil {
		return
	}
	s.heldMu.Lock()
	defer s.heldMu.Unlock()
	if h := s.heldSet[m.Reply]; h != nil {
		h.unit.Store(u)
	}
}

// sayHeld publishes the held list when a delivery arrives (at most every
// heldEvery) and every watchEvery (a watcher that just subscribed has it
// soon), until ctx is done.
func (s *serving) sayHeld(ctx context.Context) {
	t := time.NewTicker(watchEvery)
	defer t.Stop()
	subj := s.n.heldSubject(s.n.opts.name, s.tree.id)
	for seq := 1; ; seq++ {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-s.heldWake:
		}
		s.n.nc.Publish(subj, append(strconv.AppendInt(nil, int64(seq), 10), append([]byte{'\n'}, s.held()...)...))
		if !sleepCtx(ctx, heldEvery) { // deliveries meanwhile go in the next list
			return
		}
	}
}

// held lists the task messages this worker holds, one a line: "ack
// subject<TAB>result key<TAB>local children started".
func (s *serving) held() []byte {
	s.heldMu.Lock()
	defer s.heldMu.Unlock()
	var b []byte
	for reply, h := range s.heldSet {
		started := int64(0)
		if u := h.unit.Load(); u != nil {
			started = u.started.Load()
		}
		key := resultKey(h.msg.Header.Get(hdrJob), h.msg.Header.Get(hdrTask))
		b = append(append(append(append(b, reply...), '\t'), key...), '\t')
		b = append(strconv.AppendInt(b, started, 10), '\n')
	}
	return b
}

// peerState is what a watcher knows of one watched peer. Guarded by the
// watch's mu.
type peerState struct {
	id, name string
	sub      *nats.Subscription
	seq      string    // its last held list's number
	held     []string  // its last held list's lines (see held)
	heard    time.Time // when that came
	lost     bool
}

// watch follows the peers this worker watches until ctx is done.
func (s *serving) watch(ctx context.Context) {
	var mu sync.Mutex
	peers := map[string]*peerState{}
	// gone: peers found without a connection (by name and id). An id is
	// one Serve's, so it never comes back; its hellos may be remembered for a while (15
	// s), and the watcher watches the next live peer instead.
	gone := map[string]bool{}
	defer func() {
		mu.Lock()
		defer mu.Unlock()
		for _, p := range peers {
			p.sub.Unsubscribe()
		}
	}()
	// Workers know each other from their hellos on <stream>.hello.<name>
	// (body: the Serve's id; only that worker's key may publish under its
	// name): one at the start (answered by every worker that had not
	// heard of it, so the newcomer learns of them), then every
	// peersEvery; a worker not heard for workerTTL is forgotten. (Workers
	// may not read the registry: their permissions.) A name keeps at most
	// servesPerName ids (its latest), so that one key cannot fill the
	// ring of ids with Serves of its own and leave a peer unwatched.
	var hello atomic.Bool
	var knownMu sync.Mutex
	// By name and id (tapKey): a hello under one name cannot replace
	// another name's entry for the same id.
	known := map[string]workerInfo{} // from the hellos; Started: when last heard
	hsub, err := s.n.nc.Subscribe(s.n.helloSubject("*"), func(m *nats.Msg) {
		name, id := m.Subject[strings.LastIndexByte(m.Subject, '.')+1:], string(m.Data)
		if !namePattern.MatchString(id) {
			return
		}
		knownMu.Lock()
		_, had := known[tapKey(name, id)]
		known[tapKey(name, id)] = workerInfo{Name: name, Alive: id, Started: time.Now()}
		if !had {
			keepLatest(known, name, servesPerName)
		}
		knownMu.Unlock()
		if !had && id != s.tree.id {
			hello.Store(true)
			s.sayHello() // the newcomer learns of this worker at once
		}
	})
	if err == nil {
		defer hsub.Unsubscribe()
	}
	// A peer's silence is measured against this worker's own held lists,
	// heard back through the server: a watcher frozen or starved itself
	// hears neither, and takes no peer for lost for it.
	var self atomic.Int64
	self.Store(time.Now().UnixNano())
	ssub, err := s.n.nc.Subscribe(s.n.heldSubject(s.n.opts.name, s.tree.id), func(*nats.Msg) { self.Store(time.Now().UnixNano()) })
	if err == nil {
		defer ssub.Unsubscribe()
	}
	tick := time.NewTicker(watchEvery)
	defer tick.Stop()
	var refreshed time.Time
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		if time.Since(refreshed) >= peersEvery || hello.Swap(false) {
			if time.Since(refreshed) >= peersEvery {
				s.sayHello() // every peersEvery: the others keep knowing this worker
			}
			refreshed = time.Now()
			var ws []workerInfo
			knownMu.Lock()
			for id, w := range known {
				if time.Since(w.Started) > workerTTL { // no hello for 15 s: gone
					delete(known, id)
					continue
				}
				ws = append(ws, w)
			}
			knownMu.Unlock()
			{
				want := map[string]workerInfo{}
				mu.Lock()
				ws = slices.DeleteFunc(ws, func(w workerInfo) bool { return gone[tapKey(w.Name, w.Alive)] })
				mu.Unlock()
				for _, w := range watched(ws, s.tree.id, watchPeers) {
					want[tapKey(w.Name, w.Alive)] = w
				}
				mu.Lock()
				for id, p := range peers {
					if _, ok := want[id]; !ok {
						p.sub.Unsubscribe()
						delete(peers, id)
					}
				}
				for key, w := range want {
					if peers[key] != nil {
						continue
					}
					p := &peerState{id: w.Alive, name: w.Name, heard: time.Now()}
					sub, err := s.n.nc.Subscribe(s.n.heldSubject(w.Name, w.Alive), func(m *nats.Msg) {
						mu.Lock()
						seq, rest, _ := strings.Cut(string(m.Data), "\n")
						p.seq, p.held, p.heard, p.lost = seq, strings.Split(strings.TrimSuffix(rest, "\n"), "\n"), time.Now(), false
						if rest == "" {
							p.held = nil
						}
						mu.Unlock()
					})
					if err != nil {
						continue
					}
					p.sub = sub
					peers[key] = p
				}
				mu.Unlock()
			}
		}
		mu.Lock()
		list := make([]*peerState, 0, len(peers))
		for _, p := range peers {
			list = append(list, p)
		}
		mu.Unlock()
		var wg sync.WaitGroup
		for _, p := range list {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if s.ping(ctx, p, &mu, time.Unix(0, self.Load())) {
					mu.Lock()
					gone[tapKey(p.name, p.id)] = true
					mu.Unlock()
					hello.Store(true) // look again now: watch another peer
				}
			}()
		}
		wg.Wait()
	}
}

// watched returns the next k live workers after id in the ring of ids.
func watched(ws []workerInfo, id string, k int) []workerInfo {
	ws = slices.DeleteFunc(slices.Clone(ws), func(w workerInfo) bool { return w.Stopped || w.Alive == "" || w.Alive == id })
	slices.SortFunc(ws, func(a, b workerInfo) int { return strings.Compare(a.Alive, b.Alive) })
	i, _ := slices.BinarySearchFunc(ws, id, func(w workerInfo, id string) int { return strings.Compare(w.Alive, id) })
	var out []workerInfo
	for j := 0; j < min(k, len(ws)); j++ {
		out = append(out, ws[(i+j)%len(ws)])
	}
	return out
}

// pingWait is how long a ping waits for the server's "no responders": it
// comes at once when the peer's connection is gone; otherwise the ping
// just expires (the peer never answers).
const pingWait = 200 * time.Millisecond

// ping looks at peer p once and acts on what it finds.
// selfHeard is when this worker last heard its own held list.
// It reports whether the peer's connection is gone.
func (s *serving) ping(ctx context.Context, p *peerState, mu *sync.Mutex, selfHeard time.Time) bool {
	// The silence first: a frozen peer's ping would only expire.
	mu.Lock()
	if ctx.Err() == nil && selfHeard.Sub(p.heard) > aliveMisses*aliveEvery {
		s.lose(ctx, p, fmt.Sprintf("silent for %d heartbeats", aliveMisses))
	}
	mu.Unlock()
	pctx, cancel := context.WithTimeout(ctx, pingWait)
	defer cancel()
	_, err := s.n.nc.RequestWithContext(pctx, s.n.aliveSubject(p.name, p.id), nil)
	mu.Lock()
	defer mu.Unlock()
	switch {
	case ctx.Err() != nil:
	case errors.Is(err, nats.ErrNoResponders):
		s.lose(ctx, p, "its connection closed")
		return true
	}
	return false
}

// lose hands the held tasks of a lost peer back to the queue, once.
// Called with the watch's mu held.
func (s *serving) lose(ctx context.Context, p *peerState, why string) {
	if p.lost {
		return
	}
	p.lost = true
	held := p.held
	p.held = nil
	if len(held) == 0 {
		return
	}
	cctx, cancel := s.n.timeout(ctx)
	defer cancel()
	var routes []string
	if s.n.viaRecorder() {
		// The recorder claims the peer, counts its started children and
		// hands back what the peer holds, as the server delivered it, once
		// it sees for itself that the peer is lost (see Record): a
		// worker's credential naks nothing it does not hold and writes no
		// claim or count.
		for _, line := range held {
			if f := strings.Split(line, "\t"); len(f) == 3 {
				routes = append(routes, routeOfReply(f[0]))
			}
		}
		// The recorder reads the peer's held list from the peer itself
		// (its own subject): this body only names it.
		body := p.name + "\t" + p.id
		if _, _, err := s.n.askRecorder(cctx, recLost, "", nil, []byte(body)); err != nil {
			s.n.opts.onError(fmt.Errorf("cluster: worker %s lost (%s): the recorder: %w", p.name, why, err))
			if errors.Is(err, errRecorderRefused) {
				// Not lost as the recorder sees it (it heard the peer
				// lately): look again at the next check, with the
				// same list, rather than leave its tasks to the ack wait.
				p.lost, p.held = false, held
			}
			return
		}
	} else {
		if _, err := s.n.checkpoints.Create(cctx, lostClaimKey(p.id, p.seq), []byte(s.n.opts.name)); err != nil {
			if !errors.Is(err, jetstream.ErrKeyExists) {
				s.n.opts.onError(fmt.Errorf("cluster: worker %s lost (%s): claiming its tasks: %w", p.name, why, err))
			}
			return // another watcher acts, or the ack wait does
		}
		for _, line := range held {
			f := strings.Split(line, "\t")
			if len(f) != 3 {
				continue
			}
			// The children it had started run again with the task's next
			// run: counted first, so that the next run reads the count.
			if k, _ := strconv.Atoi(f[2]); k > 0 {
				if err := s.n.addReran(cctx, f[1], k); err != nil {
					s.n.opts.onError(fmt.Errorf("cluster: counting the children of %s that run again: %w", f[1], err))
				}
			}
			s.n.settleMsg(&nats.Msg{Reply: f[0]}, ackNak)
			routes = append(routes, routeOfReply(f[0]))
		}
	}
	s.n.reclaimed.Add(int64(len(held)))
	if pl := s.puller.Load(); pl != nil {
		pl.spare(len(held), routes)
	}
	s.n.opts.onError(fmt.Errorf("cluster: worker %s lost (%s): its %d task(s) handed back to the queue", p.name, why, len(held)))
}

// lostClaimKey is the checkpoint key that claims the tasks of lost Serve
// id, as its held list number seq named them: the first watcher (or
// recorder) to create it hands them back, once.
func lostClaimKey(id, seq string) string { return "lost." + id + "." + seq }

// servesPerName is how many Serve ids of one worker name a watcher keeps
// (the latest hellos): a worker restarted has two for a while.
const servesPerName = 2

// keepLatest forgets the Serves of name in known beyond the k heard last.
func keepLatest(known map[string]workerInfo, name string, k int) {
	var ids []string
	for key, w := range known {
		if w.Name == name {
			ids = append(ids, key)
		}
	}
	if len(ids) <= k {
		return
	}
	slices.SortFunc(ids, func(a, b string) int { return known[b].Started.Compare(known[a].Started) })
	for _, id := range ids[k:] {
		delete(known, id)
	}
}

// sayHello tells the others that this worker serves (and may be watched).
func (s *serving) sayHello() {
	s.n.nc.Publish(s.n.helloSubject(s.n.opts.name), []byte(s.tree.id))
}

// The failover subjects name the worker (its name as one token) and its
// Serve: a worker's own key may publish its held lists and hellos, and
// subscribe to its pings, only under its own name (RolePermissionsFor),
// so what a watcher or the recorder hears on them came from that worker.
func (n *Node) aliveSubject(name, id string) string {
	return n.opts.stream + ".alive." + subjectToken(name) + "." + id
}
func (n *Node) heldSubject(name, id string) string {
	return n.opts.stream + ".held." + subjectToken(name) + "." + id
}
func (n *Node) helloSubject(name string) string {
	if name == "*" {
		return n.opts.stream + ".hello.*"
	}
	return n.opts.stream + ".hello." + subjectToken(name)
}
