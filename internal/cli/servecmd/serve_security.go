package servecmd

import (
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nkeys"
	"github.com/spf13/cobra"

	"github.com/worksteal/worksteal/cluster"
	"github.com/worksteal/worksteal/internal/cli/cmdenv"
	"github.com/worksteal/worksteal/internal/clusterops"
)

// ServeSecurity is what the security flags of "worksteal serve" fill in.
type ServeSecurity struct {
	Config    string
	tlsCert   string
	tlsKey    string
	tlsCA     string
	tlsVerify bool
	insecure  bool
}

func addServeSecurityFlags(cmd *cobra.Command, s *ServeSecurity) {
	f := cmd.Flags()
	f.StringVar(&s.Config, "config", "", "nats-server configuration file with authentication and TLS (worksteal serve init writes one); the other flags override it")
	f.StringVar(&s.tlsCert, "tls-cert", "", "server certificate for clients and routes (PEM)")
	f.StringVar(&s.tlsKey, "tls-key", "", "its private key (PEM)")
	f.StringVar(&s.tlsCA, "tls-ca", "", "CA certificate that signs the client certificates (with --tls-verify) and the other servers' route certificates")
	f.BoolVar(&s.tlsVerify, "tls-verify", false, "mutual TLS: require a client certificate signed by --tls-ca")
	f.BoolVar(&s.insecure, "insecure", false, "allow a listen address (or --http address) reachable from the network without authentication and TLS (anyone who reaches it can run commands on every worker)")
}

// baseServerOptions returns the options of the --config file, or empty
// ones.
func baseServerOptions(s ServeSecurity) (*server.Options, error) {
	if s.Config == "" {
		return &server.Options{}, nil
	}
	o, err := server.ProcessConfigFile(s.Config)
	if err != nil {
		return nil, fmt.Errorf("--config %s: %v", s.Config, err)
	}
	return o, nil
}

// secureServerOptions applies the TLS flags to o and refuses an exposed
// server without authentication and TLS (unless --insecure).
//
// Secure defaults: a server that listens only on loopback needs nothing
// (one machine, zero configuration). One that listens on an address
// reachable from the network must authenticate its clients and encrypt
// their connections, and its routes must be mutual TLS, or serve refuses
// to start; --insecure overrides that and is announced on every start.
func secureServerOptions(o *server.Options, cfg ServeConfig) error {
	s := cfg.Security
	if (s.tlsCert == "") != (s.tlsKey == "") {
		return errors.New("--tls-cert and --tls-key go together")
	}
	if s.tlsVerify && s.tlsCA == "" && o.TLSConfig == nil {
		return errors.New("--tls-verify needs --tls-ca, the CA that signs the client certificates")
	}
	if s.tlsCert != "" {
		tc, err := server.GenTLSConfig(&server.TLSConfigOpts{CertFile: s.tlsCert, KeyFile: s.tlsKey, CaFile: s.tlsCA, Verify: s.tlsVerify})
		if err != nil {
			return fmt.Errorf("--tls-cert %s, --tls-key %s: %v", s.tlsCert, s.tlsKey, err)
		}
		o.TLSConfig, o.TLSVerify, o.TLSTimeout = tc, s.tlsVerify, 5
		if o.Cluster.Port != 0 && o.Cluster.TLSConfig == nil {
			if s.tlsCA == "" {
				return errors.New("--cluster-listen with --tls-cert needs --tls-ca: routes are mutual TLS, each server proves itself with a certificate from that CA")
			}
			rc, err := server.GenTLSConfig(&server.TLSConfigOpts{CertFile: s.tlsCert, KeyFile: s.tlsKey, CaFile: s.tlsCA, Verify: true})
			if err != nil {
				return fmt.Errorf("route TLS: %v", err)
			}
			// A server both accepts and dials routes: the CA verifies
			// both sides (as nats-server's configuration parser does).
			rc.ClientAuth, rc.RootCAs = tls.RequireAndVerifyClientCert, rc.ClientCAs
			o.Cluster.TLSConfig, o.Cluster.TLSTimeout = rc, 5
		}
	} else if s.tlsVerify && o.TLSConfig != nil {
		o.TLSVerify = true
		o.TLSConfig.ClientAuth = tls.RequireAndVerifyClientCert
	}
	if s.insecure {
		return nil
	}
	if cmdenv.Exposed(o.Host) {
		var missing []string
		if !authenticates(o) {
			missing = append(missing, "authentication")
		}
		if o.TLSConfig == nil {
			missing = append(missing, "TLS")
		}
		if len(missing) > 0 {
			return fmt.Errorf("--listen %s is reachable from the network, and the server has no %s: anyone who reaches it could run commands on every worker. Run worksteal serve init --dir DIR and start with --config DIR/server.conf, or give --insecure on a network you trust", cfg.Listen, strings.Join(missing, " and no "))
		}
	}
	if o.Cluster.Port != 0 && cmdenv.Exposed(o.Cluster.Host) && !VerifiesRoutes(o) {
		return fmt.Errorf("--cluster-listen %s is reachable from the network, and its routes are not mutual TLS: any host could join the cluster and see every message. Give --tls-cert/--tls-key/--tls-ca, or a --config with a cluster tls block (serve init writes one), or --insecure", cfg.clusterListen)
	}
	return nil
}

// authenticates says every client must authenticate (a no_auth_user lets
// anyone in as that user).
func authenticates(o *server.Options) bool {
	if o.NoAuthUser != "" {
		return false
	}
	return len(o.Nkeys) > 0 || len(o.Users) > 0 || o.Username != "" || o.Authorization != "" || len(o.TrustedOperators) > 0 || len(o.TrustedKeys) > 0
}

