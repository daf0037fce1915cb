package servecmd

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nkeys"
	"github.com/spf13/cobra"

	"github.com/worksteal/worksteal/cluster"
	"github.com/worksteal/worksteal/internal/cli/cmdenv"
	"github.com/worksteal/worksteal/internal/pki"
)

// serveInitConfig is what the flags of "worksteal serve init" fill in.
type serveInitConfig struct {
	dir      string
	stream   string
	hosts    []string
	workers  []string // --workers: a key of its own per worker
	shared   bool     // --shared-worker-key: also worker.nk, one key all workers share
	mtls     bool
	noTLS    bool
	force    bool
	validFor time.Duration
}

// Files that serve init writes in its directory.
const (
	ServerConfFile = "server.conf"
	caFile         = "ca.pem"     // trusted by clients (--tls-ca)
	caKeyFile      = "ca-key.pem" // signs client-side certificates; keep offline
	serverCertFile = "server-cert.pem"
	serverKeyFile  = "server-key.pem"
	routeCAFile    = "route-ca.pem" // signs only servers' route certificates
	routeCAKeyFile = "route-ca-key.pem"
	routeCertFile  = "route-cert.pem"
	routeKeyFile   = "route-key.pem"
)

func newServeInitCommand() *cobra.Command {
	cfg := serveInitConfig{stream: "ws"}
	cmd := &cobra.Command{
		Use:   "init --dir DIR",
		Short: "Write a server configuration with authentication and TLS, and one credentials file per role",
		Long: `init makes what a cluster reachable from the network needs, in DIR:

  server.conf            TLS for clients and for routes, and the users
                         (includes users.conf: public keys only, no secret)
  users.json, users.conf the nkey users, one per holder, with their roles'
                         permissions; worksteal serve credentials add and
                         revoke one (a person, a CI system, a worker)
  NAME.nk                a key of its own for each worker of --workers
                         (default worker1): it registers, idles and asks
                         the recorder only as NAME, and is revoked alone
  submitter.nk observer.nk admin.nk
                         the other roles' nkey seeds: give each to its
                         clients (--creds FILE or $WORKSTEAL_CREDS); mode 0600
  worker.nk              only with --shared-worker-key: one key that every
                         worker shares (not recommended: a stolen copy acts
                         as any worker, and revoking it stops them all)
  ca.pem                 the CA that clients trust (--tls-ca)
  server-cert.pem, server-key.pem
                         the server's certificate for clients, valid for
                         --host names
  <role>-cert.pem, <role>-key.pem
                         client certificates for mutual TLS (--mtls)
  route-ca.pem, route-cert.pem, route-key.pem
                         routes between servers: mutual TLS with their own
                         CA, so a client's certificate cannot open a route
  ca-key.pem, route-ca-key.pem
                         the CAs' keys: keep them offline

Start the server with worksteal serve --config DIR/server.conf; copy DIR
to every server of a cluster (they share the certificates). Existing
files are kept unless --force.`,
		Example: `  worksteal serve init --dir /etc/worksteal --host nats.example.com --host 10.0.0.1 --workers gpu1,gpu2
  worksteal serve --config /etc/worksteal/server.conf --listen 0.0.0.0:4222
  worksteal worker --nats nats://nats.example.com:4222 --creds /etc/worksteal/gpu1.nk --tls-ca /etc/worksteal/ca.pem   # on gpu1`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if cfg.dir == "" {
				return cmdenv.UsageError(errors.New("serve init: --dir DIR is required"))
			}
			return runServeInit(cmd.OutOrStdout(), cfg)
		},
	}
	f := cmd.Flags()
	f.StringVar(&cfg.dir, "dir", "", "directory to write the configuration, credentials and certificates in")
	f.StringVar(&cfg.stream, "stream", "ws", "name prefix of the tier's stream, buckets and subjects that the permissions cover")
	f.StringSliceVar(&cfg.hosts, "host", nil, "DNS name or IP address that clients and other servers reach a server by (repeatable; default: this host's name, localhost, 127.0.0.1)")
	f.StringSliceVar(&cfg.workers, "workers", nil, "write a key of its own for each of these workers (NAME.nk; worksteal worker --creds NAME.nk serves as NAME only; default worker1; more later: serve credentials add --role worker)")
	f.BoolVar(&cfg.shared, "shared-worker-key", false, "also write worker.nk, one key every worker shares (not recommended: a stolen copy registers, idles and asks the recorder under any worker's name, and revoking it stops every worker)")
	f.BoolVar(&cfg.mtls, "mtls", false, "require client certificates (mutual TLS) and write one per role")
	f.BoolVar(&cfg.noTLS, "no-tls", false, "authentication only, no TLS (for a network that has its own encryption)")
	f.BoolVar(&cfg.force, "force", false, "replace existing files (new keys: every client needs the new credentials)")
	f.DurationVar(&cfg.validFor, "valid-for", 2*365*24*time.Hour, "validity of the certificates")
	return cmd
}

