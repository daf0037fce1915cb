package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/worksteal/worksteal/internal/clusterops"
)

// Job ownership. A person (or CI system) holds a submitter credential
// with a name (worksteal serve credentials add --role submitter --name
// alice), and the node it connects through has WithOwner("alice"). Its jobs'
// ids are "alice.<id>": the owner is the first token of every subject and
// key the job has (ws.task.alice.<id>.>, $KV.ws_jobs.alice.<id>,
// $KV.ws_results.alice.<id>.<task>, ws.cancel.alice.<id>, ...). The server
// lets alice's key publish, read and watch only the subjects and keys under
// her own name (RolePermissionsFor): that is where the authority sits for
// everything a subject names. What a subject does not name -- a purge of
// the task stream or a bucket (its filter is in the request's body), a
// route consumer's deletion (its name is a digest) -- no person may do
// directly: the owner service that serve runs beside the recorder does it
// for them, on <stream>.own.<owner>.<op>, a subject only that owner may
// publish, after checking that the job's first token is that owner.
// RoleAdmin has every submitter right on every job (it sees and cancels
// all); the observer sees every job's record and counts, not its results.

// Owner-service operations (<stream>.own.<owner>.<op>, body: the job id).
const (
	ownPurge  = "purge"  // a new job: purge its subjects and keys (nothing pre-seeded is its own)
	ownEnd    = "end"    // a finished job: purge its task subject, delete its routes
	ownCancel = "cancel" // cancel: mark the record, purge its tasks, delete its routes, stop its running tasks
	ownDelete = "delete" // delete: all of it and the record
	ownRoute  = "route"  // a route of a new or resumed job: create its consumer (body: a routeRequest)
	ownStalls = "stalls" // what its queued tasks wait for (reply: JSON []Stall): a person may not list the routes
)

// routeRequest asks the owner service for one route's consumer. A person
// may not create consumers on the task stream at all: the consumer create
// API names a consumer by a digest the person can compute for any job, so
// a person allowed to create one could re-create (re-filter) another
// person's route and stall that job. serve creates it after checking that
// the job's first token is the asking owner, with the name and filter it
// derives itself from the job, handler and requirements.
type routeRequest struct {
	Job     string `json:"job"`
	Handler string `json:"handler"`
	Require Labels `json:"require,omitempty"`
}

// WithOwner says the node acts for the person (or CI system) name, whose
// credential is a submitter's bound to that name (worksteal serve
// credentials add --role submitter --name NAME): the jobs it submits get
// the id "NAME.<id>", and Open, Cancel and Delete take an id with or without the "NAME." prefix and refuse another
// owner's job (the server refuses it anyway). Purges and route deletions
// go through the owner service of worksteal serve (Record runs it).
func WithOwner(name string) Option {
	return func(o *options) error {
		if !namePattern.MatchString(name) {
			return fmt.Errorf("%w: owner %q: use letters, digits, '-' and '_'", ErrInvalidOption, name)
		}
		o.owner = name
		return nil
	}
}

// ErrNotOwner: a person asked for another person's job.
var ErrNotOwner = errors.New("cluster: not the job's owner")

// ownerOf returns the owner of job id ("alice" of "alice.x"), "" for a
// job of no owner (one submitted by an admin or without roles).
func ownerOf(id string) string {
	owner, _, ok := strings.Cut(id, ".")
	if !ok {
		return ""
	}
	return owner
}

// validJobID says id is a job id: a name, or "<owner>.<name>".
func validJobID(id string) bool {
	owner, rest, ok := strings.Cut(id, ".")
	if !ok {
		return namePattern.MatchString(id)
	}
	return namePattern.MatchString(owner) && namePattern.MatchString(rest)
}

// jobID returns the full id of the job this node names id: its owner's
// prefix added when it has one, and a refusal for another owner's job.
func (n *Node) jobID(id string) (string, error) {
	if !validJobID(id) {
		return "", fmt.Errorf("%w: job id %q: use letters, digits, '-' and '_' (and OWNER. before them)", ErrInvalidJob, id)
	}
	o := n.opts.owner
	if o == "" {
		return id, nil
	}
	if !strings.Contains(id, ".") {
		return o + "." + id, nil
	}
	if owner := ownerOf(id); owner != o {
		return "", fmt.Errorf("%w: job %s belongs to %s; you are %s (only its owner or an admin may list, watch, cancel or read it)", ErrNotOwner, id, owner, o)
	}
	return id, nil
}

func (n *Node) ownSubject(op string) string {
	return n.opts.stream + ".own." + n.opts.owner + "." + op
}

