package cluster

import (
	"bytes"
	"context"
	"errors"
	"strconv"
	"sync"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/worksteal/worksteal/internal/clusterops"
)

// resultWrite is a result that passed its checks (checkResult): to be
// created, then settled (recorded).
type resultWrite struct {
	h       held
	key     string
	ack     string
	data    []byte
	attempt int
	// spawned: the result lists handed-over children; speculative: it
	// is a speculative copy's (both for what recorded purges).
	spawned, speculative bool
}

// checkResult checks a result, data, for the delivery ack that worker
// holds, before it is written: the delivery is held (check), and the
// result is the delivery's task's, listing only its descendants. A status
// (recDup) instead when the result is recorded already.
func (r *recorder) checkResult(ctx context.Context, worker, ack string, data []byte) (resultWrite, string, error) {
	n := r.n
	h, err := r.check(ctx, worker, ack)
	if err != nil {
		if ref := (*errRefused)(nil); errors.As(err, &ref) && ref.reason == clusterops.RefusedNotHeld {
			// A worker whose lease expired while another copy recorded
			// and settled the task: a duplicate, as a create would say.
			var res Result
			if decodeResult(data, &res) == nil && res.Job != "" && res.Task != "" && validJobID(res.Job) {
				if _, gerr := n.results.Get(ctx, resultKey(res.Job, res.Task)); gerr == nil {
					r.count(func(s *recorderStats) { s.Duplicates++ })
					return resultWrite{}, recDup, nil
				}
			}
		}
		return resultWrite{}, "", err
	}
	key := resultKey(h.job, h.task)
	var res Result
	if err := decodeResult(data, &res); err != nil {
		return resultWrite{}, "", refuse(clusterops.RefusedMalformed, "result for %s: %v", key, err)
	}
	if res.Job != h.job || res.Task != h.task || res.Index != h.index || res.Parent != h.parent || res.Handler != h.handler {
		return resultWrite{}, "", refuse(clusterops.RefusedMismatch, "result for %s.%s (index %d, parent %q, handler %q) under the delivery of %s (index %d, parent %q, handler %q)",
			res.Job, res.Task, res.Index, res.Parent, res.Handler, key, h.index, h.parent, h.handler)
	}
	for _, c := range res.Spawned {
		if !isDescendant(c, h.task) {
			return resultWrite{}, "", refuse(clusterops.RefusedBadChild, "result for %s lists %q, not a child of %s", key, c, h.task)
		}
	}
	return resultWrite{h: h, key: key, ack: ack, data: data, attempt: res.Attempt, spawned: len(res.Spawned) > 0, speculative: res.Speculative}, "", nil
}

// recorded finishes a checked result whose create said ok (written now)
// or not (a result was there): it counts it and, if written, settles its
// delivery.
func (r *recorder) recorded(ctx context.Context, w resultWrite, ok bool) string {
	if !ok {
		r.count(func(s *recorderStats) { s.Duplicates++ })
		r.dropCheckpoint(ctx, w.key, false)
		return recDup
	}
	r.count(func(s *recorderStats) { s.Recorded++ })
	// The recorder settles the task it recorded (the worker, told ok,
	// does not): one message fewer from the worker. The ack follows the
	// create's answer: a task is never acked without its result stored.
	r.settle(w.ack, w.h.seq, uint64(w.h.delivered), ackAck)
	if w.attempt > 1 { // failures were counted: done with them
		r.n.failuresKV.Purge(ctx, w.key)
	}
	if w.spawned { // its list of handed-over children (spawn.go) is done with
		r.n.checkpoints.Purge(ctx, w.key+handedSuffix)
	}
	r.dropCheckpoint(ctx, w.key, w.h.delivered > 1 || w.speculative)
	return recOK
}

// dropCheckpoint purges task key's checkpoint once its result is recorded:
// when this recorder saved one (it alone saves them, for the workers that
// work through it), or when an earlier run may have (maybe: a redelivery,
// a speculative copy, whose earlier run may have asked another recorder,
// or this one before a restart). A plain first run that saved nothing
// costs no purge.
func (r *recorder) dropCheckpoint(ctx context.Context, key string, maybe bool) {
	r.mu.Lock()
	saved := r.ckpts[key]
	delete(r.ckpts, key)
	r.mu.Unlock()
	if saved || maybe {
		r.n.checkpoints.Purge(ctx, key)
	}
}

// createMsg is the plain create of createResult: a publish to the key
// that the server stores only if the key has never had a value (expected
// last subject sequence 0), answered by its stream ack.
func (n *Node) createMsg(key string, data []byte) *nats.Msg {
	m := nats.NewMsg("$KV." + n.results.Bucket() + "." + key)
	m.Header.Set(jetstream.ExpectedLastSubjSeqHeader, "0")
	m.Data = data
	return m
}

// createdOK says reply is a stream ack of a stored message (not an error).
func createdOK(reply *nats.Msg) bool {
	return reply != nil && len(reply.Data) > 0 && !bytes.Contains(reply.Data, []byte(`"error"`)) && bytes.Contains(reply.Data, []byte(`"seq"`))
}

// replies sends requests whose answers come on one subscription of its
// own (a subject under inbox), each to the channel send returned: many
// requests out at once from one goroutine, without a goroutine or a
// timer each.
type replies struct {
	nc    *nats.Conn
	inbox string
	mu    sync.Mutex
	next  uint64
	wait  map[string]chan *nats.Msg // by the request's token
	sub   *nats.Subscription
}

// start subscribes to the answers.
func (a *replies) start(nc *nats.Conn) error {
	a.nc, a.inbox, a.wait = nc, nc.NewInbox(), map[string]chan *nats.Msg{}
	sub, err := nc.Subscribe(a.inbox+".*", func(m *nats.Msg) {
		id := m.Subject[len(a.inbox)+1:]
		a.mu.Lock()
		ch := a.wait[id]
		delete(a.wait, id)
		a.mu.Unlock()
		if ch != nil {
			ch <- m // buffered: one answer per request
		}
	})
	if err != nil {
		return err
	}
	sub.SetPendingLimits(-1, -1)
	a.sub = sub
	return nil
}

// send publishes m as request id; its answer comes on the channel (nil if
// the publish failed).
func (a *replies) send(m *nats.Msg) (string, <-chan *nats.Msg) {
	ch := make(chan *nats.Msg, 1)
	a.mu.Lock()
	a.next++
	id := strconv.FormatUint(a.next, 36)
	a.wait[id] = ch
	a.mu.Unlock()
	m.Reply = a.inbox + "." + id
	if err := a.nc.PublishMsg(m); err != nil {
		a.drop(id)
		return id, nil
	}
	return id, ch
}

// drop forgets request id, whose answer did not come.
func (a *replies) drop(id string) {
	a.mu.Lock()
	delete(a.wait, id)
	a.mu.Unlock()
}