func VerifiesRoutes(o *server.Options) bool {
	return o.Cluster.TLSConfig != nil && o.Cluster.TLSConfig.ClientAuth == tls.RequireAndVerifyClientCert
}

// announceSecurity says at start how clients and routes are secured, and
// loudly when they are not although the server is reachable. It never
// prints a key or a credential.
func announceSecurity(out, errs io.Writer, o *server.Options, cfg ServeConfig, configured int) {
	auth := "none (loopback only)"
	switch {
	case configured > 0:
		auth = fmt.Sprintf("%d nkey users", configured)
	case authenticates(o):
		auth = "on"
	case cmdenv.Exposed(o.Host):
		auth = "NONE"
	}
	tlsState := "off"
	if o.TLSConfig != nil {
		tlsState = "on"
		if o.TLSConfig.ClientAuth == tls.RequireAndVerifyClientCert {
			tlsState += ", client certificates required"
		}
	}
	fmt.Fprintf(out, "worksteal serve: authentication %s; TLS %s", auth, tlsState)
	if o.Cluster.Port != 0 {
		if VerifiesRoutes(o) {
			fmt.Fprint(out, "; routes mutual TLS")
		} else {
			fmt.Fprint(out, "; routes NOT authenticated")
		}
	}
	fmt.Fprintln(out)
	if !cfg.Security.insecure {
		return
	}
	addr := net.JoinHostPort(o.Host, fmt.Sprint(o.Port))
	switch {
	case !cmdenv.Exposed(o.Host):
	case !authenticates(o) && o.TLSConfig == nil:
		fmt.Fprintf(errs, "worksteal serve: WARNING: --insecure: %s is reachable from the network without authentication or TLS. Anyone who reaches it can submit commands that every worker runs, and read every result.\n", addr)
	case !authenticates(o):
		fmt.Fprintf(errs, "worksteal serve: WARNING: --insecure: %s is reachable from the network without authentication (TLS on). Anyone who reaches it can submit commands that every worker runs, and read every result.\n", addr)
	case o.TLSConfig == nil:
		fmt.Fprintf(errs, "worksteal serve: WARNING: --insecure: %s is reachable from the network without TLS (clients authenticate). Tasks, their outputs and results cross the network in clear text, for anyone on the path to read.\n", addr)
	}
	if o.Cluster.Port != 0 && cmdenv.Exposed(o.Cluster.Host) && !VerifiesRoutes(o) {
		fmt.Fprintf(errs, "worksteal serve: WARNING: --insecure: routes on %s are not mutual TLS: any host can join the cluster and see every message.\n", net.JoinHostPort(o.Cluster.Host, fmt.Sprint(o.Cluster.Port)))
	}
}

// addRecorderUser gives the recorder that serve runs in-process (see
// clusterops.Record: it alone writes results and failure counts and
// publishes handed-over children, for workers of the worker role) an
// identity of its own when clients must authenticate: an nkey user made
// for this run, with every permission of its account, whose seed never
// leaves this process. It returns the recorder connection's options.
func addRecorderUser(o *server.Options) ([]nats.Option, error) {
	if !authenticates(o) {
		return nil, nil
	}
	if len(o.Nkeys) == 0 && len(o.Users) == 0 {
		return nil, errors.New("serve: the recorder can join a server whose clients authenticate with users or nkeys (as serve init configures it), not this one's authentication")
	}
	kp, err := nkeys.CreateUser()
	if err != nil {
		return nil, err
	}
	pub, _ := kp.PublicKey()
	o.Nkeys = append(o.Nkeys, &server.NkeyUser{Nkey: pub, Account: tierAccount(o)})
	return []nats.Option{nats.Nkey(pub, func(nonce []byte) ([]byte, error) { return kp.Sign(nonce) })}, nil
}

// tierAccount is the account of the tier's users: where its streams are.
func tierAccount(o *server.Options) *server.Account {
	var acc *server.Account
	for _, u := range o.Nkeys {
		if u.Account != nil {
			acc = u.Account
		}
	}
	return acc
}

// addDashboardUser gives the dashboard that serve --http runs in-process
// an observer's identity when clients must authenticate: an nkey user made
// for this run, with the observer's permissions, whose seed never leaves
// this process. It returns the dashboard connection's options.
func addDashboardUser(o *server.Options, stream string) ([]nats.Option, error) {
	opts := []nats.Option{nats.CustomInboxPrefix(clusterops.InboxPrefix(cluster.RoleObserver))}
	if !authenticates(o) {
		return opts, nil
	}
	if len(o.Nkeys) == 0 && len(o.Users) == 0 {
		return nil, errors.New("serve --http: the dashboard can join a server whose clients authenticate with users or nkeys (as serve init configures it), not this one's authentication")
	}
	perm, err := clusterops.RolePermissions(cluster.RoleObserver, stream)
	if err != nil {
		return nil, cmdenv.UsageError(fmt.Errorf("--stream: %w", err))
	}
	kp, err := nkeys.CreateUser()
	if err != nil {
		return nil, err
	}
	pub, _ := kp.PublicKey()
	o.Nkeys = append(o.Nkeys, &server.NkeyUser{Nkey: pub, Account: tierAccount(o), Permissions: &server.Permissions{
		Publish:   &server.SubjectPermission{Allow: perm.Publish.Allow, Deny: perm.Publish.Deny},
		Subscribe: &server.SubjectPermission{Allow: perm.Subscribe.Allow, Deny: perm.Subscribe.Deny},
	}})
	return append(opts, nats.Nkey(pub, func(nonce []byte) ([]byte, error) { return kp.Sign(nonce) })), nil
}
