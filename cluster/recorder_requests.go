package cluster

import (
	"context"
	"encoding/binary"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/worksteal/worksteal/internal/clusterops"
)

// jobTTL is how long the recorder trusts a job record it read: a job
// cancelled less than this ago may still get results recorded (a job
// deleted and made again has another nonce, which is read at once).
const jobTTL = time.Second

// cachedJob is a job record the recorder read, and when.
type cachedJob struct {
	rec  jobRecord
	read time.Time
}

// job returns job id's record, from the cache if it was read less than
// jobTTL ago and has the nonce wanted.
func (r *recorder) job(ctx context.Context, id, nonce string) (jobRecord, error) {
	now := time.Now()
	r.mu.Lock()
	c, ok := r.jobs[id]
	r.mu.Unlock()
	if ok && c.rec.Nonce == nonce && now.Sub(c.read) < jobTTL {
		return c.rec, nil
	}
	rec, _, err := r.n.jobRecordOf(ctx, id)
	if err != nil {
		return rec, err
	}
	r.mu.Lock()
	if len(r.jobs) > 4096 {
		clear(r.jobs) // a bound: the cache holds the jobs that run now
	}
	r.jobs[id] = cachedJob{rec, now}
	r.mu.Unlock()
	return rec, nil
}

// isDescendant says id is a descendant of task: "<task>=<i>(=<j>...)".
func isDescendant(id, task string) bool {
	rest, ok := strings.CutPrefix(id, task+"=")
	if !ok || rest == "" {
		return false
	}
	for _, f := range strings.Split(rest, "=") {
		if _, err := strconv.ParseUint(f, 10, 31); err != nil || (len(f) > 1 && f[0] == '0') {
			return false
		}
	}
	return true
}

// handle answers one request.
func (r *recorder) handle(ctx context.Context, m *nats.Msg) {
	op := m.Subject[strings.LastIndexByte(m.Subject, '.')+1:]
	ctx, cancel := r.n.timeout(ctx)
	defer cancel()
	reply := nats.NewMsg(m.Reply)
	body, err := r.do(ctx, op, m)
	var ref *errRefused
	switch {
	case errors.As(err, &ref):
		reply.Header.Set(hdrStatus, recRefused)
		reply.Data = []byte(ref.Error())
		r.refused(op, ref)
	case err != nil:
		return // no answer: the worker retries (a server that is away)
	case op == recResults:
		reply.Header.Set(hdrStatus, recOK)
		reply.Data = []byte(body) // one answer a line
	case op == recRead:
		st, data, _ := strings.Cut(body, "\n")
		reply.Header.Set(hdrStatus, st)
		reply.Data = []byte(data)
	default:
		reply.Header.Set(hdrStatus, body)
	}
	if m.Reply != "" {
		r.n.nc.PublishMsg(reply)
	}
}

// result records one result, data, for the delivery ack that worker
// holds, and settles it: the one write that makes a task's outcome.
func (r *recorder) result(ctx context.Context, worker, ack string, data []byte) (string, error) {
	w, st, err := r.checkResult(ctx, worker, ack, data)
	if err != nil || st != "" {
		return st, err
	}
	ok, err := r.n.createResult(ctx, w.key, data)
	if err != nil {
		return "", err
	}
	return r.recorded(ctx, w, ok), nil
}

// results records a batch of results (see appendBatched), each as result
// does, and answers one line per entry, in order: its status, or
// "refused<TAB>reason" (refusals are counted and reported one by one). An
// entry that met an error (the server away) is answered "retry".
//
// The entries are checked in order, then their creates go out together
// (creates, one answer each on the recorder's own subject) and each is
// settled when its own create is answered: one goroutine per batch, and
// the batch's writes pipelined rather than one round trip after another.
func (r *recorder) results(ctx context.Context, worker string, body []byte) (string, error) {
	var acks []string
	var datas [][]byte
	for len(body) > 0 {
		ack, rest, ok1 := cutBatched(body)
		data, rest, ok2 := cutBatched(rest)
		if !ok1 || !ok2 {
			return "", refuse(clusterops.RefusedMalformed, "a batch of results from %s that does not parse", worker)
		}
		acks, datas, body = append(acks, string(ack)), append(datas, data), rest
	}
	answers := make([]string, len(acks))
	answer := func(i int, st string, err error) {
		var ref *errRefused
		switch {
		case errors.As(err, &ref):
			r.refused(recResult, ref)
			st = recRefused + "\t" + strings.ReplaceAll(ref.Error(), "\n", " ")
		case err != nil:
			st = recRetry
		}
		answers[i] = st
	}
	type pending struct {
		i     int
		w     resultWrite
		id    string           // the create's request (replies)
		reply <-chan *nats.Msg // nil: the create was not sent
	}
	var out []pending
	for i := range acks {
		w, st, err := r.checkResult(ctx, worker, acks[i], datas[i])
		if err != nil || st != "" {
			answer(i, st, err)
			continue
		}
		id, reply := r.creates.send(r.n.createMsg(w.key, w.data))
		out = append(out, pending{i: i, w: w, id: id, reply: reply})
	}
	for _, p := range out {
		var reply *nats.Msg
		if p.reply != nil {
			select {
			case reply = <-p.reply:
			case <-ctx.Done():
				r.creates.drop(p.id)
			}
		}
		ok, err := createdOK(reply), error(nil)
		if !ok { // no answer, or not a plain create: tell a duplicate from an earlier try
			ok, err = r.n.writeResult(ctx, p.w.key, p.w.data)
		}
		if err != nil {
			answer(p.i, "", err)
			continue
		}
		answer(p.i, r.recorded(ctx, p.w, ok), nil)
	}
	return strings.Join(answers, "\n"), nil
}

