package cluster

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/worksteal/worksteal/internal/clusterops"
)

// The recorder: the one writer of the results and failures buckets, and
// the one publisher of handed-over children, when workers connect with
// the worker role (see the package doc, "Authority"). A worker asks it
// on <stream>.rec.<op>, giving the reply subject of the delivery it acts
// for (header Ws-Ack); the recorder checks the delivery before it writes.
const (
	recResult    = "result"     // record a result (body: the Result)
	recResults   = "results"    // record several (body: entries of the delivery's reply subject and the Result, see appendBatched)
	recDiscarded = "discarded"  // count a discarded run (header Ws-Delivered)
	recFailure   = "failure"    // count a handler's failure (header Ws-Seen; body: the error)
	recSpawn     = "spawn"      // hand a child over (header Ws-Task; body: its payload)
	recAck       = "ack"        // settle the delivery: ack, nak, in progress, term (body: the ack's own body; no answer)
	recHello     = "hello"      // a worker starts serving (body: its Serve's id): tap its deliveries
	recLost      = "lost"       // failover: a watched peer is lost (body: "<worker>\t<Serve id>"): hand its deliveries back
	recCkpt      = "checkpoint" // save the held task's checkpoint (body: the data)
	recRead      = "read"       // read one of the held task's records (header Ws-Read: readResult, ...): a worker reads nothing else

	hdrAck       = "Ws-Ack"       // the delivery's reply subject: what the worker holds
	hdrDelivered = "Ws-Delivered" // the delivery count of a discarded run
	hdrSeen      = "Ws-Seen"      // the failures the delivery saw
	hdrStatus    = "Ws-Status"    // the recorder's answer: ok, dup, refused
	hdrNoSpawn   = "Ws-No-Spawn"  // on a task message: its job does not hand children over (Job.NoSpawn)
	hdrList      = "Ws-List"      // on a spawn request: add the child to the held task's list of handed-over children first
	hdrRead      = "Ws-Read"      // on a read request: which record of the held task
)

// The records of a held task that a worker may read (recRead): whether its
// result is in (never the result itself), its checkpoint, its list of
// handed-over children, its count of children run again, its failures.
const (
	readResult   = "result"
	readCkpt     = "checkpoint"
	readHanded   = "handed"
	readReran    = "reran"
	readFailures = "failures"
)

// The recorder's answers.
const (
	recOK      = "ok"
	recNone    = "none"    // a read: no such record
	recDup     = "dup"     // a result is recorded already: nothing written
	recRefused = "refused" // the check failed: nothing written (body: the reason)
	recRetry   = "retry"   // in a batch's answer: the entry met an error (the server away); ask again
)

// errRecorderRefused: the recorder refused a worker's write (a result for a task
// the worker does not hold, a child under a task it does not hold, ...).
var errRecorderRefused = errors.New("cluster: refused by the recorder")

// sweepEvery is how often the recorder looks for task messages of no job.
var sweepEvery = 10 * time.Second

// recorder is one Record call's state.
type recorder struct {
	n        *Node
	onRefuse func(op, reason, detail string)

	creates replies // the creates of results sent in batches (results)

	mu    sync.Mutex
	stats recorderStats
	jobs  map[string]cachedJob // job records read lately
	ckpts map[string]bool      // the tasks (result keys) whose checkpoint this recorder saved: purged with their result

	// The deliveries to the workers that said hello, as the server made
	// them (see tap): who holds which task message. Guarded by hmu.
	hmu     sync.Mutex
	holders map[uint64]*holding     // by stream sequence
	tapped  map[string]*tappedServe // by worker and Serve id (tapKey)
	heard   map[string]time.Time    // when a Serve's held list was last heard, by tapKey
	lists   map[string][]byte       // a Serve's last held list, by tapKey: heard on its own subject, so from it
	tapWake chan struct{}           // closed when a delivery is noted while tapWaited (a request waits for it)
	// tapWaited: a request waits on tapWake (set by holder, cleared when
	// noteDelivery closes it): a delivery noted while none waits costs no
	// channel.
	tapWaited bool
	started   time.Time
}