func runServeInit(out io.Writer, cfg serveInitConfig) error {
	dir, err := checkServeInit(&cfg)
	if err != nil {
		return err
	}
	// Everything is made in memory first, then written: a refusal to
	// overwrite leaves nothing half-written.
	files, err := makeServeInitFiles(cfg, dir)
	if err != nil {
		return err
	}
	if err := files.write(dir, cfg.force); err != nil {
		return err
	}
	printServeInit(out, cfg, dir, files.order)
	return nil
}

// checkServeInit checks serve init's flags, fills in the default hosts and
// makes the directory; it returns the directory's absolute path.
func checkServeInit(cfg *serveInitConfig) (string, error) {
	if cfg.mtls && cfg.noTLS {
		return "", cmdenv.UsageError(errors.New("serve init: --mtls needs TLS; drop --no-tls"))
	}
	dir, err := filepath.Abs(cfg.dir)
	if err != nil {
		return "", err
	}
	if len(cfg.hosts) == 0 {
		host, _ := os.Hostname()
		cfg.hosts = []string{"localhost", "127.0.0.1"}
		if host != "" && host != "localhost" {
			cfg.hosts = append([]string{host}, cfg.hosts...)
		}
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("serve init: --dir %s: %w", cfg.dir, err)
	}
	if !credNamePattern.MatchString(cfg.stream) {
		return "", cmdenv.UsageError(fmt.Errorf("serve init: --stream %q: use letters, digits, '-' and '_'", cfg.stream))
	}
	if len(cfg.workers) == 0 && !cfg.shared {
		cfg.workers = []string{"worker1"} // one worker's key: a key per worker is the default
	}
	return dir, nil
}

// initFiles are serve init's files, by name, in the order they are written.
type initFiles struct {
	data  map[string][]byte
	order []string
}

func (f *initFiles) add(name string, data []byte) {
	f.data[name] = data
	f.order = append(f.order, name)
}

