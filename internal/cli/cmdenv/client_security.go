package cmdenv

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/nats-io/nats.go"
	"github.com/spf13/pflag"

	"github.com/worksteal/worksteal/cluster"
	"github.com/worksteal/worksteal/internal/clusterwire"
)

// AddCredentialFlags adds the flags that name a client's credential files
// (never the secrets themselves: a command line is visible to every user
// of the machine through ps).
func AddCredentialFlags(f *pflag.FlagSet, c *cluster.Credentials, prefix string) {
	f.StringVar(&c.Creds, "creds", "", prefix+"credentials file of this role (written by worksteal serve init; default $"+clusterwire.EnvCreds+")")
	f.StringVar(&c.TLSCA, "tls-ca", "", prefix+"CA certificate that signs the server's (default $"+clusterwire.EnvTLSCA+"; none: the system's roots)")
	f.StringVar(&c.TLSCert, "tls-cert", "", prefix+"client certificate, for a server that requires mutual TLS (default $"+clusterwire.EnvTLSCert+")")
	f.StringVar(&c.TLSKey, "tls-key", "", prefix+"the client certificate's key file (default $"+clusterwire.EnvTLSKey+")")
}

// ConnectAs connects to url as role with the credentials c (flags, then
// the environment). The returned ctx is cancelled, with a cause that names
// the refused subject, when the server refuses something the command
// does: credentials of the wrong role, or a server configuration older
// than this version's permissions. Without credentials the node has no
// role (a server without authentication lets it do everything).
func ConnectAs(ctx context.Context, url, name string, role cluster.Role, c cluster.Credentials, errs io.Writer) (*nats.Conn, context.Context, []cluster.Option, error) {
	c = c.FromEnv()
	var nodeOpts []cluster.Option
	connRole := cluster.Role("")
	if c.Creds != "" {
		holder, hrole, named := c.Holder()
		switch {
		case named && role == cluster.RoleSubmitter && hrole == cluster.RoleAdmin:
			role = cluster.RoleAdmin // an admin does what a submitter does, on every job
		case named && role == cluster.RoleSubmitter && hrole == cluster.RoleSubmitter:
			nodeOpts = append(nodeOpts, cluster.WithOwner(holder)) // a person: its own jobs only
		}
		connRole = role
		nodeOpts = append(nodeOpts, cluster.WithRole(role))
	}
	opts, err := cluster.ConnectOptions(connRole, c)
	if err != nil {
		return nil, nil, nil, UsageError(err)
	}
	ctx, cancel := context.WithCancelCause(ctx)
	var once sync.Once
	opts = append(opts, nats.ErrorHandler(func(_ *nats.Conn, _ *nats.Subscription, err error) {
		if !errors.Is(err, nats.ErrPermissionViolation) {
			fmt.Fprintf(errs, "worksteal %s: %v\n", role, err)
			return
		}
		once.Do(func() {
			hint := "the server's configuration may predate this version (rerun worksteal serve init)"
			if c.Creds != "" {
				hint = fmt.Sprintf("are the credentials in %s a %s's? %s", c.Creds, role, hint)
			}
			cancel(&refusal{fmt.Sprintf("the server refused the %s: %s (%s)", role, strings.TrimPrefix(err.Error(), "nats: permissions violation: "), hint)})
		})
	}), nats.ClosedHandler(func(*nats.Conn) { cancel(nil) }))
	nc, err := connectNATS(ctx, url, name, errs, opts...)
	if err != nil {
		cancel(nil)
		if errors.Is(err, nats.ErrAuthorization) || errors.Is(err, nats.ErrAuthExpired) || errors.Is(err, nats.ErrAuthRevoked) {
			if c.Creds == "" {
				return nil, nil, nil, fmt.Errorf("NATS at %s requires credentials: give --creds FILE (or $%s) with the %s's credentials from worksteal serve init", url, clusterwire.EnvCreds, role)
			}
			return nil, nil, nil, fmt.Errorf("NATS at %s refused the credentials in %s: %v", url, c.Creds, errors.Unwrap(err))
		}
		return nil, nil, nil, err
	}
	return nc, ctx, nodeOpts, nil
}

// refusal is the cause of a connection's ctx that the server refused a
// permission.
type refusal struct{ msg string }

func (r *refusal) Error() string { return r.msg }

// Refused returns the refusal that ended ctx, or nil.
func Refused(ctx context.Context) error {
	var r *refusal
	if errors.As(context.Cause(ctx), &r) {
		return r
	}
	return nil
}