// holding is a delivery the recorder saw the server make: to which
// worker (and Serve), which delivery of the message, and the message's
// subject and headers as its publisher set them.
type holding struct {
	worker, serve string
	delivered     uint64
	ack           string // its reply subject
	subject       string
	header        nats.Header
	touched       time.Time
}

// tappedServe is a worker's Serve whose deliveries the recorder hears.
type tappedServe struct {
	worker, id string
	sub        *nats.Subscription
	done       chan struct{} // closed when untapped
	processed  int64         // deliveries noted (noteDelivery); under hmu
	// lost: found lost (lost) and silent since; under hmu. A lost Serve's
	// pull requests live on at the server until they expire (the fetch
	// wait), kept alive by the recorder's own tap of their reply subject:
	// a delivery made into one (a message handed back by the failover, say)
	// would reach no worker and wait for the ack wait, so it is handed
	// back at once. A held list heard from the Serve again clears it (a
	// frozen worker that woke up).
	lost bool
}

// tapQueue bounds the deliveries of one Serve read but not yet noted.
const tapQueue = 1 << 16

// untap ends t's subscription and its goroutine. Called with hmu held.
func (t *tappedServe) untap() {
	t.sub.Unsubscribe()
	close(t.done)
}

// tapKey keys the tapped Serves by worker and Serve id: a hello that names
// another worker's Serve id under its own name taps a subject only it may
// pull to, and takes nothing from the other.
func tapKey(worker, id string) string { return worker + "\t" + id }

