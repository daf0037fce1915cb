package clusterops

import (
	"fmt"
	"slices"

	"github.com/worksteal/worksteal/internal/clusterwire"
)

// The roles of package cluster (cluster.Role's values), by name.
const (
	roleWorker    = "worker"
	roleSubmitter = "submitter"
	roleObserver  = "observer"
	roleAdmin     = "admin"
)

// api prefixes the subjects of JetStream's API requests.
const api = "$JS.API."

// tierNames are the JetStream streams of a tier: its task stream and the
// streams of its buckets.
type tierNames struct{ tasks, results, jobs, checkpoints, workers, failures string }

// namesOf returns the streams of the tier named stream (cluster.WithStream),
// or an error naming a stream name that is not one.
func namesOf(stream string) (tierNames, error) {
	if !clusterwire.NamePattern.MatchString(stream) {
		return tierNames{}, fmt.Errorf("%w: stream name %q: use letters, digits, '-' and '_'", ErrInvalidOption, stream)
	}
	kv := func(bucket string) string { return "KV_" + stream + "_" + bucket }
	return tierNames{tasks: stream + "_tasks", results: kv("results"), jobs: kv("jobs"), checkpoints: kv("checkpoints"), workers: kv("workers"), failures: kv("failures")}, nil
}

// Roles lists the roles in the order serve init writes them.
var Roles = []string{roleWorker, roleSubmitter, roleObserver, roleAdmin}

// InboxPrefix is the prefix of role's reply subjects (NATS inboxes).
// Each role may subscribe only to its own prefix, so one role cannot read
// the replies another receives (a worker cannot watch a submitter's
// results or job records through its inbox).
func InboxPrefix[R ~string](role R) string { return "_INBOX_" + string(role) }

// HolderInboxPrefix is the inbox prefix of the holder name of role: a
// person's (a submitter's with a name) is its own, "_INBOX_submitter_NAME",
// so that one person cannot read the replies another receives (her
// results, her job records); the other roles' are the role's.
func HolderInboxPrefix[R ~string](role R, name string) string {
	if string(role) == roleSubmitter && name != "" {
		return InboxPrefix(role) + "_" + name
	}
	return InboxPrefix(role)
}

// Subjects lists NATS subjects (wildcards allowed) that a role may, or may
// not, use.
type Subjects struct {
	Allow []string `json:"allow,omitempty"`
	Deny  []string `json:"deny,omitempty"`
}

// Permissions are a role's NATS permissions: the subjects it may publish
// to (JetStream API requests included) and subscribe to. Anything not
// allowed is refused by the server.
type Permissions struct {
	Publish   Subjects `json:"publish"`
	Subscribe Subjects `json:"subscribe"`
}

// RolePermissionsFor returns the permissions of one named holder of role:
// RolePermissions, except that a worker named name may write only its own
// registry entry (key name of the workers bucket), send idle signals
// only as itself (<stream>.idle.name), ask the recorder only as itself
// (<stream>.rec.name.*), receive only its own deliveries
// (<stream>.dlv.name.>), say its held lists and hellos only as itself
// (<stream>.held.name.*, <stream>.hello.name) and hear only its own
// pings (<stream>.alive.name.*), so that it cannot register, lure work
// away, record, ack or nak another worker's task, or speak or answer for
// a frozen or dead peer under another name (worksteal serve credentials
// add gives each worker its own key so bound). An empty name is
// RolePermissions.
func RolePermissionsFor[R ~string](role R, stream, name string) (Permissions, error) {
	return rolePermissionsFor(string(role), stream, name)
}

func rolePermissionsFor(role, stream, name string) (Permissions, error) {
	if name != "" && !clusterwire.NamePattern.MatchString(name) {
		return Permissions{}, fmt.Errorf("%w: %s name %q: use letters, digits, '-' and '_'", ErrInvalidOption, role, name)
	}
	if role == roleSubmitter && name != "" {
		return personPermissions(stream, name)
	}
	p, err := rolePermissions(role, stream)
	if err != nil || name == "" || role != roleWorker {
		return p, err
	}
	for i, a := range p.Publish.Allow {
		switch a {
		case "$KV." + stream + "_workers.>":
			p.Publish.Allow[i] = "$KV." + stream + "_workers." + name // its own registry entry
		case stream + ".idle.>":
			p.Publish.Allow[i] = stream + ".idle." + name // idle signals as itself
		case stream + ".held.*.*":
			p.Publish.Allow[i] = stream + ".held." + name + ".*" // held lists as itself: nobody speaks for a frozen peer
		case stream + ".hello.*":
			p.Publish.Allow[i] = stream + ".hello." + name // hellos as itself
		case stream + ".rec.*.*":
			p.Publish.Allow[i] = stream + ".rec." + name + ".*" // the recorder hears it as itself
		}
	}
	for i, a := range p.Subscribe.Allow {
		switch a {
		case stream + ".dlv.>":
			p.Subscribe.Allow[i] = stream + ".dlv." + name + ".>" // the tasks delivered to it, no other's
		case stream + ".alive.*.*":
			p.Subscribe.Allow[i] = stream + ".alive." + name + ".*" // its own pings: nobody answers for a dead peer
		}
	}
	return p, nil
}

