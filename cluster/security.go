package cluster

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nkeys"
)

// Role is what a client of the tier may do. Each role has its own
// credentials and its own NATS subject permissions (RolePermissions);
// the table is in the package documentation, "Security".
type Role string

// The roles.
const (
	// RoleWorker pulls tasks, runs them, heartbeats, asks the recorder to
	// record their results and checkpoints, and registers itself; it publishes the children
	// its tasks spawn when it hands them over to idle workers (a task
	// message, see Spawn). It cannot create jobs, read
	// the task stream by sequence, read job records or create, change or
	// delete anything in JetStream.
	RoleWorker Role = "worker"
	// RoleSubmitter sets up the stream, consumer and buckets, submits jobs,
	// follows, cancels and deletes them. It cannot pull or acknowledge
	// tasks.
	RoleSubmitter Role = "submitter"
	// RoleObserver (a dashboard, a monitoring job, job list) reads: stream
	// and consumer state, job records, live workers, worker statuses and
	// start notices. It cannot publish anything but read requests to the
	// JetStream API, creates no consumer and reads no result (no task's
	// output: following a job's results takes RoleSubmitter).
	RoleObserver Role = "observer"
	// RoleAdmin sets up the tier and may list, watch, read, cancel and
	// delete every job, whoever owns it; it submits jobs of no owner. A
	// submitter's key of no name (the role's shared key of a configuration
	// from before per-person keys) has the same permissions.
	RoleAdmin Role = "admin"
)

// Roles lists the roles in the order serve init writes them.
var Roles = []Role{RoleWorker, RoleSubmitter, RoleObserver, RoleAdmin}

// parseRole returns the role named s.
func parseRole(s string) (Role, error) {
	for _, r := range Roles {
		if string(r) == s {
			return r, nil
		}
	}
	return "", fmt.Errorf("%w: role %q: want worker, submitter, observer or admin", ErrInvalidOption, s)
}

// InboxPrefix is the prefix of the role's reply subjects (NATS inboxes).
// Each role may subscribe only to its own prefix, so one role cannot read
// the replies another receives (a worker cannot watch a submitter's
// results or job records through its inbox).
func (r Role) InboxPrefix() string { return "_INBOX_" + string(r) }

// HolderInboxPrefix is the inbox prefix of the holder name of role: a
// person's (a submitter's with a name) is its own, "_INBOX_submitter_NAME",
// so that one person cannot read the replies another receives (her
// results, her job records); the other roles' are the role's.
func HolderInboxPrefix(role Role, name string) string {
	if role == RoleSubmitter && name != "" {
		return role.InboxPrefix() + "_" + name
	}
	return role.InboxPrefix()
}

