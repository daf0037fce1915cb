package cluster

// What the recorder knows a worker holds: the taps on each Serve's
// deliveries, the holder table they fill, and the checks (holds, rebind,
// claims, check) that decide whether a worker's request acts for a
// delivery that went to it. recorder.go has the recorder's life cycle, its
// sweeps and what it writes.

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/worksteal/worksteal/internal/clusterops"
)

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
