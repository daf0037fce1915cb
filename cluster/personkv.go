package cluster

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// A person's node works without stream info. A stream info request may
// carry a subjects_filter in its body, and the server answers it with the
// stream's subjects matching the filter and a count for each: on the task
// stream and the buckets, every job's id and task ids, whoever owns them.
// NATS permissions see the subject of a request, never its body, so the
// only way to keep a person from that list is to give a person no stream
// info at all (personPermissions). The JetStream client asks for stream
// info to open a stream or a bucket (jetstream.KeyValue), so a person's
// node opens neither: it reads, writes and watches the buckets with the
// requests whose subject names the key, which the server bounds to the
// person's own keys:
//
//   - a read is a direct get by subject ($JS.API.DIRECT.GET.<stream>.<key>;
//     the server refuses a body that asks for a sequence, a batch or
//     another subject in that form);
//   - a write is a publish on the key's subject ($KV.<bucket>.<key>), with
//     the expected last sequence of a compare-and-set in a header;
//   - a watch is an ordered push consumer whose filter is in the create
//     request's subject, which the server checks against the body's.
//
// What a person learns of the tier is then what its own keys hold, the
// worker registry (every role may read it: names, handlers, labels), and
// the counts the owner service gives it for its own jobs (stalls).

// errPersonKV: an operation a person's node does not do on a bucket.
var errPersonKV = errors.New("cluster: not available to a person's node (no stream info: see personPermissions)")

// personKV is a bucket as a person's node uses it (see above). It
// implements jetstream.KeyValue; what a person does not do (history,
// listings of the whole bucket, status) returns errPersonKV.
type personKV struct {
	nc     *nats.Conn
	js     jetstream.JetStream
	bucket string

	once sync.Once
	push nats.JetStreamContext
	err  error
}

func newPersonKV(n *Node, bucket string) *personKV {
	return &personKV{nc: n.nc, js: n.js, bucket: bucket}
}

func (kv *personKV) stream() string { return "KV_" + kv.bucket }
func (kv *personKV) subject(key string) string {
	return "$KV." + kv.bucket + "." + key
}

// Bucket returns the bucket's name.
func (kv *personKV) Bucket() string { return kv.bucket }

// Get reads key's last value by a direct get that names it.
func (kv *personKV) Get(ctx context.Context, key string) (jetstream.KeyValueEntry, error) {
	if !validKVKey(key) {
		return nil, jetstream.ErrInvalidKey
	}
	m, err := kv.nc.RequestWithContext(ctx, "$JS.API.DIRECT.GET."+kv.stream()+"."+kv.subject(key), nil)
	if err != nil {
		return nil, err
	}
	switch st := m.Header.Get("Status"); st {
	case "":
	case "404":
		return nil, jetstream.ErrKeyNotFound
	default:
		return nil, fmt.Errorf("%w: direct get of %s in %s: status %s %s", ErrJetStream, key, kv.bucket, st, m.Header.Get("Description"))
	}
	seq, err := strconv.ParseUint(m.Header.Get(jetstream.SequenceHeader), 10, 64)
	if err != nil {
		return nil, fmt.Errorf("%w: direct get of %s in %s: no sequence", ErrJetStream, key, kv.bucket)
	}
	created, _ := time.Parse(time.RFC3339Nano, m.Header.Get(jetstream.TimeStampHeaer))
	e := &personEntry{bucket: kv.bucket, key: key, value: m.Data, revision: seq, created: created, op: kvOp(m.Header)}
	if e.op != jetstream.KeyValuePut {
		return e, jetstream.ErrKeyDeleted
	}
	return e, nil
}

// Put writes key.
func (kv *personKV) Put(ctx context.Context, key string, value []byte) (uint64, error) {
	return kv.put(ctx, key, value, nil)
}

// PutString writes key.
func (kv *personKV) PutString(ctx context.Context, key string, value string) (uint64, error) {
	return kv.Put(ctx, key, []byte(value))
}