// recorderStats (clusterops.RecorderStatsOf) returns the counts of the recorder this node runs
// (Record); zero if it runs none.
func (n *Node) recorderStats() recorderStats {
	n.mu.Lock()
	r := n.rec
	n.mu.Unlock()
	if r == nil {
		return recorderStats{}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	st := r.stats
	st.Refused = make(map[string]int64, len(r.stats.Refused))
	for k, v := range r.stats.Refused {
		st.Refused[k] = v
	}
	st.RefusedBy = cloneCounts(r.stats.RefusedBy)
	return st
}

// runRecorder (clusterops.Record) runs the recorder on this node's connection until ctx is done:
// it alone writes the results and failures buckets and publishes the
// children that workers hand over, for the workers that connect with the
// worker role (WithRole), whose own permissions allow none of that. Its
// connection needs the rights to write those buckets, read the task
// stream by sequence, read job records and publish tasks (worksteal serve
// runs it on an in-process connection of its own). Several recorders may
// run (one per server of a cluster): they share the requests.
//
// onRefuse, if not nil, is called for each refused request (op, the
// reason, one of the Refused* values, and a detail naming the job and
// task), so the server can log it; RecorderStats counts them.
func (n *Node) runRecorder(ctx context.Context, onRefuse func(op, reason, detail string)) error {
	// The recorder sets the tier up (with its storage limits, WithLimits)
	// when it is the first: a person's key may not (WithOwner).
	if err := n.ensureWaiting(ctx); err != nil || ctx.Err() != nil {
		return err
	}
	r := &recorder{n: n, onRefuse: onRefuse, stats: recorderStats{Refused: map[string]int64{}, RefusedBy: map[string]int64{}}, jobs: map[string]cachedJob{}, ckpts: map[string]bool{},
		holders: map[uint64]*holding{}, tapped: map[string]*tappedServe{}, heard: map[string]time.Time{}, lists: map[string][]byte{}, tapWake: make(chan struct{}), started: time.Now()}
	if err := r.creates.start(n.nc); err != nil {
		return err
	}
	defer r.creates.sub.Unsubscribe()
	n.mu.Lock()
	n.rec = r
	outside := n.outside // CountRefusal's, before this started
	n.outside = nil
	n.mu.Unlock()
	r.mu.Lock()
	for k, v := range outside {
		r.stats.RefusedBy[k] += v
	}
	r.mu.Unlock()
	defer r.untapAll()
	// Held lists: when each Serve last spoke, and what it last said it
	// holds (lost reads both). A list is heard on the subject of the
	// worker and Serve it names (<stream>.held.<worker>.<id>), which only
	// that worker's key may publish on: nobody speaks for another. Hellos:
	// the Serves that started before this recorder, or that asked
	// another recorder of the cluster, are tapped too.
	heldSub, err := n.nc.Subscribe(n.opts.stream+".held.*.*", func(m *nats.Msg) {
		t := strings.Split(m.Subject, ".")
		k := tapKey(t[len(t)-2], t[len(t)-1])
		r.hmu.Lock()
		r.heard[k] = time.Now() // forgotten by prune after serveIdle
		r.lists[k] = m.Data
		if ts := r.tapped[k]; ts != nil {
			ts.lost = false
		}
		r.hmu.Unlock()
	})
	if err != nil {
		return err
	}
	defer heldSub.Unsubscribe()
	helloSub, err := n.nc.Subscribe(n.helloSubject("*"), func(m *nats.Msg) {
		r.tap(m.Subject[strings.LastIndexByte(m.Subject, '.')+1:], string(m.Data))
	})
	if err != nil {
		return err
	}
	defer helloSub.Unsubscribe()
	sub, err := n.nc.QueueSubscribe(n.opts.stream+".rec.*.*", n.opts.stream+"_recorder", func(m *nats.Msg) {
		if strings.HasSuffix(m.Subject, "."+recAck) {
			r.handleAck(m) // no answer, no server round trip: inline
			return
		}
		go r.handle(ctx, m)
	})
	if err != nil {
		return err
	}
	sub.SetPendingLimits(-1, -1)
	defer sub.Unsubscribe()
	go r.publishRefusals(ctx) // for the dashboard
	osub, err := r.serveOwners(ctx)
	if err != nil {
		return err
	}
	defer osub.Unsubscribe()
	t := time.NewTicker(sweepEvery)
	defer t.Stop()
	for {
		r.sweep(ctx)
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}

// sweep purges the task messages on the subjects of jobs that have no
// record: nothing would ever take them (a job's routes exist only while
// it is recorded; Submit records a job before it publishes, Delete purges
// its subjects before its record). They are counted (DiscardedNoJob) and
// reported like refusals.
func (r *recorder) sweep(ctx context.Context) {
	n := r.n
	ctx, cancel := n.timeout(ctx)
	defer cancel()
	prefix := n.opts.stream + ".task."
	info, err := n.stream.Info(ctx, jetstream.WithSubjectFilter(prefix+">"))
	if err != nil {
		return
	}
	r.prune(ctx)
	counts := map[string]uint64{}
	for subj, c := range info.State.Subjects {
		counts[jobOfTaskSubject(prefix, subj)] += c
	}
	for job, c := range counts {
		if _, _, err := n.jobRecordOf(ctx, job); !errors.Is(err, ErrJobNotFound) {
			continue
		}
		if err := n.stream.Purge(ctx, jetstream.WithPurgeSubject(prefix+job+".>")); err != nil {
			continue
		}
		r.mu.Lock()
		r.stats.Refused[clusterops.DiscardedNoJob] += int64(c)
		r.stats.RefusedBy[refusalKey("task", clusterops.DiscardedNoJob)] += int64(c)
		r.mu.Unlock()
		if r.onRefuse != nil {
			r.onRefuse("task", clusterops.DiscardedNoJob, fmt.Sprintf("discarded %d task messages of job %s, which is not recorded", c, job))
		}
	}
}

// Bounds of the holder table (prune).
const (
	holdIdle  = 2 * time.Minute // a holding not heard of for this long is looked up in the stream
	serveIdle = time.Minute     // a Serve silent this long is no longer tapped
)

// prune forgets the Serves silent for serveIdle (stopped, or lost and
// handed back) with their holdings, and the holdings idle for holdIdle
// whose message is no longer in the stream (settled some other way: a
// job deleted, an ack wait that ran out before a redelivery the recorder
// heard).
func (r *recorder) prune(ctx context.Context) {
	now := time.Now()
	var idle []uint64
	r.hmu.Lock()
	for k, t := range r.tapped {
		if now.Sub(r.heard[k]) > serveIdle {
			t.untap()
			delete(r.tapped, k)
		}
	}
	for k, at := range r.heard {
		if now.Sub(at) > serveIdle {
			delete(r.heard, k)
			delete(r.lists, k)
		}
	}
	for seq, h := range r.holders {
		if _, ok := r.tapped[tapKey(h.worker, h.serve)]; !ok {
			delete(r.holders, seq)
		} else if now.Sub(h.touched) > holdIdle {
			idle = append(idle, seq)
		}
	}
	r.hmu.Unlock()
	for _, seq := range idle {
		if _, err := r.n.stream.GetMsg(ctx, seq); errors.Is(err, jetstream.ErrMsgNotFound) {
			r.hmu.Lock()
			delete(r.holders, seq)
			r.hmu.Unlock()
		}
	}
}

// held is a delivery that the recorder checked: the task message that a
// worker acts for, as the server delivered it.
type held struct {
	job, task, parent, handler, nonce string
	index                             int
	delivered                         int
	seq                               uint64
	subject                           string
	header                            nats.Header
}

// errRefused is a refusal with its reason.
type errRefused struct{ reason, detail string }

func (e *errRefused) Error() string { return e.reason + ": " + e.detail }

func refuse(reason, format string, args ...any) error {
	return &errRefused{reason, fmt.Sprintf(format, args...)}
}

// tap starts hearing the deliveries to worker's Serve id: the server
// sends them to <stream>.dlv.<worker>.<id>.<request>, which only that
// worker's credential may subscribe to (RolePermissionsFor), so what the
// recorder hears there went to that worker and no other.
func (r *recorder) tap(worker, id string) error {
	if !namePattern.MatchString(worker) || !namePattern.MatchString(id) {
		return refuse(clusterops.RefusedMalformed, "hello from %q, Serve %q", worker, id)
	}
	r.hmu.Lock()
	defer r.hmu.Unlock()
	if _, ok := r.tapped[tapKey(worker, id)]; ok {
		return nil
	}
	// A channel subscription: the connection's reader puts each delivery
	// in ch, counting it (Delivered), before it reads the next message, a
	// request about it included (see caughtUpLocked).
	t := &tappedServe{worker: worker, id: id, done: make(chan struct{})}
	ch := make(chan *nats.Msg, tapQueue)
	sub, err := r.n.nc.ChanSubscribe(r.n.deliverySubject(worker, id)+".*", ch)
	if err != nil {
		return err
	}
	t.sub = sub
	go func() {
		for {
			select {
			case m := <-ch:
				r.noteDelivery(t, m)
			case <-t.done:
				return
			}
		}
	}()
	r.tapped[tapKey(worker, id)] = t
	if _, ok := r.heard[tapKey(worker, id)]; !ok {
		r.heard[tapKey(worker, id)] = time.Now()
	}
	return nil
}

func (r *recorder) untapAll() {
	r.hmu.Lock()
	defer r.hmu.Unlock()
	for _, t := range r.tapped {
		t.untap()
	}
}

// noteDelivery notes that the server delivered m to t's worker and
// Serve: it holds the message from now on, until it settles it or the
// server delivers the message again (its lease lost: to it or another).
func (r *recorder) noteDelivery(t *tappedServe, m *nats.Msg) {
	_, delivered, seq, ok := parseAck(m.Reply)
	r.hmu.Lock()
	if ok && t.lost {
		ok = false
		r.n.nc.Publish(m.Reply, ackNak) // into a lost Serve's pull request: hand it back
	}
	if h := r.holders[seq]; ok && (h == nil || h.delivered < delivered) { // !ok: a status of a pull request (no task)
		r.holders[seq] = &holding{worker: t.worker, serve: t.id, delivered: delivered, ack: m.Reply, subject: m.Subject, header: m.Header, touched: time.Now()}
	}
	t.processed++
	if r.tapWaited {
		close(r.tapWake)
		r.tapWake, r.tapWaited = make(chan struct{}), false
	}
	r.hmu.Unlock()
}

// caughtUpLocked says the recorder has noted every delivery to worker
// that its connection has read: as many as each of the worker's tap
// subscriptions has put in its channel (Delivered). Called with hmu held.
// The connection reads in order, and the server sent a delivery to the
// recorder before the worker could ask about it, so once caught up after a
// request arrived, a delivery not in the table was not made to that
// worker.
func (r *recorder) caughtUpLocked(worker string) bool {
	for _, t := range r.tapped {
		if t.worker != worker {
			continue
		}
		if d, err := t.sub.Delivered(); err == nil && t.processed < d {
			return false
		}
	}
	return true
}

// holder returns the holding of stream message seq: at once if it is
// worker's delivery number delivered, else once the deliveries to worker
// read before the request are noted (caughtUpLocked), whatever it is then
// (nil: none). An error only when ctx ends first (the asker retries).
func (r *recorder) holder(ctx context.Context, worker string, seq, delivered uint64) (*holding, error) {
	for {
		r.hmu.Lock()
		h, wake := r.holders[seq], r.tapWake
		if (h != nil && h.worker == worker && h.delivered == delivered) || r.caughtUpLocked(worker) {
			r.hmu.Unlock()
			return h, nil
		}
		r.tapWaited = true
		r.hmu.Unlock()
		select {
		case <-wake:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// held checks that the delivery ack (its reply subject) was made to
// worker, is the message's latest delivery, and has not been settled
// through the recorder since: what the worker holds now.
func (r *recorder) holds(ctx context.Context, worker, ack string) (*holding, uint64, uint64, error) {
	stream, delivered, seq, ok := parseAck(ack)
	if !ok || stream != r.n.streamName() {
		return nil, 0, 0, refuse(clusterops.RefusedMalformed, "%q is not a delivery of %s", ack, r.n.streamName())
	}
	h, err := r.holder(ctx, worker, seq, delivered)
	switch {
	case err != nil:
		return nil, 0, 0, err
	case h == nil || h.delivered < delivered:
		// A delivery the table lacks: settled already, never made, or
		// made where the recorder did not hear it (before serve
		// (re)started, or to a Serve before its hello): bound on the
		// word of its holder only (rebind).
		if h, err = r.rebind(ctx, worker, ack, seq, delivered); err != nil {
			return nil, 0, 0, err
		}
	}
	switch {
	case h.worker != worker:
		return nil, 0, 0, refuse(clusterops.RefusedNotHolder, "task message %d was delivered to worker %s, not %s", seq, h.worker, worker)
	case h.delivered != delivered:
		return nil, 0, 0, refuse(clusterops.RefusedNotHeld, "task message %d: delivery %d named, the server has delivered it again since (delivery %d): the lease was lost", seq, delivered, h.delivered)
	}
	return h, seq, delivered, nil
}

// rebindWait bounds how long a request for a delivery the holder table
// lacks waits for a held list of the asking worker that names it: held
// lists go out every watchEvery, and within heldEvery of a delivery.
const rebindWait = 2 * aliveEvery

// rebind binds delivery ack (message seq, its delivery number delivered),
// which the holder table lacks, to worker on the word of worker itself:
// the last held list of one of its Serves, heard on that Serve's own
// subject (only worker's key may publish there), names ack exactly. The
// request waits up to rebindWait for such a list. The message's subject and
// headers are read from the stream, as its publisher set them. So after
// serve restarts, the deliveries that live workers hold are bound to them
// again and run once; and a key that names another worker's delivery in a
// request binds nothing and hands nothing back (refused, not-held).
//
// A delivery that the held lists of two workers claim (a stolen key can
// list a delivery it heard of in another's list) is bound to neither:
// it is handed back, to be delivered again where the recorder hears it,
// and refused as a conflict naming both (a second run, never a second
// outcome; the claim came on the claimant's own subject).
func (r *recorder) rebind(ctx context.Context, worker, ack string, seq, delivered uint64) (*holding, error) {
	deadline := time.Now().Add(rebindWait)
	for {
		serve, others := r.claims(worker, ack, seq)
		switch {
		case serve != "" && len(others) > 0:
			r.n.nc.Publish(ack, ackNak)
			return nil, refuse(clusterops.RefusedConflict, "task message %d: delivery %d is claimed by the held lists of worker %s and of %s: handed back to be delivered again", seq, delivered, worker, strings.Join(others, ", "))
		case serve != "":
			m, err := r.n.stream.GetMsg(ctx, seq)
			if errors.Is(err, jetstream.ErrMsgNotFound) {
				return nil, refuse(clusterops.RefusedNotHeld, "task message %d: settled (no longer in the stream)", seq)
			} else if err != nil {
				return nil, err
			}
			h := &holding{worker: worker, serve: serve, delivered: delivered, ack: ack, subject: m.Subject, header: m.Header, touched: time.Now()}
			r.hmu.Lock()
			if cur := r.holders[seq]; cur != nil && cur.delivered >= delivered {
				h = cur // noted meanwhile, as the server made it
			} else {
				r.holders[seq] = h
			}
			r.hmu.Unlock()
			return h, nil
		}
		if !time.Now().Before(deadline) || !sleepCtx(ctx, 50*time.Millisecond) {
			return nil, refuse(clusterops.RefusedNotHeld, "task message %d: delivery %d is not in the holder table, and no held list of worker %s names it (settled, never made, or another worker's): not handed back", seq, delivered, worker)
		}
	}
}

// claims returns the Serve of worker whose last held list names delivery
// ack exactly, and the other workers whose last held lists name a
// delivery of message seq.
func (r *recorder) claims(worker, ack string, seq uint64) (serve string, others []string) {
	r.hmu.Lock()
	defer r.hmu.Unlock()
	for k, list := range r.lists {
		w, id, _ := strings.Cut(k, "\t")
		_, rest, _ := strings.Cut(string(list), "\n")
		for line := range strings.SplitSeq(rest, "\n") {
			a, _, _ := strings.Cut(line, "\t")
			switch {
			case a == "":
			case w == worker && a == ack:
				serve = id
			case w != worker:
				if _, _, sq, ok := parseAck(a); ok && sq == seq && !slices.Contains(others, w) {
					others = append(others, w)
				}
			}
		}
	}
	return serve, others
}

// check finds the delivery that ack (a delivery's reply subject) names
// and checks that worker holds it (holds) and that it is a current job's
// task message: of the job whose record has the message's nonce, not
// cancelled. The subject and headers are the ones the server delivered,
// as the message's publisher (the submitter, or this recorder for a
// child) set them.
func (r *recorder) check(ctx context.Context, worker, ack string) (held, error) {
	n := r.n
	hd, seq, delivered, err := r.holds(ctx, worker, ack)
	if err != nil {
		return held{}, err
	}
	h := held{job: hd.header.Get(hdrJob), task: hd.header.Get(hdrTask), parent: hd.header.Get(hdrParent),
		handler: handlerOf(hd.subject), delivered: int(delivered), seq: seq, subject: hd.subject, header: hd.header}
	h.index, _ = strconv.Atoi(hd.header.Get(hdrIndex))
	h.nonce, _, _ = strings.Cut(hd.header.Get(jetstream.MsgIDHeader), ".")
	if h.job == "" || h.task == "" || !strings.HasPrefix(hd.subject, n.opts.stream+".task."+h.job+".") {
		return held{}, refuse(clusterops.RefusedMismatch, "task message %d on %s is no job's task", seq, hd.subject)
	}
	rec, err := r.job(ctx, h.job, h.nonce)
	switch {
	case errors.Is(err, ErrJobNotFound):
		return held{}, refuse(clusterops.RefusedStaleJob, "job %s of task %s is not recorded", h.job, h.task)
	case err != nil:
		return held{}, err
	case rec.Nonce == "" || rec.Nonce != h.nonce:
		return held{}, refuse(clusterops.RefusedStaleJob, "task %s.%s was published before job %s was created (not its nonce)", h.job, h.task, h.job)
	case rec.Cancelled:
		return held{}, refuse(clusterops.RefusedStaleJob, "job %s was cancelled", h.job)
	}
	return h, nil
}

// settle sends the server the ack (body) of delivery ack, message seq,
// for its holder; an ack, nak or term ends the holding.
func (r *recorder) settle(ack string, seq, delivered uint64, body []byte) {
	r.n.nc.Publish(ack, body)
	if bytes.HasPrefix(body, ackProgress) {
		r.hmu.Lock()
		if h := r.holders[seq]; h != nil {
			h.touched = time.Now()
		}
		r.hmu.Unlock()
		return
	}
	r.hmu.Lock()
	if h := r.holders[seq]; h != nil && h.delivered == delivered {
		delete(r.holders, seq)
	}
	r.hmu.Unlock()
}

// handleAck forwards a worker's ack of a delivery it holds to the server.
func (r *recorder) handleAck(m *nats.Msg) {
	worker := workerOfRequest(m.Subject)
	ack := m.Header.Get(hdrAck)
	body := m.Data
	if !(bytes.Equal(body, ackAck) || bytes.Equal(body, ackProgress) || bytes.HasPrefix(body, ackNak) || bytes.HasPrefix(body, ackTerm)) {
		r.refused(recAck, refuse(clusterops.RefusedMalformed, "ack %q from %s", body, worker).(*errRefused))
		return
	}
	act := func(ctx context.Context) {
		_, seq, delivered, err := r.holds(ctx, worker, ack)
		if ref := (*errRefused)(nil); errors.As(err, &ref) {
			r.refused(recAck, ref)
			return
		}
		r.settle(ack, seq, delivered, body)
	}
	if _, _, seq, ok := parseAck(ack); ok {
		r.hmu.Lock()
		h := r.holders[seq]
		r.hmu.Unlock()
		if _, d, _, _ := parseAck(ack); h != nil && h.worker == worker && h.delivered == d {
			act(context.Background()) // noted already: no wait
			return
		}
	}
	go act(context.Background())
}

// lost hands back every delivery that the lost Serve id of worker holds,
// once the recorder has seen for itself that it is lost: its connection
// is gone (a ping on its own alive subject finds no subscriber), or it
// has said no held list for lostSilence. It returns how many it handed
// back.
//
// body names the Serve: "<worker><TAB><id>". Everything else the
// recorder takes from the Serve itself, never from the watcher that asks:
// when it last spoke and its last held list (heard on the Serve's own
// subject, which only its worker's key may publish on), whose number
// names the claim (lostClaimKey: of several recorders one hands them
// back) and whose lines say how many children each delivery had started
// (counted as run again, addReran, for the deliveries the recorder's own
// table gives that Serve, under the held task's key). So a watcher's key
// can neither keep a frozen peer from being taken for lost (by speaking
// for it) nor change what is handed back or counted.
func (r *recorder) lost(ctx context.Context, body string) (int, error) {
	first, _, _ := strings.Cut(body, "\n")
	worker, id, ok := strings.Cut(first, "\t")
	if !ok || !namePattern.MatchString(worker) || !namePattern.MatchString(id) {
		return 0, refuse(clusterops.RefusedMalformed, "lost: %q does not name a worker and a Serve", first)
	}
	k := tapKey(worker, id)
	r.hmu.Lock()
	t := r.tapped[k]
	heard, list := r.heard[k], r.lists[k]
	r.hmu.Unlock()
	if t == nil {
		return 0, refuse(clusterops.RefusedNotLost, "Serve %s of worker %s is not known (no hello)", id, worker)
	}
	pctx, cancel := context.WithTimeout(ctx, pingWait)
	_, err := r.n.nc.RequestWithContext(pctx, r.n.aliveSubject(worker, id), nil)
	cancel()
	if !errors.Is(err, nats.ErrNoResponders) && time.Since(heard) < lostSilence {
		return 0, refuse(clusterops.RefusedNotLost, "worker %s (Serve %s) answers and spoke %v ago", worker, id, time.Since(heard).Round(time.Millisecond))
	}
	r.hmu.Lock()
	t.lost = true // from now on, what the server delivers to it is handed back at once
	r.hmu.Unlock()
	seq, rest, _ := strings.Cut(string(list), "\n")
	started := map[string]int{} // by delivery
	for _, l := range strings.Split(rest, "\n") {
		if f := strings.Split(l, "\t"); len(f) == 3 {
			if k, err := strconv.Atoi(f[2]); err == nil && k > 0 {
				started[f[0]] = k
			}
		}
	}
	if namePattern.MatchString(seq) {
		if _, err := r.n.checkpoints.Create(ctx, lostClaimKey(id, seq), []byte(r.n.opts.name)); errors.Is(err, jetstream.ErrKeyExists) {
			return 0, nil // claimed: another recorder hands them back
		} else if err != nil {
			return 0, err
		}
	}
	r.hmu.Lock()
	type one struct {
		seq, delivered uint64
		ack, key       string
	}
	var back []one
	for sq, h := range r.holders {
		if h.serve == id && h.worker == worker {
			back = append(back, one{sq, h.delivered, h.ack, resultKey(h.header.Get(hdrJob), h.header.Get(hdrTask))})
		}
	}
	r.hmu.Unlock()
	// What its own last list says it holds and the table lacks (made
	// before serve restarted, and never asked about since): handed back
	// too, unless another worker's list claims the same message.
	for line := range strings.SplitSeq(rest, "\n") {
		f := strings.Split(line, "\t")
		if len(f) != 3 {
			continue
		}
		_, delivered, sq, ok := parseAck(f[0])
		if !ok {
			continue
		}
		r.hmu.Lock()
		_, inTable := r.holders[sq]
		r.hmu.Unlock()
		if _, others := r.claims(worker, f[0], sq); !inTable && len(others) == 0 {
			back = append(back, one{sq, delivered, f[0], ""}) // no key: its children are not counted on its word
		}
	}
	for _, b := range back {
		// The children it had started run again with the task's next
		// run: counted first, so that the next run reads the count.
		if k := started[b.ack]; k > 0 && b.key != "" {
			if err := r.n.addReran(ctx, b.key, k); err != nil {
				r.n.opts.onError(fmt.Errorf("cluster: counting the children of %s that run again: %w", b.key, err))
			}
		}
		r.settle(b.ack, b.seq, b.delivered, ackNak)
	}
	return len(back), nil
}

// lostSilence is how long a Serve must have said no held list for the
// recorder to take it for lost while its connection lives (the watchers
// take it for lost after aliveMisses heartbeats of their own clock: this
// leaves them one heartbeat's slack).
const lostSilence = (aliveMisses - 1) * aliveEvery
