package attacktest

import (
	"os"
	"regexp"
	"testing"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nkeys"

	"github.com/worksteal/worksteal/cmd/worksteal/internal/e2e"
)

// TestFailedLoginsAreLoggedAndCounted: logins the server refuses, tried
// against serve with TLS and nkeys as serve init makes it: an nkey that
// is no holder's (12 times), worker1's public key (it is in server.conf's
// users) signed with another seed, no nkey, each with worker1's real
// client certificate; and worker1's real nkey with a certificate of
// another deployment's CA. serve's log names each once per host and
// credential (then counts), and the dashboard counts them as
// unknown/server/auth-failed and unknown/server/tls-failed.
func TestFailedLoginsAreLoggedAndCounted(t *testing.T) {
	s := e2e.InitSecrets(t, []string{"--mtls"})
	other := e2e.InitSecrets(t, []string{"--mtls"})
	serve, url := s.Serve(t, "--http", "127.0.0.1:0")
	dashURL := e2e.WaitFor(t, serve.Stdout, `dashboard on (http://\S+/)`)[1]

	login := func(what string, certs e2e.Secrets, opts ...nats.Option) {
		t.Helper()
		c := e2e.HolderCreds(certs.Dir(), "worker1")
		opts = append(opts, nats.RootCAs(c.TLSCA), nats.ClientCert(c.TLSCert, c.TLSKey), nats.NoReconnect())
		if nc, err := nats.Connect(url, opts...); err == nil {
			nc.Close()
			t.Fatalf("%s: the server let it log in", what)
		}
	}
	stranger, _ := nkeys.CreateUser()
	strangerKey, _ := stranger.PublicKey()
	for range 12 {
		login("an nkey of no holder", s, nats.Nkey(strangerKey, stranger.Sign))
	}
	seed, err := os.ReadFile(e2e.HolderCreds(s.Dir(), "worker1").Creds)
	if err != nil {
		t.Fatal(err)
	}
	worker1, err := nkeys.ParseDecoratedNKey(seed)
	if err != nil {
		t.Fatal(err)
	}
	worker1Key, _ := worker1.PublicKey()
	login("worker1's public key signed with another seed", s, nats.Nkey(worker1Key, stranger.Sign))
	login("no nkey", s)
	login("another CA's certificate", other, nats.Nkey(worker1Key, worker1.Sign))

	e2e.WaitFor(t, serve.Stderr, `the server refused a login from 127\.0\.0\.1 with nkey `+strangerKey+` \(no holder's\): server/auth-failed\n`)
	e2e.WaitFor(t, serve.Stderr, `the server refused a login from 127\.0\.0\.1 with nkey `+strangerKey+` \(no holder's\) 10 times\n`)
	e2e.WaitFor(t, serve.Stderr, `the server refused a login from 127\.0\.0\.1 with worker1's nkey \(worker\): server/auth-failed\n`)
	e2e.WaitFor(t, serve.Stderr, `the server refused a login from 127\.0\.0\.1 without an nkey: server/auth-failed\n`)
	e2e.WaitFor(t, serve.Stderr, `the server refused a login from 127\.0\.0\.1 whose TLS handshake failed: server/tls-failed \(.*certificate.*\)\n`)
	if n := len(regexp.MustCompile(`with nkey `+strangerKey+` \(no holder's\): `).FindAllString(serve.Stderr.String(), -1)); n != 1 {
		t.Errorf("the stranger's 12 logins logged %d times one by one, want once (then counts):\n%s", n, serve.Stderr)
	}
	refusals := waitRefusals(t, dashURL, map[string]int64{"unknown/server/auth-failed": 14, "unknown/server/tls-failed": 1})
	t.Logf("refusals: %v", refusals)
}