// Create writes key if it has no value (a deleted key is written over).
func (kv *personKV) Create(ctx context.Context, key string, value []byte, _ ...jetstream.KVCreateOpt) (uint64, error) {
	rev, err := kv.Update(ctx, key, value, 0)
	if err == nil || !errors.Is(err, jetstream.ErrKeyExists) {
		return rev, err
	}
	if e, gerr := kv.Get(ctx, key); errors.Is(gerr, jetstream.ErrKeyDeleted) {
		return kv.Update(ctx, key, value, e.Revision())
	}
	return 0, err
}

// Update writes key if its last revision is revision: the server checks
// the expected last sequence of the key's subject; a mismatch is
// jetstream.ErrKeyExists, as jetstream's.
func (kv *personKV) Update(ctx context.Context, key string, value []byte, revision uint64) (uint64, error) {
	h := nats.Header{}
	h.Set(jetstream.ExpectedLastSubjSeqHeader, strconv.FormatUint(revision, 10))
	return kv.put(ctx, key, value, h)
}

func (kv *personKV) put(ctx context.Context, key string, value []byte, h nats.Header) (uint64, error) {
	if !validKVKey(key) {
		return 0, jetstream.ErrInvalidKey
	}
	m := nats.NewMsg(kv.subject(key))
	if h != nil {
		m.Header = h
	}
	m.Data = value
	pa, err := kv.js.PublishMsg(ctx, m)
	if err != nil {
		return 0, err
	}
	return pa.Sequence, nil
}

// Delete is not a person's: the recorder and the owner service remove
// records.
func (kv *personKV) Delete(context.Context, string, ...jetstream.KVDeleteOpt) error {
	return errPersonKV
}

// Purge is not a person's either.
func (kv *personKV) Purge(context.Context, string, ...jetstream.KVDeleteOpt) error {
	return errPersonKV
}

// Watch follows the keys matching keys (wildcards allowed): their last
// values, a nil entry once those are in, then every change, as
// jetstream's. Options are not taken.
func (kv *personKV) Watch(ctx context.Context, keys string, opts ...jetstream.WatchOpt) (jetstream.KeyWatcher, error) {
	if len(opts) > 0 {
		return nil, errPersonKV
	}
	kv.once.Do(func() { kv.push, kv.err = kv.nc.JetStream() })
	if kv.err != nil {
		return nil, kv.err
	}
	pre := "$KV." + kv.bucket + "."
	w := &personWatcher{updates: make(chan jetstream.KeyValueEntry, 256)}
	update := func(m *nats.Msg) {
		meta, err := m.Metadata()
		if err != nil || len(m.Subject) <= len(pre) {
			return
		}
		w.mu.Lock()
		defer w.mu.Unlock()
		w.updates <- &personEntry{bucket: kv.bucket, key: m.Subject[len(pre):], value: m.Data, revision: meta.Sequence.Stream,
			created: meta.Timestamp, delta: meta.NumPending, op: kvOp(m.Header)}
		if !w.initDone {
			w.received++
			if w.received >= w.initPending || meta.NumPending == 0 {
				w.initDone = true
				w.updates <- nil
			}
		}
	}
	// Created under mu, so that update waits for the initial count.
	w.mu.Lock()
	defer w.mu.Unlock()
	// BindStream: no lookup of the stream by subject (a stream list).
	sub, err := kv.push.Subscribe(pre+keys, update, nats.BindStream(kv.stream()), nats.OrderedConsumer(), nats.DeliverLastPerSubject(), nats.Context(ctx))
	if err != nil {
		return nil, err
	}
	sub.SetClosedHandler(func(string) {
		w.mu.Lock()
		defer w.mu.Unlock()
		close(w.updates)
	})
	if pending, err := sub.InitialConsumerPending(); err == nil {
		if pending == 0 {
			w.initDone = true
			w.updates <- nil
		} else {
			w.initPending = pending
		}
	}
	w.sub = sub
	return w, nil
}

// WatchAll follows every key.
func (kv *personKV) WatchAll(ctx context.Context, opts ...jetstream.WatchOpt) (jetstream.KeyWatcher, error) {
	return kv.Watch(ctx, ">", opts...)
}

// WatchFiltered follows the keys matching one filter.
func (kv *personKV) WatchFiltered(ctx context.Context, keys []string, opts ...jetstream.WatchOpt) (jetstream.KeyWatcher, error) {
	if len(keys) != 1 {
		return nil, errPersonKV
	}
	return kv.Watch(ctx, keys[0], opts...)
}