// binds says the role only uses the stream, consumer and buckets that a
// submitter set up: it may not create or change them.
func (r Role) binds() bool { return r == RoleWorker || r == RoleObserver }

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
func RolePermissionsFor(role Role, stream, name string) (Permissions, error) {
	if name != "" && !namePattern.MatchString(name) {
		return Permissions{}, fmt.Errorf("%w: %s name %q: use letters, digits, '-' and '_'", ErrInvalidOption, role, name)
	}
	if role == RoleSubmitter && name != "" {
		return personPermissions(stream, name)
	}
	p, err := RolePermissions(role, stream)
	if err != nil || name == "" || role != RoleWorker {
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
func RolePermissions(role Role, stream string) (Permissions, error) {
	if !namePattern.MatchString(stream) {
		return Permissions{}, fmt.Errorf("%w: stream name %q: use letters, digits, '-' and '_'", ErrInvalidOption, stream)
	}
	const api = "$JS.API."
	var (
		s           = stream
		tasks       = s + "_tasks"
		results     = "KV_" + s + "_results"
		jobs        = "KV_" + s + "_jobs"
		checkpoints = "KV_" + s + "_checkpoints"
		workers     = "KV_" + s + "_workers"
		failures    = "KV_" + s + "_failures"
		buckets     = []string{results, jobs, checkpoints, workers, failures}
		pub, sub    Subjects
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
	sub.Allow = append(sub.Allow, role.InboxPrefix()+".>")
	switch role {
	case RoleWorker:
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
	case RoleSubmitter, RoleAdmin:
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
	case RoleObserver:
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
			sub.Deny = append(sub.Deny, r.InboxPrefix()+".>")
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
	if !namePattern.MatchString(stream) {
		return Permissions{}, fmt.Errorf("%w: stream name %q: use letters, digits, '-' and '_'", ErrInvalidOption, stream)
	}
	const api = "$JS.API."
	var (
		s       = stream
		tasks   = s + "_tasks"
		results = "KV_" + s + "_results"
		jobs    = "KV_" + s + "_jobs"
		workers = "KV_" + s + "_workers"
		mine    = "." + name + ".>"
		pub     Subjects
		sub     Subjects
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
	sub.Allow = append(sub.Allow, HolderInboxPrefix(RoleSubmitter, name)+".>", s+".started"+mine, s+".ran"+mine)
	for _, r := range Roles {
		sub.Deny = append(sub.Deny, r.InboxPrefix()+".>")
	}
	sub.Deny = append(sub.Deny, "_INBOX.>")
	return Permissions{Publish: pub, Subscribe: sub}, nil
}

// Credentials are the files a client connects with. Secrets are only ever
// read from files (named by flags, or by environment variables: FromEnv),
// never taken as values, so they do not show in a command line, and no
// error or log line quotes a file's contents.
type Credentials struct {
	// Creds is an nkey seed file (written by worksteal serve init) or a
	// NATS credentials file (.creds: a user JWT and its seed, for servers
	// in operator mode).
	Creds string
	// TLSCA is a PEM file of the CA certificate(s) that sign the server's
	// certificate; empty: the system's roots.
	TLSCA string
	// TLSCert and TLSKey are the client's certificate and key, for servers
	// that require mutual TLS.
	TLSCert, TLSKey string
}

// FromEnv returns c with its empty fields taken from the environment, for
// processes started without flags (a systemd unit, a container): Creds
// from WORKSTEAL_CREDS, TLSCA from WORKSTEAL_TLS_CA, TLSCert from
// WORKSTEAL_TLS_CERT and TLSKey from WORKSTEAL_TLS_KEY. They hold file
// names, never secrets: a process's environment is shown by "ps e".
func (c Credentials) FromEnv() Credentials {
	fill := func(v *string, env string) {
		if *v == "" {
			*v = os.Getenv(env)
		}
	}
	fill(&c.Creds, envCreds)
	fill(&c.TLSCA, envTLSCA)
	fill(&c.TLSCert, envTLSCert)
	fill(&c.TLSKey, envTLSKey)
	return c
}

// Holder reads the holder's name and role from the comment that worksteal
// serve init and serve credentials add write at the top of an nkey seed
// file ("# worksteal ROLE credentials of NAME: ..."); ok is false for a
// file without one (a NATS .creds file, a bare seed). A person's node
// acts as WithOwner(name); the name is not a secret, and the server binds
// the key to it whatever the file says.
func (c Credentials) Holder() (name string, role Role, ok bool) {
	if c.Creds == "" {
		return "", "", false
	}
	f, err := os.Open(c.Creds)
	if err != nil {
		return "", "", false
	}
	defer f.Close()
	head := make([]byte, 256)
	k, _ := f.Read(head)
	line, _, _ := strings.Cut(string(head[:k]), "\n")
	rest, found := strings.CutPrefix(line, "# worksteal ")
	if !found {
		return "", "", false
	}
	r, rest, found := strings.Cut(rest, " credentials of ")
	if !found {
		return "", "", false
	}
	name, _, found = strings.Cut(rest, ":")
	if _, err := parseRole(r); err != nil || !found || !namePattern.MatchString(name) {
		return "", "", false
	}
	return name, Role(r), true
}

// ConnectOptions returns the nats.Connect options of a client of the given
// role with credentials c: authentication (nkey challenge signing or user
// JWT), TLS, and the role's inbox prefix. The dashboard, workers and
// submitters all connect through it. A file that is missing or of the
// wrong kind is an error naming the file and the kind expected, never
// quoting it.
func ConnectOptions(role Role, c Credentials) ([]nats.Option, error) {
	var opts []nats.Option
	if role != "" {
		if _, err := parseRole(string(role)); err != nil {
			return nil, err
		}
		prefix := role.InboxPrefix()
		if name, hrole, ok := c.Holder(); ok && hrole == role {
			prefix = HolderInboxPrefix(role, name)
		}
		opts = append(opts, nats.CustomInboxPrefix(prefix))
	}
	if c.Creds != "" {
		if err := secretFile("credentials", envCreds, c.Creds); err != nil {
			return nil, err
		}
		data, err := os.ReadFile(c.Creds)
		if err != nil {
			return nil, fmt.Errorf("credentials: %w", err)
		}
		isJWT := bytes.Contains(data, []byte("BEGIN NATS USER JWT"))
		kp, perr := nkeys.ParseDecoratedNKey(data)
		clear(data)
		if perr != nil {
			return nil, fmt.Errorf("credentials %s: no valid nkey seed in the file (want the file worksteal serve init wrote, or a NATS .creds file)", c.Creds)
		}
		pub, err := kp.PublicKey()
		kp.Wipe()
		if err != nil || !nkeys.IsValidPublicUserKey(pub) {
			return nil, fmt.Errorf("credentials %s: the seed is not a user's (want a seed beginning SU)", c.Creds)
		}
		if isJWT {
			opts = append(opts, nats.UserCredentials(c.Creds))
		} else {
			// The seed file is read again to sign each connect's nonce,
			// so the key is not kept in memory.
			o, err := nats.NkeyOptionFromSeed(c.Creds)
			if err != nil {
				return nil, fmt.Errorf("credentials %s: unreadable nkey seed", c.Creds)
			}
			opts = append(opts, o)
		}
	}
	if c.TLSCA != "" {
		if _, err := os.Stat(c.TLSCA); err != nil {
			return nil, fmt.Errorf("TLS CA: %w", err)
		}
		opts = append(opts, nats.RootCAs(c.TLSCA))
	}
	switch {
	case (c.TLSCert == "") != (c.TLSKey == ""):
		return nil, fmt.Errorf("%w: a TLS client certificate needs both the certificate and its key file", ErrInvalidOption)
	case c.TLSCert != "":
		if err := secretFile("TLS client key", envTLSKey, c.TLSKey); err != nil {
			return nil, err
		}
		for _, f := range []string{c.TLSCert, c.TLSKey} {
			if _, err := os.Stat(f); err != nil {
				return nil, fmt.Errorf("TLS client certificate: %w", err)
			}
		}
		opts = append(opts, nats.ClientCert(c.TLSCert, c.TLSKey))
	}
	return opts, nil
}

// WithRole says which role's credentials the node's connection has, so
// that it does only what the role may (see RolePermissions): a worker or
// an observer uses the stream, consumer and buckets that a submitter set
// up and never creates or changes them (Serve waits for them to exist).
// Without WithRole a node does everything, which suits a
// server without authentication.
func WithRole(r Role) Option {
	return func(o *options) error {
		if _, err := parseRole(string(r)); err != nil {
			return err
		}
		o.role = r
		return nil
	}
}

// ErrNotSetUp: the tier's stream, consumer or buckets do not exist yet, and
// the node's role may not create them (a submitter does, on its first
// Submit).
var ErrNotSetUp = errors.New("cluster: the tier's stream and buckets are not set up yet (a submitter sets them up)")

// bind looks up the stream, consumer and buckets that a submitter set up.
func (n *Node) bind(ctx context.Context) error {
	notSetUp := func(what string, err error) error {
		if errors.Is(err, jetstream.ErrStreamNotFound) || errors.Is(err, jetstream.ErrConsumerNotFound) || errors.Is(err, jetstream.ErrBucketNotFound) {
			return fmt.Errorf("%w: %s does not exist", ErrNotSetUp, what)
		}
		return jsError(what, err)
	}
	if n.opts.owner != "" {
		return n.bindPerson(ctx, notSetUp)
	}
	st, err := n.js.Stream(ctx, n.streamName())
	if err != nil {
		return notSetUp("stream "+n.streamName(), err)
	}
	cons, err := st.Consumer(ctx, n.consumerName())
	if err != nil {
		return notSetUp("consumer "+n.consumerName(), err)
	}
	kvs := make([]jetstream.KeyValue, 5)
	for i, b := range []string{"results", "jobs", "checkpoints", "workers", "failures"} {
		name := n.opts.stream + "_" + b
		if kvs[i], err = n.js.KeyValue(ctx, name); err != nil {
			return notSetUp("bucket "+name, err)
		}
	}
	n.results, n.jobs, n.checkpoints, n.workers, n.failuresKV = kvs[0], kvs[1], kvs[2], kvs[3], kvs[4]
	n.adoptAckWait(cons)
	n.stream, n.consumer, n.ready = st, cons, true
	return nil
}

// bindPerson is bind for a person's node, which may send no stream info
// (personkv.go): the deployment's consumer is looked up by name (its
// info: an ack wait, and counts of a filter no task matches), the
// buckets are used by the subjects of their keys, and the ones a person
// reads answer a direct get. The task stream is not opened: a person's
// node publishes tasks by subject and asks the owner service for the
// rest.
func (n *Node) bindPerson(ctx context.Context, notSetUp func(string, error) error) error {
	cons, err := n.js.Consumer(ctx, n.streamName(), n.consumerName())
	if err != nil {
		return notSetUp("consumer "+n.consumerName(), err)
	}
	kvs := make([]*personKV, 5)
	for i, b := range []string{"results", "jobs", "checkpoints", "workers", "failures"} {
		kvs[i] = newPersonKV(n, n.opts.stream+"_"+b)
	}
	for _, kv := range []*personKV{kvs[0], kvs[1], kvs[3]} {
		if err := kv.exists(ctx, n.opts.owner); err != nil {
			return err
		}
	}
	n.results, n.jobs, n.checkpoints, n.workers, n.failuresKV = kvs[0], kvs[1], kvs[2], kvs[3], kvs[4]
	n.adoptAckWait(cons)
	n.consumer, n.ready = cons, true
	return nil
}

// ensureWaiting is ensure for Serve: a worker that may not set up the tier
// waits for a submitter to, saying so once.
func (n *Node) ensureWaiting(ctx context.Context) error {
	told := false
	for {
		err := n.ensure(ctx)
		if ctx.Err() != nil {
			return nil // stopped while waiting: nothing to serve
		}
		if err == nil {
			return nil
		}
		switch {
		case errors.Is(err, ErrNotSetUp):
			if !told {
				n.opts.onError(fmt.Errorf("%w; waiting", err))
				told = true
			}
		case errors.Is(err, context.DeadlineExceeded) || transient(err):
			// A JetStream cluster still electing its leaders.
			n.opts.onError(fmt.Errorf("cluster: waiting for JetStream: %w", err))
		default:
			return err
		}
		if !sleepCtx(ctx, time.Second) {
			return nil
		}
	}
}

// secretFile checks the name of a file that holds a secret (what, given by
// a flag or by the environment variable env) before it is read: a value
// that is key material rather than a file name is refused without being
// printed, and a file that group or others may read is refused, as ssh
// refuses such a private key (on systems with Unix permissions).
func secretFile(what, env, name string) error {
	if looksLikeKey(name) {
		src := "the value given"
		if os.Getenv(env) == name {
			src = "$" + env
		}
		return fmt.Errorf("%w: %s: %s holds key material, not a file name (not printed): put it in a file only you can read, and give that file's name", ErrInvalidOption, what, src)
	}
	st, err := os.Stat(name)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if runtime.GOOS != "windows" && st.Mode().Perm()&0o077 != 0 {
		return fmt.Errorf("%w: %s %s: readable by group or others (mode %#o): a secret must be readable by its owner only: chmod 600 %s", ErrInvalidOption, what, name, st.Mode().Perm(), name)
	}
	return nil
}

// looksLikeKey says s is key material rather than a file name: an nkey
// seed, a PEM block, or several lines.
func looksLikeKey(s string) bool {
	if strings.ContainsAny(s, "\n\r") || strings.Contains(s, "-----BEGIN") {
		return true
	}
	if _, err := nkeys.ParseDecoratedNKey([]byte(s)); err == nil {
		return true
	}
	return false
}