// RolePermissions returns the least-privilege NATS permissions of role for
// the tier named stream (WithStream; "ws" by default). They are derived
// from the subjects this package uses and nothing else; the table in the
// package documentation lists them with the reason for each.
func RolePermissions[R ~string](role R, stream string) (Permissions, error) {
	return rolePermissions(string(role), stream)
}

func rolePermissions(role, stream string) (Permissions, error) {
	n, err := namesOf(stream)
	if err != nil {
		return Permissions{}, err
	}
	var (
		s                                                    = stream
		tasks, results, jobs, checkpoints, workers, failures = n.tasks, n.results, n.jobs, n.checkpoints, n.workers, n.failures
		buckets                                              = []string{results, jobs, checkpoints, workers, failures}
		pub, sub                                             Subjects
	)
	// Publishing is an allow list: anything else is refused (the tests try
	// the refusals that matter one by one). No publish deny list: it would
	// be redundant, and the server checks it on every message whose subject
	// it has not cached (acks and result keys are all new subjects), which
	// cost measurable CPU.
	//
	// Every role may look the tier up (stream and consumer state, counts:
	// no payloads) and receive replies on its own inbox.
	pub.Allow = append(pub.Allow, api+"INFO", api+"STREAM.INFO."+tasks, api+"CONSUMER.INFO."+tasks+".*")
	for _, b := range buckets {
		pub.Allow = append(pub.Allow, api+"STREAM.INFO."+b)
	}
	sub.Allow = append(sub.Allow, InboxPrefix(role)+".>")
	switch role {
	case roleWorker:
		pub.Allow = append(pub.Allow,
			api+"CONSUMER.MSG.NEXT."+tasks+".*", // pull tasks
			api+"CONSUMER.LIST."+tasks,          // find the routes it can serve
			s+".rec.*.*",                        // ask the recorder (as itself only, with a name: RolePermissionsFor) to record a result, count a failure or a discarded run, save or read a checkpoint, hand a child over, ack, nak, hand a lost peer's tasks back; whether a held task's result is in, its failures

			"$KV."+s+"_workers.>",          // register, deregister
			api+"DIRECT.GET."+workers+".>", // live workers: the peers it watches (failover)
			s+".started.>",                 // start notices
			s+".status.*",                  // its status, for the dashboard
			s+".ran.>",                     // runs whose result was a duplicate
			s+".idle.>",                    // say it is idle (as itself only, with a name: RolePermissionsFor)
			s+".held.*.*", s+".hello.*",    // failover: say what it holds, that it serves (as itself only, with a name: RolePermissionsFor)
			s+".alive.*.*", // failover: ping a watched peer
		)
		sub.Allow = append(sub.Allow, s+".dlv.>")                                  // its deliveries (its own only, with a name: RolePermissionsFor)
		sub.Allow = append(sub.Allow, s+".cancel.>", s+".routes", s+".idle.>")     // stop a copy that lost its race; hear of new routes; of idle workers
		sub.Allow = append(sub.Allow, s+".held.*.*", s+".hello.*", s+".alive.*.*") // failover: watched peers' held lists and hellos; be pinged (as itself only, with a name)
	case roleSubmitter, roleAdmin:
		for _, st := range append([]string{tasks}, buckets...) {
			pub.Allow = append(pub.Allow, api+"STREAM.CREATE."+st, api+"STREAM.UPDATE."+st) // set up
		}
		pub.Allow = append(pub.Allow,
			api+"CONSUMER.CREATE."+tasks+"."+s+"_workers", // set up the workers' consumer
			api+"CONSUMER.CREATE."+tasks+"."+s+"_workers.>",
			api+"CONSUMER.CREATE."+tasks+".*."+s+".task.>", // a route's consumer: filtered on task subjects only
			api+"CONSUMER.LIST."+tasks,                     // a job's routes, to delete them when it ends
			api+"CONSUMER.DELETE."+tasks+".*",
			s+".routes",                         // tell the workers of a new route
			s+".task.>",                         // publish tasks
			s+".cancel.>",                       // stop the losing copy of a task
			"$KV."+s+"_jobs.>",                  // job records
			api+"DIRECT.GET."+jobs+".>",         // read job records
			api+"DIRECT.GET."+results+".>",      // read results
			api+"DIRECT.GET."+workers+".>",      // read live workers
			api+"CONSUMER.CREATE."+results+".>", // watch results
			api+"CONSUMER.CREATE."+jobs+".>",    // list jobs
			api+"CONSUMER.CREATE."+workers+".>", // list workers
			api+"CONSUMER.DELETE."+results+".*", // and end these read cursors
			api+"CONSUMER.DELETE."+jobs+".*",
			api+"CONSUMER.DELETE."+workers+".*",
			api+"CONSUMER.INFO."+results+".>",
			api+"CONSUMER.INFO."+jobs+".>",
			api+"CONSUMER.INFO."+workers+".>",
			"$JS.FC."+results+".>", // flow control of the watches
			"$JS.FC."+jobs+".>",
			"$JS.FC."+workers+".>",
			api+"STREAM.PURGE."+tasks,       // delete a job: its queued tasks,
			api+"STREAM.PURGE."+results,     // its results,
			api+"STREAM.PURGE."+checkpoints, // checkpoints
			api+"STREAM.PURGE."+failures,    // and failure counts
		)
		sub.Allow = append(sub.Allow, s+".started.>", s+".ran.>") // start notices (progress, speculation), duplicate runs
	case roleObserver:
		// Reads only, and no consumer: a consumer's config (durable or
		// not, its deliver subject) is in the request's body, which NATS
		// permissions do not see, and the server does not check a deliver
		// subject against its creator's permissions; so a role that may
		// create a read cursor may also make a durable consumer, or one
		// that delivers onto ws.routes. Lists come from stream info (the
		// per-subject counts), records from direct gets. No results
		// either: they hold the tasks' outputs.
		pub.Allow = append(pub.Allow,
			api+"CONSUMER.LIST."+tasks, api+"CONSUMER.NAMES."+tasks, // the routes
			api+"DIRECT.GET."+jobs+".>",    // job records
			api+"DIRECT.GET."+workers+".>", // live workers
		)
		// The dashboard's Observer (observe.go) reads the same way.
		obsPub, obsSub := ObserverPermissions(stream)
		for _, a := range obsPub {
			if !slices.Contains(pub.Allow, a) {
				pub.Allow = append(pub.Allow, a)
			}
		}
		for _, a := range append([]string{s + ".started.>", s + ".ran.>"}, obsSub...) {
			if !slices.Contains(sub.Allow, a) {
				sub.Allow = append(sub.Allow, a)
			}
		}
	default:
		return Permissions{}, fmt.Errorf("%w: role %q: want worker, submitter, observer or admin", ErrInvalidOption, role)
	}
	// Other roles' inboxes.
	for _, r := range Roles {
		if r != role {
			sub.Deny = append(sub.Deny, InboxPrefix(r)+".>")
		}
	}
	sub.Deny = append(sub.Deny, "_INBOX.>")
	return Permissions{Publish: pub, Subscribe: sub}, nil
}