// What a person's node does not do.
func (kv *personKV) GetRevision(context.Context, string, uint64) (jetstream.KeyValueEntry, error) {
	return nil, errPersonKV
}
func (kv *personKV) Keys(context.Context, ...jetstream.WatchOpt) ([]string, error) {
	return nil, errPersonKV
}
func (kv *personKV) ListKeys(context.Context, ...jetstream.WatchOpt) (jetstream.KeyLister, error) {
	return nil, errPersonKV
}
func (kv *personKV) ListKeysFiltered(context.Context, ...string) (jetstream.KeyLister, error) {
	return nil, errPersonKV
}
func (kv *personKV) History(context.Context, string, ...jetstream.WatchOpt) ([]jetstream.KeyValueEntry, error) {
	return nil, errPersonKV
}
func (kv *personKV) PurgeDeletes(context.Context, ...jetstream.KVPurgeOpt) error { return errPersonKV }
func (kv *personKV) Status(context.Context) (jetstream.KeyValueStatus, error) {
	return nil, errPersonKV
}

// exists says the bucket's stream answers: a direct get of a key of
// owner's (found or not) is answered by the stream; no responders, by
// the server when there is no stream.
func (kv *personKV) exists(ctx context.Context, owner string) error {
	_, err := kv.Get(ctx, owner+"._")
	if err == nil || isNotFound(err) {
		return nil
	}
	if errors.Is(err, nats.ErrNoResponders) {
		return fmt.Errorf("%w: bucket %s does not exist", ErrNotSetUp, kv.bucket)
	}
	return err
}

// initialValues returns the entries of kv matching filter as they are
// now (deleted keys left out): the last value of each, from a watch
// stopped once they are in.
func initialValues(ctx context.Context, kv jetstream.KeyValue, filter string) ([]jetstream.KeyValueEntry, error) {
	w, err := kv.Watch(ctx, filter)
	if err != nil {
		return nil, err
	}
	defer w.Stop()
	var out []jetstream.KeyValueEntry
	for {
		select {
		case e, ok := <-w.Updates():
			if !ok {
				return nil, fmt.Errorf("%w: the watch of %s ended early", ErrJetStream, kv.Bucket())
			}
			if e == nil {
				return out, nil
			}
			if e.Operation() == jetstream.KeyValuePut {
				out = append(out, e)
			}
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

func validKVKey(key string) bool {
	return key != "" && !strings.ContainsAny(key, " \t\r\n*>") && !strings.HasPrefix(key, ".") && !strings.HasSuffix(key, ".")
}

func kvOp(h nats.Header) jetstream.KeyValueOp {
	switch h.Get("KV-Operation") {
	case "DEL":
		return jetstream.KeyValueDelete
	case "PURGE":
		return jetstream.KeyValuePurge
	}
	switch h.Get(jetstream.MarkerReasonHeader) {
	case "MaxAge", "Purge":
		return jetstream.KeyValuePurge
	case "Remove":
		return jetstream.KeyValueDelete
	}
	return jetstream.KeyValuePut
}

// personEntry is an entry a personKV read.
type personEntry struct {
	bucket, key     string
	value           []byte
	revision, delta uint64
	created         time.Time
	op              jetstream.KeyValueOp
}

func (e *personEntry) Bucket() string                  { return e.bucket }
func (e *personEntry) Key() string                     { return e.key }
func (e *personEntry) Value() []byte                   { return e.value }
func (e *personEntry) Revision() uint64                { return e.revision }
func (e *personEntry) Created() time.Time              { return e.created }
func (e *personEntry) Delta() uint64                   { return e.delta }
func (e *personEntry) Operation() jetstream.KeyValueOp { return e.op }

// personWatcher is a personKV's watch.
type personWatcher struct {
	mu          sync.Mutex
	updates     chan jetstream.KeyValueEntry
	sub         *nats.Subscription
	initDone    bool
	initPending uint64
	received    uint64
}

func (w *personWatcher) Updates() <-chan jetstream.KeyValueEntry { return w.updates }
func (w *personWatcher) Stop() error                             { return w.sub.Unsubscribe() }