// makeServeInitFiles makes every file of serve init in memory: the
// server's configuration, a credential per role and the users lists, the
// CAs and certificates (unless --no-tls).
func makeServeInitFiles(cfg serveInitConfig, dir string) (*initFiles, error) {
	files := &initFiles{data: map[string][]byte{}}
	add := files.add
	ul := userList{Stream: cfg.stream}
	for _, r := range allRoles {
		kp, err := nkeys.CreateUser()
		if err != nil {
			return nil, err
		}
		seed, _ := kp.Seed()
		pub, _ := kp.PublicKey()
		if r == cluster.RoleWorker {
			if !cfg.shared {
				continue // a key per worker (--workers), none shared
			}
			// The workers' shared key, asked for (--shared-worker-key).
			add(string(r)+".nk", fmt.Appendf(nil, "# worksteal %s credentials: an nkey seed. Secret: give it only to the %ss.\n# Its public key, in users.conf: %s\n%s\n", r, r, pub, seed))
		} else {
			// A holder of its own: the submitter key is a person named
			// "submitter" (its jobs are submitter.<id>), the admin's sees all.
			add(string(r)+".nk", fmt.Appendf(nil, "# worksteal %s credentials of %s: an nkey seed. Secret: give it only to %s.\n# Its public key, in users.conf: %s\n%s\n", r, r, r, pub, seed))
		}
		ul.Users = append(ul.Users, credUser{Name: string(r), Role: r, Nkey: pub})
	}
	for _, w := range cfg.workers {
		if !credNamePattern.MatchString(w) || slices.Contains(allRoles, cluster.Role(w)) || files.data[w+".nk"] != nil {
			return nil, cmdenv.UsageError(fmt.Errorf("serve init: --workers %q: use distinct names of letters, digits, '-' and '_', not a role's", w))
		}
		pub, seed, err := newUser(w, cluster.RoleWorker)
		if err != nil {
			return nil, err
		}
		add(w+".nk", seed)
		ul.Users = append(ul.Users, credUser{Name: w, Role: cluster.RoleWorker, Nkey: pub})
	}
	usersJSON, usersConf, err := usersFiles(ul)
	if err != nil {
		return nil, cmdenv.UsageError(fmt.Errorf("serve init: --stream: %w", err))
	}
	add(usersFile, usersJSON)
	add(usersConfFile, usersConf)
	tlsConf := ""
	if !cfg.noTLS {
		if tlsConf, err = makeServeInitTLS(cfg, dir, add); err != nil {
			return nil, err
		}
	}
	var conf strings.Builder
	fmt.Fprintf(&conf, "# worksteal serve configuration (nats-server format), written by worksteal serve init\n")
	fmt.Fprintf(&conf, "# on %s for the stream prefix %q.\n", time.Now().UTC().Format(time.DateOnly), cfg.stream)
	fmt.Fprintf(&conf, "# Start: worksteal serve --config %s (flags override it).\n", filepath.Join(dir, ServerConfFile))
	fmt.Fprintf(&conf, "# It holds public keys only; the secrets are the *.nk and *-key.pem files.\n\n")
	conf.WriteString("# The nkey users, one per holder, with their roles' least-privilege\n# permissions (see the package documentation of cluster, \"Security\"):\n# users.conf, written from users.json by serve init and serve credentials.\nauthorization {\n  include \"users.conf\"\n}\n")
	conf.WriteString(tlsConf)
	files.data[ServerConfFile] = []byte(conf.String())
	files.order = append([]string{ServerConfFile}, files.order...)
	return files, nil
}

// makeServeInitTLS makes the client CA, the route CA, the server's and the
// routes' certificates (and each role's client certificate with --mtls);
// it returns the TLS part of the server's configuration.
func makeServeInitTLS(cfg serveInitConfig, dir string, add func(string, []byte)) (string, error) {
	ca, err := pki.NewCA("worksteal CA", cfg.validFor)
	if err != nil {
		return "", err
	}
	routeCA, err := pki.NewCA("worksteal route CA", cfg.validFor)
	if err != nil {
		return "", err
	}
	caKey, _ := ca.KeyPEM()
	routeCAKey, _ := routeCA.KeyPEM()
	add(caFile, ca.CertPEM)
	add(caKeyFile, caKey)
	cert, key, err := ca.Issue("worksteal server", cfg.hosts, pki.Server, cfg.validFor)
	if err != nil {
		return "", err
	}
	add(serverCertFile, cert)
	add(serverKeyFile, key)
	add(routeCAFile, routeCA.CertPEM)
	add(routeCAKeyFile, routeCAKey)
	if cert, key, err = routeCA.Issue("worksteal route", cfg.hosts, pki.Server, cfg.validFor); err != nil {
		return "", err
	}
	add(routeCertFile, cert)
	add(routeKeyFile, key)
	if cfg.mtls {
		holders := append([]string{}, cfg.workers...)
		for _, r := range allRoles {
			if r != cluster.RoleWorker || cfg.shared {
				holders = append(holders, string(r))
			}
		}
		for _, h := range holders {
			cert, key, err := ca.Issue("worksteal "+h, nil, pki.Client, cfg.validFor)
			if err != nil {
				return "", err
			}
			add(h+"-cert.pem", cert)
			add(h+"-key.pem", key)
		}
	}
	p := func(name string) string { return quoteConf(filepath.Join(dir, name)) }
	return fmt.Sprintf(`
# TLS for clients. verify: true requires a client certificate signed by
# ca.pem (mutual TLS; serve --tls-verify does the same).
tls {
  cert_file: %s
  key_file: %s
  ca_file: %s
  verify: %t
  timeout: 5
}

# Routes between the servers of a JetStream cluster (serve --cluster-listen):
# mutual TLS with the route CA, which signs nothing else.
cluster {
  tls {
    cert_file: %s
    key_file: %s
    ca_file: %s
    verify: true
    timeout: 5
  }
}
`, p(serverCertFile), p(serverKeyFile), p(caFile), cfg.mtls, p(routeCertFile), p(routeKeyFile), p(routeCAFile)), nil
}

