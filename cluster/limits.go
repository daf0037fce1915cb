package cluster

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/nats-io/nats.go/jetstream"
)

// StorageLimits bound what the tier keeps: the task stream (the tasks
// waiting, by count and by bytes) and the results bucket (by bytes). A
// stream at its limit refuses a new task (JetStream's discard-new policy)
// rather than dropping a waiting one, so a submitter sees ErrStorageFull
// and nothing queued is lost; a full results bucket refuses the
// recorder's write, which the worker retries until there is room (delete
// finished jobs). Zero is no limit.
type StorageLimits struct {
	Tasks       int64 // task messages in the stream
	TaskBytes   int64 // bytes of the task stream
	ResultBytes int64 // bytes of the results bucket
}

// DefaultStorageLimits are worksteal serve's defaults (--max-tasks,
// --max-task-bytes, --max-result-bytes).
var DefaultStorageLimits = StorageLimits{Tasks: 10_000_000, TaskBytes: 4 << 30, ResultBytes: 16 << 30}

// String says the limits as serve reports them.
func (l StorageLimits) String() string {
	n := func(v int64, unit string) string {
		if v <= 0 {
			return "no limit"
		}
		if unit == "B" {
			return fmt.Sprintf("%.1f MiB", float64(v)/(1<<20))
		}
		return fmt.Sprintf("%d %s", v, unit)
	}
	return fmt.Sprintf("task stream %s and %s (a submit past them is refused), results %s", n(l.Tasks, "tasks"), n(l.TaskBytes, "B"), n(l.ResultBytes, "B"))
}

// WithLimits sets the storage limits the node sets up the tier with, and
// applies to a tier set up already (worksteal serve's recorder does; a
// node without WithLimits leaves the limits as they are).
func WithLimits(l StorageLimits) Option {
	return func(o *options) error {
		if l.Tasks < 0 || l.TaskBytes < 0 || l.ResultBytes < 0 {
			return fmt.Errorf("%w: storage limits %+v: must be 0 (no limit) or more", ErrInvalidOption, l)
		}
		o.limits = &l
		return nil
	}
}

// ErrStorageFull: the task stream is at its limit (StorageLimits).
var ErrStorageFull = errors.New("cluster: the task stream is full")

// limitStream sets cfg's limits from the node's, if it has any.
func (n *Node) limitStream(cfg *jetstream.StreamConfig) {
	if l := n.opts.limits; l != nil {
		cfg.MaxMsgs, cfg.MaxBytes, cfg.Discard = or(l.Tasks), or(l.TaskBytes), jetstream.DiscardNew
	}
}

func or(v int64) int64 {
	if v == 0 {
		return -1
	}
	return v
}

// applyLimits updates the limits of a stream set up already, when they
// are not the node's. Only the limits change.
func (n *Node) applyLimits(ctx context.Context, st jetstream.Stream, results bool) (jetstream.Stream, error) {
	l := n.opts.limits
	if l == nil {
		return st, nil
	}
	cfg := st.CachedInfo().Config
	want := cfg
	if results {
		want.MaxBytes, want.Discard = or(l.ResultBytes), jetstream.DiscardNew
	} else {
		n.limitStream(&want)
	}
	if want.MaxBytes == cfg.MaxBytes && want.MaxMsgs == cfg.MaxMsgs && want.Discard == cfg.Discard {
		return st, nil
	}
	return n.js.UpdateStream(ctx, want)
}

// storageFull names a publish refused by a full stream.
func (n *Node) storageFull(err error) error {
	s := err.Error()
	if !strings.Contains(s, "maximum messages exceeded") && !strings.Contains(s, "maximum bytes exceeded") {
		return err
	}
	return fmt.Errorf("%w (%v): the tasks published so far wait and run; run the same job again once they have, to publish the rest (worksteal serve --max-tasks and --max-task-mib set the limits)", ErrStorageFull, err)
}
