package servecmd

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/nats-io/nkeys"
	"github.com/spf13/cobra"

	"github.com/worksteal/worksteal/cluster"
	"github.com/worksteal/worksteal/internal/cli/cmdenv"
	"github.com/worksteal/worksteal/internal/clusterops"
	"github.com/worksteal/worksteal/internal/pki"
)

// The server's users: serve init and serve credentials keep them in
// users.json (public keys only) and write users.conf from it, which
// server.conf includes. One nkey per holder: revoking one holder's
// credential touches no other's.
const (
	usersFile     = "users.json"
	usersConfFile = "users.conf"
)

// credUser is one holder of a credential: a person, a CI system, a
// worker, or the shared key of a role that serve init makes (named after
// the role).
type credUser struct {
	Name string       `json:"name"`
	Role cluster.Role `json:"role"`
	Nkey string       `json:"nkey"` // public key
}

// userList is users.json.
type userList struct {
	Stream string     `json:"stream"`
	Users  []credUser `json:"users"`
}

var credNamePattern = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

func loadUsers(dir string) (userList, error) {
	var ul userList
	data, err := os.ReadFile(filepath.Join(dir, usersFile))
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return ul, fmt.Errorf("%s has no %s: run worksteal serve init --dir %s first (configurations from before this version: run it again with --force)", dir, usersFile, dir)
		}
		return ul, err
	}
	if err := json.Unmarshal(data, &ul); err != nil {
		return ul, fmt.Errorf("%s: %v", filepath.Join(dir, usersFile), err)
	}
	return ul, nil
}

// usersFiles renders users.json and users.conf.
func usersFiles(ul userList) (jsonData, conf []byte, err error) {
	jsonData, _ = json.MarshalIndent(ul, "", "  ")
	var b strings.Builder
	fmt.Fprintf(&b, "# worksteal's nkey users (one per holder), with their roles' least-privilege\n# permissions; written from %s by worksteal serve init and serve credentials.\nusers = [\n", usersFile)
	for _, u := range ul.Users {
		name := u.Name
		if name == string(u.Role) && u.Role != cluster.RoleSubmitter {
			name = "" // a role's shared key: the role's permissions (a submitter is always a person)
		}
		perm, err := clusterops.RolePermissionsFor(u.Role, ul.Stream, name)
		if err != nil {
			return nil, nil, err
		}
		fmt.Fprintf(&b, "  # %s (%s)\n  {\n    nkey: %s\n    permissions: {\n", u.Name, u.Role, u.Nkey)
		writeSubjects := func(kind string, s clusterops.Subjects) {
			fmt.Fprintf(&b, "      %s: {\n", kind)
			if len(s.Allow) > 0 {
				fmt.Fprintf(&b, "        allow: %s\n", confList(s.Allow))
			}
			if len(s.Deny) > 0 {
				fmt.Fprintf(&b, "        deny: %s\n", confList(s.Deny))
			}
			b.WriteString("      }\n")
		}
		writeSubjects("publish", perm.Publish)
		writeSubjects("subscribe", perm.Subscribe)
		b.WriteString("    }\n  }\n")
	}
	b.WriteString("]\n")
	return append(jsonData, '\n'), []byte(b.String()), nil
}

// newUser makes an nkey user: its public key and its seed file's content.
func newUser(name string, role cluster.Role) (pub string, seedFile []byte, err error) {
	kp, err := nkeys.CreateUser()
	if err != nil {
		return "", nil, err
	}
	seed, _ := kp.Seed()
	pub, _ = kp.PublicKey()
	return pub, fmt.Appendf(nil, "# worksteal %s credentials of %s: an nkey seed. Secret: give it only to %s.\n# Its public key, in users.conf: %s\n%s\n", role, name, name, pub, seed), nil
}

func writeSecret(path string, data []byte) error {
	os.Remove(path) // a new file gets the mode; an old one would keep its own
	return os.WriteFile(path, data, 0o600)
}

func saveUsers(dir string, ul userList) error {
	j, conf, err := usersFiles(ul)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, usersFile), j, 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, usersConfFile), conf, 0o644)
}

func newServeCredentialsCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "credentials",
		Short: "Add, revoke or list the credentials of one person, CI system or worker",
		Long: `credentials manages the nkey users of a configuration that serve init wrote:
one key per holder, so that revoking one touches no other. A worker added
with its name may register only under that name (worksteal worker --name).
Restart worksteal serve after a change: it reads users.conf at start, and
clients reconnect by themselves.`,
		Example: `  worksteal serve credentials add --dir /etc/worksteal --role submitter --name alice
  worksteal serve credentials add --dir /etc/worksteal --role worker --name gpu1
  worksteal serve credentials revoke --dir /etc/worksteal --name alice
  worksteal serve credentials list --dir /etc/worksteal`,
	}
	var dir, role, name string
	var validFor time.Duration
	add := &cobra.Command{
		Use:   "add --dir DIR --role ROLE --name NAME",
		Short: "Make a credential for one holder: NAME.nk (and NAME-cert.pem, NAME-key.pem if DIR has the CA's key)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runCredentialsAdd(cmd.OutOrStdout(), dir, cluster.Role(role), name, validFor)
		},
	}
	add.Flags().StringVar(&role, "role", "", "worker, submitter (a person or CI system: its own jobs only), observer or admin (every job)")
	add.Flags().DurationVar(&validFor, "valid-for", 2*365*24*time.Hour, "validity of the client certificate")
	revoke := &cobra.Command{
		Use:   "revoke --dir DIR --name NAME",
		Short: "Remove one holder's credential (its seed file too); the others keep theirs",
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return runCredentialsRevoke(cmd.OutOrStdout(), dir, name) },
	}
	list := &cobra.Command{
		Use:   "list --dir DIR",
		Short: "List the holders and their roles",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ul, err := loadUsers(dir)
			if err != nil {
				return cmdenv.UsageError(err)
			}
			for _, u := range ul.Users {
				fmt.Fprintf(cmd.OutOrStdout(), "%s\t%s\t%s\n", u.Name, u.Role, u.Nkey)
			}
			return nil
		},
	}
	for _, c := range []*cobra.Command{add, revoke, list} {
		c.Flags().StringVar(&dir, "dir", "", "the directory serve init wrote")
		if c != list {
			c.Flags().StringVar(&name, "name", "", "the holder's name: letters, digits, '-' and '_'")
		}
		cmd.AddCommand(c)
	}
	return cmd
}

func runCredentialsAdd(out io.Writer, dir string, role cluster.Role, name string, validFor time.Duration) error {
	if dir == "" || name == "" {
		return cmdenv.UsageError(errors.New("serve credentials add: --dir and --name are required"))
	}
	if !slices.Contains(allRoles, role) {
		return cmdenv.UsageError(fmt.Errorf("serve credentials add: --role %q: want worker, submitter, observer or admin", role))
	}
	if !credNamePattern.MatchString(name) {
		return cmdenv.UsageError(fmt.Errorf("serve credentials add: --name %q: use letters, digits, '-' and '_'", name))
	}
	ul, err := loadUsers(dir)
	if err != nil {
		return cmdenv.UsageError(err)
	}
	if slices.ContainsFunc(ul.Users, func(u credUser) bool { return u.Name == name }) {
		return cmdenv.UsageError(fmt.Errorf("serve credentials add: %s has a credential already (revoke it first)", name))
	}
	pub, seed, err := newUser(name, role)
	if err != nil {
		return err
	}
	written := []string{name + ".nk"}
	if err := writeSecret(filepath.Join(dir, name+".nk"), seed); err != nil {
		return err
	}
	caCert, errC := os.ReadFile(filepath.Join(dir, caFile))
	caKey, errK := os.ReadFile(filepath.Join(dir, caKeyFile))
	if errC == nil && errK == nil {
		ca, err := pki.LoadCA(caCert, caKey)
		if err != nil {
			return fmt.Errorf("serve credentials add: %s: %v", filepath.Join(dir, caKeyFile), err)
		}
		cert, key, err := ca.Issue("worksteal "+string(role)+" "+name, nil, pki.Client, validFor)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, name+"-cert.pem"), cert, 0o644); err != nil {
			return err
		}
		if err := writeSecret(filepath.Join(dir, name+"-key.pem"), key); err != nil {
			return err
		}
		written = append(written, name+"-cert.pem", name+"-key.pem")
	}
	ul.Users = append(ul.Users, credUser{Name: name, Role: role, Nkey: pub})
	if err := saveUsers(dir, ul); err != nil {
		return err
	}
	fmt.Fprintf(out, "worksteal serve credentials: %s (%s): wrote %s in %s; give them to %s only, and restart worksteal serve\n", name, role, strings.Join(written, ", "), dir, name)
	return nil
}

func runCredentialsRevoke(out io.Writer, dir, name string) error {
	if dir == "" || name == "" {
		return cmdenv.UsageError(errors.New("serve credentials revoke: --dir and --name are required"))
	}
	ul, err := loadUsers(dir)
	if err != nil {
		return cmdenv.UsageError(err)
	}
	i := slices.IndexFunc(ul.Users, func(u credUser) bool { return u.Name == name })
	if i < 0 {
		return cmdenv.UsageError(fmt.Errorf("serve credentials revoke: no credential named %q in %s", name, filepath.Join(dir, usersFile)))
	}
	ul.Users = slices.Delete(ul.Users, i, i+1)
	if err := saveUsers(dir, ul); err != nil {
		return err
	}
	for _, f := range []string{name + ".nk", name + "-key.pem", name + "-cert.pem"} {
		os.Remove(filepath.Join(dir, f))
	}
	fmt.Fprintf(out, "worksteal serve credentials: revoked %s; restart worksteal serve (the others keep their credentials)\n", name)
	return nil
}

// allRoles are the roles (clusterops.Roles) in the order serve init
// writes them.
var allRoles = func() []cluster.Role {
	rs := make([]cluster.Role, len(clusterops.Roles))
	for i, r := range clusterops.Roles {
		rs[i] = cluster.Role(r)
	}
	return rs
}()