// write writes the files into dir, refusing to replace any unless force.
func (f *initFiles) write(dir string, force bool) error {
	order := f.order
	if !force {
		for _, name := range order {
			if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
				return cmdenv.UsageError(fmt.Errorf("serve init: %s exists; keeping it (give --force to replace every file, and then every client's credentials)", filepath.Join(dir, name)))
			}
		}
	}
	for _, name := range order {
		mode := os.FileMode(0o644)
		if strings.HasSuffix(name, ".nk") || strings.HasSuffix(name, "-key.pem") {
			mode = 0o600
		}
		path := filepath.Join(dir, name)
		os.Remove(path) // a new file gets mode; an old one would keep its own
		if err := os.WriteFile(path, f.data[name], mode); err != nil {
			return fmt.Errorf("serve init: %w", err)
		}
	}
	return nil
}

// printServeInit says what serve init wrote and how each role starts.
func printServeInit(out io.Writer, cfg serveInitConfig, dir string, order []string) {
	fmt.Fprintf(out, "worksteal serve init: wrote %s in %s\n", strings.Join(order, ", "), dir)
	fmt.Fprintf(out, "  start:       worksteal serve --config %s --listen 0.0.0.0:4222\n", filepath.Join(dir, ServerConfFile))
	tlsFlags := ""
	if !cfg.noTLS {
		tlsFlags = " --tls-ca " + filepath.Join(dir, caFile)
	}
	worker := "worker"
	if len(cfg.workers) > 0 {
		worker = cfg.workers[0]
	}
	for _, r := range []struct{ cmd, role, holder string }{{"worker --nats URL", "worker", worker}, {"run --nats URL", "submitter", "submitter"}, {"dash --nats URL", "observer", "observer"}, {"job list --nats URL", "admin", "admin"}} {
		mt := ""
		if cfg.mtls {
			mt = fmt.Sprintf(" --tls-cert %s --tls-key %s", filepath.Join(dir, r.holder+"-cert.pem"), filepath.Join(dir, r.holder+"-key.pem"))
		}
		fmt.Fprintf(out, "  %-12s worksteal %s --creds %s%s%s\n", r.role+":", r.cmd, filepath.Join(dir, r.holder+".nk"), tlsFlags, mt)
	}
	secret := []string{"submitter.nk", "observer.nk", "admin.nk"}
	for _, w := range cfg.workers {
		secret = append(secret, w+".nk")
	}
	if cfg.shared {
		secret = append(secret, "worker.nk")
	}
	fmt.Fprintf(out, "  keep %s and the *-key.pem files secret; the CA keys can stay offline\n", strings.Join(secret, ", "))
	for _, w := range cfg.workers {
		fmt.Fprintf(out, "  %-12s worksteal worker --nats URL --creds %s (registers as %s only)\n", w+":", filepath.Join(dir, w+".nk"), w)
	}
	if cfg.shared {
		fmt.Fprintf(out, "  warning: %s is one key for every worker: a stolen copy registers, idles and asks the recorder as any worker, and revoking it stops them all; prefer a key per worker (--workers, serve credentials add --role worker)\n", filepath.Join(dir, "worker.nk"))
	}
	fmt.Fprintf(out, "  a key per person or worker, revoked alone: worksteal serve credentials add --dir %s --role ROLE --name NAME\n", dir)
}

// confList writes subjects as a nats-server configuration list, one a
// line.
func confList(subjects []string) string {
	q := make([]string, len(subjects))
	for i, s := range subjects {
		q[i] = "\n            " + quoteConf(s)
	}
	return "[" + strings.Join(q, ",") + "\n          ]"
}

// quoteConf quotes a string for the nats-server configuration format: in
// double quotes, "$" is not a variable.
func quoteConf(s string) string { return strconv.Quote(s) }
