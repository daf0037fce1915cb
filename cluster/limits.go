package cluster

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/worksteal/worksteal/internal/clusterops"
)

// withLimits (clusterops.WithLimits) sets the storage limits the node sets up the tier with, and
// applies to a tier set up already (worksteal serve's recorder does; a
// node without WithLimits leaves the limits as they are).
func withLimits(l clusterops.StorageLimits) Option {
	return func(o *options) error {
		if l.Tasks < 0 || l.TaskBytes < 0 || l.ResultBytes < 0 {
			return fmt.Errorf("%w: storage limits %+v: must be 0 (no limit) or more", ErrInvalidOption, l)
		}
		o.limits = &l
		return nil
	}
}

// ErrStorageFull: the task stream is at its limit (worksteal serve --max-tasks, --max-task-mib).
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