// createResult is writeResult with one plain request in the common case
// (createMsg). Anything else (the key exists, or was deleted or purged:
// its last sequence is not 0) goes to writeResult, which tells a
// duplicate from an earlier try of the same write.
func (n *Node) createResult(ctx context.Context, key string, data []byte) (bool, error) {
	reply, err := n.nc.RequestMsgWithContext(ctx, n.createMsg(key, data))
	if err == nil && createdOK(reply) {
		return true, nil
	}
	return n.writeResult(ctx, key, data)
}

// appendBatched appends one field of a batch: its length, then its bytes.
func appendBatched(b, field []byte) []byte {
	return append(binary.AppendUvarint(b, uint64(len(field))), field...)
}

// cutBatched reads one field of a batch.
func cutBatched(b []byte) (field, rest []byte, ok bool) {
	l, k := binary.Uvarint(b)
	if k <= 0 || uint64(len(b)-k) < l {
		return nil, nil, false
	}
	return b[k : k+int(l)], b[k+int(l):], true
}

// refused counts and reports a refusal.
func (r *recorder) refused(op string, ref *errRefused) {
	r.mu.Lock()
	r.stats.Refused[ref.reason]++
	r.stats.RefusedBy[refusalKey(op, ref.reason)]++
	r.mu.Unlock()
	if r.onRefuse != nil {
		r.onRefuse(op, ref.reason, ref.detail)
	}
}