// jobOp does op on job id: directly with a node of no owner, through the
// owner service otherwise.
func (n *Node) jobOp(ctx context.Context, op, id string) error {
	if n.opts.owner == "" {
		switch op {
		case ownPurge:
			return n.purgeJob(ctx, id)
		case ownEnd:
			n.stream.Purge(ctx, jetstream.WithPurgeSubject(n.opts.stream+".task."+id+".>"))
			return n.deleteRoutes(ctx, id)
		case ownCancel:
			return n.cancelJob(ctx, id)
		case ownDelete:
			return n.deleteJob(ctx, id)
		}
		return fmt.Errorf("cluster: unknown job operation %q", op)
	}
	_, err := n.ownRequest(ctx, op, id, []byte(id))
	return err
}

// ownRequest asks the owner service to do op on job id (body: the
// request) and returns its answer.
func (n *Node) ownRequest(ctx context.Context, op, id string, body []byte) ([]byte, error) {
	ctx, cancel := n.timeout(ctx)
	defer cancel()
	reply, err := n.nc.RequestWithContext(ctx, n.ownSubject(op), body)
	// serve sets the tier up before its owner service subscribes: a
	// person's node that bound in between waits for it (within ctx).
	for errors.Is(err, nats.ErrNoResponders) && sleepCtx(ctx, 50*time.Millisecond) {
		reply, err = n.nc.RequestWithContext(ctx, n.ownSubject(op), body)
	}
	if errors.Is(err, nats.ErrNoResponders) {
		return nil, fmt.Errorf("%w: no owner service answers on %s (worksteal serve runs it)", ErrJetStream, n.ownSubject(op))
	}
	if err != nil {
		return nil, err
	}
	if st := reply.Header.Get(hdrStatus); st != recOK {
		if strings.HasPrefix(string(reply.Data), clusterops.RefusedNotOwner) {
			return nil, fmt.Errorf("%w: %s", ErrNotOwner, reply.Data)
		}
		if strings.Contains(string(reply.Data), ErrJobNotFound.Error()) {
			return nil, fmt.Errorf("%w: %q", ErrJobNotFound, id)
		}
		return nil, fmt.Errorf("%w: the owner service: %s", ErrJetStream, reply.Data)
	}
	return reply.Data, nil
}

// serveOwners answers the owner service's requests until ctx is done (see
// Record): a person's job operations that no subject permission can
// bound, checked against the owner the subject names.
func (r *recorder) serveOwners(ctx context.Context) (*nats.Subscription, error) {
	n := r.n
	return n.nc.QueueSubscribe(n.opts.stream+".own.*.*", n.opts.stream+"_owners", func(m *nats.Msg) {
		go func() {
			t := strings.Split(m.Subject, ".")
			owner, op, id := t[len(t)-2], t[len(t)-1], string(m.Data)
			reply := nats.NewMsg(m.Reply)
			var req routeRequest
			var out []byte
			var err error
			if op == ownRoute {
				if err = json.Unmarshal(m.Data, &req); err != nil {
					err = refuse(clusterops.RefusedMalformed, "route request of owner %s: %v", owner, err)
				}
				id = req.Job
			}
			switch {
			case err != nil:
			case !validJobID(id) || ownerOf(id) == "":
				err = refuse(clusterops.RefusedMalformed, "job id %q of owner %s", id, owner)
			case ownerOf(id) != owner:
				err = refuse(clusterops.RefusedNotOwner, "%s asked to %s job %s, which belongs to %s", owner, op, id, ownerOf(id))
			case op == ownRoute && !namePattern.MatchString(req.Handler):
				err = refuse(clusterops.RefusedMalformed, "route of job %s: handler name %q", id, req.Handler)
			case op == ownRoute:
				err = n.createRoute(ctx, route{job: id, handler: req.Handler, require: req.Require})
			case op == ownStalls:
				var stalls []stall
				if stalls, err = n.stalls(ctx, id); err == nil {
					out, err = json.Marshal(stalls)
				}
			case op != ownPurge && op != ownEnd && op != ownCancel && op != ownDelete:
				err = refuse(clusterops.RefusedUnknownStep, "owner service operation %q", op)
			default:
				tctx, cancel := n.timeout(ctx)
				err = n.jobOp(tctx, op, id)
				cancel()
			}
			var ref *errRefused
			switch {
			case errors.As(err, &ref):
				reply.Data = []byte(ref.Error())
				r.refused("own."+op, ref)
			case err != nil:
				reply.Data = []byte(err.Error())
			default:
				reply.Data = out
				reply.Header.Set(hdrStatus, recOK)
			}
			if m.Reply != "" {
				n.nc.PublishMsg(reply)
			}
		}()
	})
}
