package cluster

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// childMsg is the task message of child, handed over under the unit
// whose message is unit (subject and headers: the unit's route, job,
// attempts, reduction; its own task id and parent).
func childMsg(unit *nats.Msg, parent, child string, payload []byte) *nats.Msg {
	m := nats.NewMsg(unit.Subject)
	for _, h := range []string{hdrJob, hdrIndex, hdrAttempts, hdrRetryDelay, hdrMaxLost, hdrNotify, hdrReduce} {
		if v := unit.Header.Get(h); v != "" {
			m.Header.Set(h, v)
		}
	}
	m.Header.Set(hdrTask, child)
	m.Header.Set(hdrParent, parent)
	m.Data = payload
	return m
}

// publishChild publishes child as the recorder: under the message id a
// worker would give it (the job's nonce and its id), so that a re-run of
// its unit handing it over again publishes a copy JetStream drops.
func (n *Node) publishChild(ctx context.Context, subject string, header nats.Header, parent, child, nonce string, payload []byte) error {
	m := childMsg(&nats.Msg{Subject: subject, Header: header}, parent, child, payload)
	_, err := n.js.PublishMsg(ctx, m, jetstream.WithMsgID(nonce+"."+child))
	return err
}

// recSubject is the subject of this worker's requests of kind op to the
// recorder: <stream>.rec.<worker>.<op> (a worker's own credential may
// publish there only under its own name).
func (n *Node) recSubject(op string) string {
	return n.opts.stream + ".rec." + subjectToken(n.opts.name) + "." + op
}

// subjectToken is name as one subject token: the default name (host-pid)
// may hold dots; a name given with WithName is one already.
func subjectToken(name string) string {
	return strings.Map(func(r rune) rune {
		if r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
			return r
		}
		return '_'
	}, name)
}

// deliverySubject is the prefix of the reply subjects of the pull
// requests of worker's Serve id when it works through a recorder:
// <stream>.dlv.<worker>.<id> (the recorder hears them too, see tap).
func (n *Node) deliverySubject(worker, id string) string {
	return n.opts.stream + ".dlv." + subjectToken(worker) + "." + id
}

// viaRecorder says this node's writes of results, failures and children
// go through the recorder: it is a worker of a server that checks its
// role (see Record).
func (n *Node) viaRecorder() bool { return n.opts.role == RoleWorker }

// readHeld reads one record (what: readResult, readCkpt, ...) of the task
// of delivery msg: from kv's key directly, or, for a worker that works
// through a recorder, from the recorder, which answers only for a
// delivery the worker holds (a worker's key reads neither results nor
// checkpoints nor failure counts itself). ok is false when there is no
// such record; for readResult the value is never returned, only ok.
func (n *Node) readHeld(ctx context.Context, msg *nats.Msg, what string, kv jetstream.KeyValue, key string) (value []byte, ok bool, err error) {
	if !n.viaRecorder() {
		e, err := kv.Get(ctx, key)
		if isNotFound(err) {
			return nil, false, nil
		}
		if err != nil {
			return nil, false, err
		}
		if what == readResult {
			return nil, true, nil
		}
		return e.Value(), true, nil
	}
	st, body, err := n.askRecorder(ctx, recRead, msg.Reply, map[string]string{hdrRead: what}, nil)
	if err != nil {
		return nil, false, err
	}
	return body, st == recOK, nil
}

// askRecorder sends a request for the delivery ack to the recorder and
// returns its status and body, retrying while the recorder or the server
// is away, until ctx is done. A refusal is errRecorderRefused with the reason.
func (n *Node) askRecorder(ctx context.Context, op, ack string, hdr map[string]string, data []byte) (string, []byte, error) {
	m := nats.NewMsg(n.recSubject(op))
	if ack != "" {
		m.Header.Set(hdrAck, ack)
	}
	for k, v := range hdr {
		m.Header.Set(k, v)
	}
	m.Data = data
	for tries := 1; ; tries++ {
		tctx, cancel := n.timeout(ctx)
		reply, err := n.nc.RequestMsgWithContext(tctx, m)
		cancel()
		if err == nil {
			st := reply.Header.Get(hdrStatus)
			if st == recRefused {
				return st, nil, fmt.Errorf("%w: %s", errRecorderRefused, reply.Data)
			}
			return st, reply.Data, nil
		}
		if errors.Is(err, nats.ErrNoResponders) && tries == 1 {
			n.opts.onError(fmt.Errorf("cluster: no recorder answers on %s (does the server run one? worksteal serve does); retrying", m.Subject))
		}
		if !sleepCtx(ctx, backoffDelay(tries)) {
			return "", nil, err
		}
	}
}

