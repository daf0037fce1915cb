package cluster

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nkeys"

	"github.com/worksteal/worksteal/internal/clusterops"
)

// Role is what a client of the tier may do. Each role has its own
// credentials and its own NATS subject permissions (worksteal serve init
// writes them into the server's users.json); the table is in the package
// documentation, "Security".
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

// parseRole returns the role named s (one of clusterops.Roles, the
// names of the values above).
func parseRole(s string) (Role, error) {
	for _, r := range clusterops.Roles {
		if r == s {
			return Role(r), nil
		}
	}
	return "", fmt.Errorf("%w: role %q: want worker, submitter, observer or admin", ErrInvalidOption, s)
}

// binds says the role only uses the stream, consumer and buckets that a
// submitter set up: it may not create or change them.
func (r Role) binds() bool { return r == RoleWorker || r == RoleObserver }

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
		prefix := clusterops.InboxPrefix(role)
		if name, hrole, ok := c.Holder(); ok && hrole == role {
			prefix = clusterops.HolderInboxPrefix(role, name)
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
// that it does only what the role may (see the package doc, "Security"): a worker or
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
