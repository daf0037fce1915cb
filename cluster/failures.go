package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/worksteal/worksteal/balance"
)

// defaultAttempts is a job's attempts when Job.MaxAttempts is 0.
const defaultAttempts = 3

// failureRecord is a task's entry in the failures bucket: how many times
// its handler failed (the attempts it has used), and the last error. Only
// a handler's own failure writes it; a lost delivery never does, which is
// how the two are told apart (see the state machine in the package doc).
type failureRecord struct {
	Failures int    `json:"failures"`
	Error    string `json:"error,omitempty"`
}

// failures reads the failures recorded for key; none is 0. Transient
// errors are retried until ctx is done.
func (n *Node) failures(ctx context.Context, key string) (failureRecord, error) {
	for tries := 1; ; tries++ {
		e, err := n.failuresKV.Get(ctx, key)
		if err == nil {
			var f failureRecord
			if err := json.Unmarshal(e.Value(), &f); err != nil {
				return f, fmt.Errorf("cluster: failures of %s: %w", key, err)
			}
			return f, nil
		}
		if isNotFound(err) {
			return failureRecord{}, nil
		}
		if !sleepCtx(ctx, backoffDelay(tries)) {
			return failureRecord{}, err
		}
	}
}

// heldFailures is failures for delivery d, through the recorder for a
// worker that works through one (which answers only for a delivery the
// worker holds); a refusal (the job cancelled or gone) reads as none: the
// run's outcome is refused in turn.
func (n *Node) heldFailures(ctx context.Context, d *delivery) (failureRecord, error) {
	if !n.viaRecorder() {
		return n.failures(ctx, d.key)
	}
	v, ok, err := n.readHeld(ctx, d.msg, readFailures, n.failuresKV, d.key)
	var f failureRecord
	switch {
	case errors.Is(err, errRecorderRefused):
		return f, nil
	case err != nil || !ok:
		return f, err
	}
	if err := json.Unmarshal(v, &f); err != nil {
		return f, fmt.Errorf("cluster: failures of %s: %w", d.key, err)
	}
	return f, nil
}

// addFailure counts one more failure of the handler of delivery d (see
// addFailureDirect); a worker of a server with a recorder asks the
// recorder, which checks d.
func (n *Node) addFailure(ctx context.Context, d delivery, errText string) (int, error) {
	if n.viaRecorder() {
		_, body, err := n.askRecorder(ctx, recFailure, d.msg.Reply, map[string]string{hdrSeen: strconv.Itoa(d.seen.Failures)}, []byte(errText))
		if err != nil {
			return 0, err
		}
		return strconv.Atoi(string(body))
	}
	return n.addFailureDirect(ctx, d.key, d.seen, errText)
}

// addFailureDirect counts one more failure of key's handler, from the count the
// delivery saw (seen): a compare-and-set, so two copies failing at once
// count twice. It returns the new count. Retried until ctx is done.
func (n *Node) addFailureDirect(ctx context.Context, key string, seen failureRecord, errText string) (int, error) {
	for tries := 1; ; tries++ {
		cur, rev, err := n.failureEntry(ctx, key)
		if err == nil {
			next := failureRecord{Failures: max(cur.Failures, seen.Failures) + 1, Error: errText}
			data, _ := json.Marshal(next)
			if rev == 0 {
				_, err = n.failuresKV.Create(ctx, key, data)
			} else {
				_, err = n.failuresKV.Update(ctx, key, data, rev)
			}
			if err == nil {
				return next.Failures, nil
			}
		}
		if !sleepCtx(ctx, backoffDelay(tries)) {
			return 0, err
		}
	}
}

func (n *Node) failureEntry(ctx context.Context, key string) (failureRecord, uint64, error) {
	e, err := n.failuresKV.Get(ctx, key)
	if isNotFound(err) {
		return failureRecord{}, 0, nil
	}
	if err != nil {
		return failureRecord{}, 0, err
	}
	var f failureRecord
	json.Unmarshal(e.Value(), &f)
	return f, e.Revision(), nil
}

// retryDelay is the wait before the next attempt of a task whose handler
// failed for the k-th time: the job's RetryDelay doubling per failure up
// to a minute, the way the local runner waits, or the node's backoff for a
// job that sets none; jittered.
func (n *Node) retryDelay(h nats.Header, k int) time.Duration {
	b := n.opts.backoff
	if ns, err := strconv.ParseInt(h.Get(hdrRetryDelay), 10, 64); err == nil && ns > 0 {
		b = balance.Backoff{Initial: time.Duration(ns), Max: time.Minute, Multiplier: 2, Jitter: 0.5}
	}
	lo, hi := b.Wait(k)
	return lo + rand.N(hi-lo+1)
}