// personPermissions are the permissions of the person (or CI system) name,
// a submitter bound to that name: every subject and key of its jobs begins
// with "<name>." (WithOwner), and it may publish, read and watch only
// those; what no subject can bound (purges, route deletions) it asks of
// the owner service on <stream>.own.<name>.<op>. It sets nothing up.
func personPermissions(stream, name string) (Permissions, error) {
	n, err := namesOf(stream)
	if err != nil {
		return Permissions{}, err
	}
	var (
		s                             = stream
		tasks, results, jobs, workers = n.tasks, n.results, n.jobs, n.workers
		mine                          = "." + name + ".>"
		pub, sub                      Subjects
	)
	// No stream info (its subjects_filter lists every job's subjects
	// with their counts, personkv.go), no account info (counts of every
	// stream and consumer), no route's info and no list of the routes
	// (their metadata and counts name every job), no info of a bucket's
	// consumers (a watch's filter names its job). The owner service
	// makes a person's routes and says what they wait for (owner.go).
	// The deployment's consumer's info is the ack wait, and counts of a
	// filter that no task matches.
	pub.Allow = append(pub.Allow, api+"CONSUMER.INFO."+tasks+"."+s+"_workers")
	pub.Allow = append(pub.Allow,
		s+".routes",           // tell the workers of a new route
		s+".task"+mine,        // publish its jobs' tasks
		s+".cancel"+mine,      // stop the losing copy of one of its tasks
		"$KV."+s+"_jobs"+mine, // its job records
		api+"DIRECT.GET."+jobs+".$KV."+s+"_jobs"+mine,              // read them
		api+"DIRECT.GET."+results+".$KV."+s+"_results"+mine,        // read its results
		api+"DIRECT.GET."+workers+".>",                             // read live workers
		api+"CONSUMER.CREATE."+results+".*.$KV."+s+"_results"+mine, // watch its results (the filter is in the subject, and the server checks the body's against it)
		api+"CONSUMER.CREATE."+jobs+".*.$KV."+s+"_jobs"+mine,       // watch its job records
		api+"CONSUMER.CREATE."+workers+".>",                        // list workers
		api+"CONSUMER.DELETE."+results+".*", api+"CONSUMER.DELETE."+jobs+".*", api+"CONSUMER.DELETE."+workers+".*",
		"$JS.FC."+results+".>", "$JS.FC."+jobs+".>", "$JS.FC."+workers+".>",
		s+".own."+name+".*", // purge, end, cancel, delete its own jobs (the owner service)
	)
	sub.Allow = append(sub.Allow, HolderInboxPrefix(roleSubmitter, name)+".>", s+".started"+mine, s+".ran"+mine)
	for _, r := range Roles {
		sub.Deny = append(sub.Deny, InboxPrefix(r)+".>")
	}
	sub.Deny = append(sub.Deny, "_INBOX.>")
	return Permissions{Publish: pub, Subscribe: sub}, nil
}
