package e2e

import (
	"path/filepath"
	"testing"
)

// Secrets is a directory that "worksteal serve init" wrote: the server's
// configuration (server.conf), its CA, and each holder's nkey and client
// certificate, as an operator makes them.
type Secrets string

// InitSecrets runs serve init --dir (a new directory of t) --host
// 127.0.0.1 with the flags given (--mtls, --workers w1,w2, ...), then
// serve credentials add --role submitter for each person named, and
// returns the directory.
func InitSecrets(t *testing.T, flags []string, persons ...string) Secrets {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "secrets")
	if code, _, errs := Run(t, "", nil, append([]string{"serve", "init", "--dir", dir, "--host", "127.0.0.1"}, flags...)...); code != 0 {
		t.Fatalf("serve init: exit %d, %s", code, errs)
	}
	s := Secrets(dir)
	s.Add(t, "submitter", persons...)
	return s
}

// Add runs serve credentials add --role role for each name.
func (s Secrets) Add(t *testing.T, role string, names ...string) {
	t.Helper()
	for _, name := range names {
		if code, _, errs := Run(t, "", nil, "serve", "credentials", "add", "--dir", string(s), "--role", role, "--name", name); code != 0 {
			t.Fatalf("credentials add %s: exit %d, %q", name, code, errs)
		}
	}
}

// Dir is the directory.
func (s Secrets) Dir() string { return string(s) }

// Config is the server's configuration file.
func (s Secrets) Config() string { return filepath.Join(string(s), "server.conf") }

// Flags are the command-line flags that give the holder name's
// credentials: --creds, --tls-ca, --tls-cert, --tls-key.
func (s Secrets) Flags(name string) []string {
	c := HolderCreds(string(s), name)
	return []string{"--creds", c.Creds, "--tls-ca", c.TLSCA, "--tls-cert", c.TLSCert, "--tls-key", c.TLSKey}
}

// Serve starts serve --config on a free loopback port with a store of
// its own and the flags given, and returns it and its client URL.
func (s Secrets) Serve(t *testing.T, flags ...string) (*Proc, string) {
	t.Helper()
	p := Start(t, "", nil, append([]string{"serve", "--config", s.Config(), "--listen", "127.0.0.1:0", "--store", filepath.Join(t.TempDir(), "js")}, flags...)...)
	return p, WaitFor(t, p.Stdout, `JetStream on (\S+)`)[1]
}

// As runs worksteal args to the end against url with the holder who's
// credentials (Run, with --nats url and Flags(who) after args).
func (s Secrets) As(t *testing.T, url, who, stdin string, args ...string) (int, string, string) {
	t.Helper()
	return Run(t, stdin, nil, append(append([]string{}, args...), append([]string{"--nats", url}, s.Flags(who)...)...)...)
}
