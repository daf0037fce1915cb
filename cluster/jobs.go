package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/nats-io/nats.go/jetstream"
)

func (r jobRecord) info() jobInfo {
	return jobInfo{ID: r.ID, Total: r.Total, Published: r.Published, Created: r.Created, Done: r.Done, Cancelled: r.Cancelled, Reduce: r.Reduce}
}

// listJobs (clusterops.Jobs) lists the recorded jobs, oldest first: a node WithOwner lists its
// owner's only.
func (n *Node) listJobs(ctx context.Context) ([]jobInfo, error) {
	if err := n.ensure(ctx); err != nil {
		return nil, err
	}
	ctx, cancel := n.timeout(ctx)
	defer cancel()
	var out []jobInfo
	if n.opts.owner != "" {
		// A person's records only, from a watch of its own keys: it may
		// not list the bucket's keys (stream info names every job).
		es, err := initialValues(ctx, n.jobs, n.opts.owner+".>")
		if err != nil {
			return nil, err
		}
		for _, e := range es {
			var rec jobRecord
			if json.Unmarshal(e.Value(), &rec) == nil {
				out = append(out, rec.info())
			}
		}
		slices.SortFunc(out, func(a, b jobInfo) int { return a.Created.Compare(b.Created) })
		return out, nil
	}
	keys, err := bucketKeys(ctx, n.js, n.jobs.Bucket())
	if err != nil {
		return nil, err
	}
	for _, k := range keys {
		rec, _, err := n.jobRecordOf(ctx, k)
		if err != nil {
			continue // deleted
		}
		out = append(out, rec.info())
	}
	slices.SortFunc(out, func(a, b jobInfo) int { return a.Created.Compare(b.Created) })
	return out, nil
}

// jobInfo (clusterops.Job) returns the record of one job; ErrJobNotFound if there is none.
func (n *Node) jobInfo(ctx context.Context, id string) (jobInfo, error) {
	id, err := n.jobID(id)
	if err != nil {
		return jobInfo{}, err
	}
	if err := n.ensure(ctx); err != nil {
		return jobInfo{}, err
	}
	ctx, cancel := n.timeout(ctx)
	defer cancel()
	rec, _, err := n.jobRecordOf(ctx, id)
	return rec.info(), err
}

func (n *Node) jobRecordOf(ctx context.Context, id string) (jobRecord, uint64, error) {
	var rec jobRecord
	e, err := n.jobs.Get(ctx, id)
	if isNotFound(err) || errors.Is(err, jetstream.ErrInvalidKey) {
		return rec, 0, fmt.Errorf("%w: %q", ErrJobNotFound, id)
	}
	if err != nil {
		return rec, 0, err
	}
	if err := json.Unmarshal(e.Value(), &rec); err != nil {
		return rec, 0, fmt.Errorf("%w: job %s: unreadable record: %v", ErrJetStream, id, err)
	}
	return rec, e.Revision(), nil
}

// Cancel stops a job: its record says so (its followers' Next and Wait
// return ErrJobCancelled), its queued tasks are removed, and the workers
// stop its running tasks without recording them. The results recorded so
// far stay until Delete. Cancelling a finished job only marks it.
func (n *Node) Cancel(ctx context.Context, id string) error { return n.callerJobOp(ctx, ownCancel, id) }

// callerJobOp does op (ownCancel, ownDelete) on the job the caller names
// id: its owner's prefix added, another owner's job refused (jobID).
func (n *Node) callerJobOp(ctx context.Context, op, id string) error {
	id, err := n.jobID(id)
	if err != nil {
		return err
	}
	if err := n.ensure(ctx); err != nil {
		return err
	}
	return n.jobOp(ctx, op, id)
}

// cancelJob is Cancel's work, done by a node that may purge and delete
// routes (an admin's, or the owner service's for a person).
func (n *Node) cancelJob(ctx context.Context, id string) error {
	ctx, cancel := n.timeout(ctx)
	defer cancel()
	for {
		rec, rev, err := n.jobRecordOf(ctx, id)
		if err != nil {
			return err
		}
		if rec.Cancelled {
			break
		}
		rec.Cancelled = true
		data, _ := json.Marshal(rec)
		if _, err := n.jobs.Update(ctx, id, data, rev); err == nil {
			break
		} else if !errors.Is(err, jetstream.ErrKeyExists) {
			return err
		}
		// Changed meanwhile (a submitter's progress): read it again.
	}
	if err := n.stream.Purge(ctx, jetstream.WithPurgeSubject(n.opts.stream+".task."+id+".>")); err != nil {
		return err
	}
	if err := n.deleteRoutes(ctx, id); err != nil {
		return err
	}
	return n.nc.Publish(n.opts.stream+".cancel."+id, nil)
}