// resultBatch gathers the results a worker sends the recorder: while
// maxBatchesOut requests are out, the results that come meanwhile wait
// and go together in the next one (up to maxBatch), so under load one
// request and one answer carry many results, and alone a result goes at
// once.
type resultBatch struct {
	mu      sync.Mutex
	queue   []*batched
	sending int // requests out (each sends until the queue is empty)
}

// batched is one result waiting in a resultBatch.
type batched struct {
	ctx  context.Context
	ack  string
	data []byte
	done chan batchAnswer // buffered: the sender never waits for the asker
}

type batchAnswer struct {
	status string
	err    error
}

const (
	maxBatch      = 64
	maxBatchesOut = 2
)

// recordViaRecorder asks the recorder to record data for the delivery
// ack, in a batch with the other results that wait (resultBatch); it
// returns recOK or recDup, or errRecorderRefused with the reason, retrying while
// the recorder or the server is away, until ctx is done.
func (n *Node) recordViaRecorder(ctx context.Context, ack string, data []byte) (string, error) {
	b := &batched{ctx: ctx, ack: ack, data: data, done: make(chan batchAnswer, 1)}
	rb := &n.resBatch
	rb.mu.Lock()
	rb.queue = append(rb.queue, b)
	start := rb.sending < maxBatchesOut
	if start {
		rb.sending++
	}
	rb.mu.Unlock()
	if start {
		go n.sendBatches()
	}
	select {
	case a := <-b.done:
		return a.status, a.err
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// sendBatches sends the waiting results, a batch at a time, until none
// waits.
func (n *Node) sendBatches() {
	rb := &n.resBatch
	for {
		rb.mu.Lock()
		if len(rb.queue) == 0 {
			rb.sending--
			rb.mu.Unlock()
			return
		}
		k := min(len(rb.queue), maxBatch)
		batch := slices.Clone(rb.queue[:k])
		rb.queue = slices.Delete(rb.queue, 0, k)
		rb.mu.Unlock()
		n.sendBatch(batch)
	}
}

// sendBatch sends one batch and answers its askers; entries answered
// "retry", and the whole batch when no answer comes, are sent again (a
// result already written by an earlier try is found by writeResult to be
// this same record).
func (n *Node) sendBatch(batch []*batched) {
	for tries := 1; ; tries++ {
		batch = slices.DeleteFunc(batch, func(b *batched) bool {
			if err := b.ctx.Err(); err != nil {
				b.done <- batchAnswer{err: err}
				return true
			}
			return false
		})
		if len(batch) == 0 {
			return
		}
		m := nats.NewMsg(n.recSubject(recResults))
		for _, b := range batch {
			m.Data = appendBatched(appendBatched(m.Data, []byte(b.ack)), b.data)
		}
		ctx, cancel := context.WithTimeout(context.Background(), n.opts.defaultTimeout)
		reply, err := n.nc.RequestMsgWithContext(ctx, m)
		cancel()
		if err == nil && reply.Header.Get(hdrStatus) == recRefused {
			for _, b := range batch {
				b.done <- batchAnswer{err: fmt.Errorf("%w: %s", errRecorderRefused, reply.Data)}
			}
			return
		}
		if err == nil {
			lines := strings.Split(string(reply.Data), "\n")
			var again []*batched
			for i, b := range batch {
				st := recRetry
				if i < len(lines) {
					st = lines[i]
				}
				switch {
				case st == recRetry:
					again = append(again, b)
				case strings.HasPrefix(st, recRefused):
					b.done <- batchAnswer{err: fmt.Errorf("%w: %s", errRecorderRefused, strings.TrimPrefix(st, recRefused+"\t"))}
				default:
					b.done <- batchAnswer{status: st}
				}
			}
			if batch = again; len(batch) == 0 {
				return
			}
		} else if errors.Is(err, nats.ErrNoResponders) && tries == 1 {
			n.opts.onError(fmt.Errorf("cluster: no recorder answers on %s (does the server run one? worksteal serve does); retrying", m.Subject))
		}
		time.Sleep(backoffDelay(tries))
	}
}
