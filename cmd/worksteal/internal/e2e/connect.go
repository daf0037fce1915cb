package e2e

import (
	"path/filepath"
	"testing"

	"github.com/nats-io/nats.go"

	"github.com/worksteal/worksteal/cluster"
)

// HolderCreds are the real credentials of the holder name that serve init
// or serve credentials add made in dir: name.nk, the cluster's CA and
// name's client certificate and key.
func HolderCreds(dir, name string) cluster.Credentials {
	return cluster.Credentials{Creds: filepath.Join(dir, name+".nk"), TLSCA: filepath.Join(dir, "ca.pem"),
		TLSCert: filepath.Join(dir, name+"-cert.pem"), TLSKey: filepath.Join(dir, name+"-key.pem")}
}

// Connect connects to url in role with creds, as cluster.ConnectOptions
// says, and calls refused with the text of each asynchronous error the
// server sends (a permission it refused), from the connection's own
// goroutine. The connection closes at the end of t.
func Connect(t *testing.T, url string, role cluster.Role, creds cluster.Credentials, refused func(string)) *nats.Conn {
	t.Helper()
	opts, err := cluster.ConnectOptions(role, creds)
	if err != nil {
		t.Fatal(err)
	}
	opts = append(opts, nats.ErrorHandler(func(_ *nats.Conn, _ *nats.Subscription, err error) { refused(err.Error()) }))
	nc, err := nats.Connect(url, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	return nc
}