// do runs one operation; it returns the status to answer or an error.
func (r *recorder) do(ctx context.Context, op string, m *nats.Msg) (string, error) {
	n := r.n
	worker := workerOfRequest(m.Subject)
	switch op {
	case recHello:
		if err := r.tap(worker, string(m.Data)); err != nil {
			return "", err
		}
		// The subscription is in place at the server before the worker
		// hears ok and pulls: no delivery goes unheard.
		if err := n.nc.FlushWithContext(ctx); err != nil {
			return "", err
		}
		return recOK, nil
	case recLost:
		k, err := r.lost(ctx, string(m.Data))
		if err != nil {
			return "", err
		}
		return strconv.Itoa(k), nil
	}
	if op == recResults {
		return r.results(ctx, worker, m.Data)
	}
	ack := m.Header.Get(hdrAck)
	if ack == "" {
		return "", refuse(clusterops.RefusedMalformed, "%s request without the delivery it is for", op)
	}
	if op == recResult {
		return r.result(ctx, worker, ack, m.Data)
	}
	h, err := r.check(ctx, worker, ack)
	if err != nil {
		return "", err
	}
	key := resultKey(h.job, h.task)
	switch op {
	case recDiscarded:
		d, err := strconv.Atoi(m.Header.Get(hdrDelivered))
		if err != nil || d != h.delivered {
			return "", refuse(clusterops.RefusedMismatch, "discarded run of %s: delivery %q, the delivery held is %d", key, m.Header.Get(hdrDelivered), h.delivered)
		}
		if err := n.addDiscardedDirect(ctx, key, d); err != nil {
			return "", err
		}
		r.count(func(s *recorderStats) { s.Discarded++ })
		return recOK, nil
	case recFailure:
		seen, err := strconv.Atoi(m.Header.Get(hdrSeen))
		if err != nil || seen < 0 {
			return "", refuse(clusterops.RefusedMalformed, "failure of %s: seen %q", key, m.Header.Get(hdrSeen))
		}
		k, err := n.addFailureDirect(ctx, key, failureRecord{Failures: seen}, string(m.Data))
		if err != nil {
			return "", err
		}
		r.count(func(s *recorderStats) { s.Failures++ })
		return strconv.Itoa(k), nil
	case recSpawn:
		child := m.Header.Get(hdrTask)
		if !isDescendant(child, h.task) || !taskIDPattern.MatchString(child) {
			return "", refuse(clusterops.RefusedBadChild, "child %q handed over under %s, whose children are %s=<i>...", child, key, h.task)
		}
		if h.header.Get(hdrNoSpawn) != "" {
			return "", refuse(clusterops.RefusedNoSpawn, "job %s does not allow its tasks to spawn (child %s)", h.job, child)
		}
		if m.Header.Get(hdrList) != "" {
			// The unit's list first (the checkpoint rule, spawn.go): a
			// re-run publishes it again rather than running it.
			if err := n.appendHanded(ctx, key+handedSuffix, child); err != nil {
				return "", err
			}
		}
		if err := n.publishChild(ctx, h.subject, h.header, h.task, child, h.nonce, m.Data); err != nil {
			return "", err
		}
		r.count(func(s *recorderStats) { s.Spawned++ })
		return recOK, nil
	case recRead:
		// The held task's own records only: a worker's key reads no
		// result, checkpoint or count of any other task, and of its own
		// task's result only whether it is in.
		var kv jetstream.KeyValue
		k := key
		switch m.Header.Get(hdrRead) {
		case readResult:
			kv = n.results
		case readCkpt:
			kv = n.checkpoints
		case readHanded:
			kv, k = n.checkpoints, key+handedSuffix
		case readReran:
			kv, k = n.checkpoints, key+reranSuffix
		case readFailures:
			kv = n.failuresKV
		default:
			return "", refuse(clusterops.RefusedMalformed, "read of %q for %s", m.Header.Get(hdrRead), key)
		}
		e, err := kv.Get(ctx, k)
		switch {
		case isNotFound(err):
			return recNone, nil
		case err != nil:
			return "", err
		case kv == n.results:
			return recOK, nil
		}
		return recOK + "\n" + string(e.Value()), nil
	case recCkpt:
		// The held task's own key only: a worker saves no other task's
		// progress, and none under a lease it lost.
		if _, err := n.checkpoints.Put(ctx, key, m.Data); err != nil {
			return "", err
		}
		r.mu.Lock()
		if len(r.ckpts) > 1<<16 {
			clear(r.ckpts) // a bound: a checkpoint forgotten here stays until its job is deleted
		}
		r.ckpts[key] = true
		r.mu.Unlock()
		return recOK, nil
	}
	return "", refuse(clusterops.RefusedUnknownStep, "operation %q", op)
}

func (r *recorder) count(f func(*recorderStats)) {
	r.mu.Lock()
	f(&r.stats)
	r.mu.Unlock()
}

// workerOfRequest returns the worker named by a request's subject,
// <stream>.rec.<worker>.<op>.
func workerOfRequest(subject string) string {
	var buf [8]string
	f := splitDots(subject, buf[:])
	if len(f) < 4 {
		return ""
	}
	return f[len(f)-2]
}

// splitDots splits s at its dots into buf's room, without allocating (the
// recorder reads a subject or two per task); nil if s has more tokens
// than buf holds.
func splitDots(s string, buf []string) []string {
	k := 0
	for {
		if k == len(buf) {
			return nil
		}
		i := strings.IndexByte(s, '.')
		if i < 0 {
			buf[k] = s
			return buf[:k+1]
		}
		buf[k], s = s[:i], s[i+1:]
		k++
	}
}

// parseAck reads a delivery's reply subject: "$JS.ACK.<stream>.<consumer>.
// <delivered>.<stream seq>.<consumer seq>.<ns>.<pending>", or the newer
// form with a domain and an account hash after "$JS.ACK." and a token at
// the end.
func parseAck(ack string) (stream string, delivered, seq uint64, ok bool) {
	var buf [16]string
	t := splitDots(ack, buf[:])
	if len(t) < 9 || t[0] != "$JS" || t[1] != "ACK" {
		return "", 0, 0, false
	}
	i := 2
	if len(t) >= 11 {
		i = 4
	}
	var err1, err2 error
	delivered, err1 = strconv.ParseUint(t[i+2], 10, 64)
	seq, err2 = strconv.ParseUint(t[i+3], 10, 64)
	return t[i], delivered, seq, err1 == nil && err2 == nil && seq > 0
}
