package cluster_test

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nkeys"

	"github.com/worksteal/worksteal/cluster"
	"github.com/worksteal/worksteal/internal/clusterops"
	"github.com/worksteal/worksteal/internal/pki"
)

// secureEnv is a deployment's secrets, made fresh for one test: an nkey per
// role (and an admin with every permission, to look behind the roles'
// backs), a CA with a server certificate and a client certificate, and a
// second CA that the server does not trust.
type secureEnv struct {
	dir        string
	seeds      map[cluster.Role]string // seed files
	publics    map[cluster.Role]string
	adminSeed  string
	adminPub   string
	ca         string // CA certificate file
	serverCert string
	serverKey  string
	clientCert string
	clientKey  string
	rogueCert  string // a client certificate from another CA
	rogueKey   string
	secrets    []string // every secret written, to look for in output
}

func newSecureEnv(t testing.TB) *secureEnv {
	t.Helper()
	e := &secureEnv{dir: t.TempDir(), seeds: map[cluster.Role]string{}, publics: map[cluster.Role]string{}}
	write := func(name string, data []byte, secret bool) string {
		p := filepath.Join(e.dir, name)
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		if secret {
			e.secrets = append(e.secrets, string(data))
		}
		return p
	}
	newUser := func(name string) (seedFile, pub string) {
		kp, err := nkeys.CreateUser()
		if err != nil {
			t.Fatal(err)
		}
		seed, _ := kp.Seed()
		pub, _ = kp.PublicKey()
		return write(name+".nk", append(seed, '\n'), true), pub
	}
	for _, r := range allRoles {
		e.seeds[r], e.publics[r] = newUser(string(r))
	}
	e.adminSeed, e.adminPub = newUser("root") // not "admin": that is RoleAdmin's file

	ca, err := pki.NewCA("test CA", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	e.ca = write("ca.pem", ca.CertPEM, false)
	cert, key, err := ca.Issue("server", []string{"127.0.0.1", "localhost"}, pki.Server, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	e.serverCert, e.serverKey = write("server.pem", cert, false), write("server-key.pem", key, true)
	cert, key, err = ca.Issue("client", nil, pki.Client, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	e.clientCert, e.clientKey = write("client.pem", cert, false), write("client-key.pem", key, true)
	rogue, err := pki.NewCA("rogue CA", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	cert, key, err = rogue.Issue("client", nil, pki.Client, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	e.rogueCert, e.rogueKey = write("rogue.pem", cert, false), write("rogue-key.pem", key, true)
	return e
}

// users returns the server's nkey users: one per role with its
// permissions for stream "ws", and the admin with all.
func (e *secureEnv) users(t testing.TB) []*server.NkeyUser {
	t.Helper()
	users, err := e.nkeyUsers()
	if err != nil {
		t.Fatal(err)
	}
	return users
}

func (e *secureEnv) nkeyUsers() ([]*server.NkeyUser, error) {
	users := []*server.NkeyUser{{Nkey: e.adminPub}}
	for _, r := range allRoles {
		p, err := clusterops.RolePermissions(r, "ws")
		if err != nil {
			return nil, err
		}
		users = append(users, &server.NkeyUser{Nkey: e.publics[r], Permissions: &server.Permissions{
			Publish:   &server.SubjectPermission{Allow: p.Publish.Allow, Deny: p.Publish.Deny},
			Subscribe: &server.SubjectPermission{Allow: p.Subscribe.Allow, Deny: p.Subscribe.Deny},
		}})
	}
	return users, nil
}

// tlsConfig is the server's TLS: its certificate, and with verify the
// client certificates it requires (mutual TLS).
func (e *secureEnv) tlsConfig(verify bool) *server.TLSConfigOpts {
	return &server.TLSConfigOpts{CertFile: e.serverCert, KeyFile: e.serverKey, CaFile: e.ca, Verify: verify}
}

// startSecureServer runs a JetStream server with the roles' nkeys and TLS
// (mutual TLS with verify).
func startSecureServer(t testing.TB, e *secureEnv, verify bool) *server.Server {
	t.Helper()
	tc, err := server.GenTLSConfig(e.tlsConfig(verify))
	if err != nil {
		t.Fatal(err)
	}
	o := &server.Options{
		ServerName: "secure", Host: "127.0.0.1", Port: -1,
		JetStream: true, StoreDir: t.TempDir(), NoLog: true, NoSigs: true,
		Nkeys: e.users(t), TLSConfig: tc, TLSVerify: verify, TLSTimeout: 5,
	}
	srv := runServer(t, o)
	e.startRecorder(t, srv)
	return srv
}

// startRecorder runs the tier's recorder (clusterops.Record) on an in-process
// admin connection to srv, as worksteal serve does; it stops with the test.
func (e *secureEnv) startRecorder(t testing.TB, srv *server.Server, opts ...cluster.Option) {
	t.Helper()
	auth, err := nats.NkeyOptionFromSeed(e.adminSeed)
	if err != nil {
		t.Fatal(err)
	}
	nc, err := nats.Connect("", nats.InProcessServer(srv), auth, nats.MaxReconnects(-1))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	n, err := cluster.New(nc, testOptions(append([]cluster.Option{cluster.WithName("recorder")}, opts...)...)...)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := clusterops.Record(ctx, n, func(op, reason, detail string) { t.Logf("recorder refused a %s: %s: %s", op, reason, detail) }); err != nil && ctx.Err() == nil {
			t.Logf("recorder: %v", err)
		}
	}()
	t.Cleanup(func() { cancel(); <-done })
}

// violations collects a connection's asynchronous errors: the server's
// permission refusals arrive this way.
type violations struct {
	mu   sync.Mutex
	errs []string
	seen chan struct{} // signalled on each error
}

func (v *violations) add(err error) {
	v.mu.Lock()
	v.errs = append(v.errs, err.Error())
	v.mu.Unlock()
	select {
	case v.seen <- struct{}{}:
	default:
	}
}

// has says a refusal naming subject was received.
func (v *violations) has(subject string) bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	for _, e := range v.errs {
		if strings.Contains(strings.ToLower(e), "permissions violation") && strings.Contains(e, `"`+subject+`"`) {
			return true
		}
	}
	return false
}

func (v *violations) all() []string {
	v.mu.Lock()
	defer v.mu.Unlock()
	return append([]string(nil), v.errs...)
}

// connectAs connects with a role's credentials (admin for role ""), TLS
// with the client certificate, and collects refusals.
func (e *secureEnv) connectAs(t testing.TB, url string, role cluster.Role) (*nats.Conn, *violations) {
	t.Helper()
	creds := cluster.Credentials{Creds: e.adminSeed, TLSCA: e.ca, TLSCert: e.clientCert, TLSKey: e.clientKey}
	if role != "" {
		creds.Creds = e.seeds[role]
	}
	opts, err := cluster.ConnectOptions(role, creds)
	if err != nil {
		t.Fatal(err)
	}
	v := &violations{seen: make(chan struct{}, 1)}
	opts = append(opts, nats.MaxReconnects(-1), nats.ReconnectWait(50*time.Millisecond),
		nats.ErrorHandler(func(_ *nats.Conn, _ *nats.Subscription, err error) { v.add(err) }))
	nc, err := nats.Connect(url, opts...)
	if err != nil {
		t.Fatalf("connect as %q: %v", role, err)
	}
	t.Cleanup(nc.Close)
	return nc, v
}

// fmt_ renders a value for comparison.
func fmt_(v any) string { b, _ := json.Marshal(v); return string(b) }

// routeTLS makes route certificates signed by a route CA (a CA of their
// own, as serve init makes), and returns the TLS options of a server's
// routes: mutual TLS, each side proving itself with a route certificate.
func (e *secureEnv) routeTLS(t testing.TB, caName string) *server.TLSConfigOpts {
	t.Helper()
	ca, err := pki.NewCA(caName, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	cert, key, err := ca.Issue("route", []string{"127.0.0.1"}, pki.Server, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	o := &server.TLSConfigOpts{CertFile: filepath.Join(dir, "route.pem"), KeyFile: filepath.Join(dir, "route-key.pem"), CaFile: filepath.Join(dir, "route-ca.pem"), Verify: true}
	for f, data := range map[string][]byte{o.CertFile: cert, o.KeyFile: key, o.CaFile: ca.CertPEM} {
		if err := os.WriteFile(f, data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return o
}

// routeTLSConfig is the tls.Config of routes: a server both accepts and
// dials them, so the CA verifies both sides (as nats-server's own
// configuration parser sets it up).
func routeTLSConfig(t testing.TB, o *server.TLSConfigOpts) *tls.Config {
	t.Helper()
	c, err := server.GenTLSConfig(o)
	if err != nil {
		t.Fatal(err)
	}
	c.ClientAuth, c.RootCAs = tls.RequireAndVerifyClientCert, c.ClientCAs
	return c
}

// startSecureCluster runs a 3-server JetStream cluster whose clients
// authenticate with the roles' nkeys over TLS and whose routes are mutual
// TLS; it waits for a meta leader with 3 current peers. It returns the
// servers and the route ports.
func startSecureCluster(t testing.TB, e *secureEnv) ([]*server.Server, []int) {
	t.Helper()
	routeOpts := e.routeTLS(t, "route CA")
	return startClusterWith(t, " over TLS routes", func(o *server.Options) {
		tc, err := server.GenTLSConfig(e.tlsConfig(false))
		if err != nil {
			t.Fatal(err)
		}
		o.Nkeys, o.TLSConfig, o.TLSTimeout = e.users(t), tc, 5
		o.Cluster.TLSConfig, o.Cluster.TLSTimeout = routeTLSConfig(t, routeOpts), 5
	})
}

// allRoles are the roles, in clusterops.Roles' order.
var allRoles = []cluster.Role{cluster.RoleWorker, cluster.RoleSubmitter, cluster.RoleObserver, cluster.RoleAdmin}
