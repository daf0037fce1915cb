package cluster_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/worksteal/worksteal/cluster"
	"github.com/worksteal/worksteal/internal/clusterops"
)

// subjectMatches says a NATS subject matches a permission's pattern ("*"
// one token, ">" the rest).
func subjectMatches(pattern, subject string) bool {
	p, s := strings.Split(pattern, "."), strings.Split(subject, ".")
	for i, tok := range p {
		switch {
		case tok == ">":
			return len(s) > i
		case i >= len(s):
			return false
		case tok != "*" && tok != s[i]:
			return false
		}
	}
	return len(p) == len(s)
}

// expand expands the brace groups of a table cell's subject:
// "a.{b,c}" is "a.b" and "a.c".
func expand(s string) []string {
	i := strings.IndexByte(s, '{')
	if i < 0 {
		return []string{s}
	}
	j := i + strings.IndexByte(s[i:], '}')
	var out []string
	for _, alt := range strings.Split(s[i+1:j], ",") {
		out = append(out, expand(s[:i]+alt+s[j+1:])...)
	}
	return out
}

func allowed(s clusterops.Subjects, subject string) bool {
	ok := false
	for _, a := range s.Allow {
		ok = ok || subjectMatches(a, subject)
	}
	for _, d := range s.Deny {
		if subjectMatches(d, subject) {
			return false
		}
	}
	return ok
}

// TestRoleTableMatchesThePermissions reads the role × action table of
// docs/cluster-security.md and checks each cell against RolePermissions,
// and that each permission a role has is used by a row where the role
// says yes: the table cannot drift from the permissions.
func TestRoleTableMatchesThePermissions(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "docs", "cluster-security.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := strings.Cut(string(data), "<!-- role-table: begin -->")
	table, _, ok2 := strings.Cut(table, "<!-- role-table: end -->")
	if !ok || !ok2 {
		t.Fatal("docs/cluster-security.md has no role-table markers")
	}
	// The columns: a worker, a person (a submitter named alice), an admin,
	// an observer.
	const person cluster.Role = "person alice"
	roles := []cluster.Role{cluster.RoleWorker, person, cluster.RoleAdmin, cluster.RoleObserver}
	perms := map[cluster.Role]clusterops.Permissions{}
	for _, r := range roles {
		switch r {
		case person:
			perms[r], err = clusterops.RolePermissionsFor(cluster.RoleSubmitter, "ws", "alice")
		case cluster.RoleWorker: // a key of its own, w1 (the default of serve init)
			perms[r], err = clusterops.RolePermissionsFor(cluster.RoleWorker, "ws", "w1")
		default:
			perms[r], err = clusterops.RolePermissions(r, "ws")
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	type row struct {
		kind     string
		subjects []string
		yes      map[cluster.Role]bool
	}
	var rows []row
	for _, line := range strings.Split(strings.TrimSpace(table), "\n")[2:] {
		f := strings.Split(strings.Trim(line, "| "), "|")
		if len(f) != 3+len(roles) {
			t.Fatalf("table row %q: want %d cells", line, 3+len(roles))
		}
		for i := range f {
			f[i] = strings.TrimSpace(f[i])
		}
		r := row{kind: f[1], subjects: expand(strings.Trim(f[2], "`")), yes: map[cluster.Role]bool{}}
		for i, role := range roles {
			switch f[3+i] {
			case "yes":
				r.yes[role] = true
			case "-":
			default:
				t.Fatalf("row %q: cell %q: want yes or -", line, f[3+i])
			}
			p := perms[role].Publish
			if r.kind == "sub" {
				p = perms[role].Subscribe
			} else if r.kind != "pub" {
				t.Fatalf("row %q: kind %q: want pub or sub", line, r.kind)
			}
			for _, subj := range r.subjects {
				if got := allowed(p, subj); got != r.yes[role] {
					t.Errorf("%s %s %s: the table says %v, the permissions %v (%s)", role, r.kind, subj, r.yes[role], got, f[0])
				}
			}
		}
		rows = append(rows, r)
	}
	for _, role := range roles {
		for kind, s := range map[string]clusterops.Subjects{"pub": perms[role].Publish, "sub": perms[role].Subscribe} {
			for _, a := range s.Allow {
				used := false
				for _, r := range rows {
					for _, subj := range r.subjects {
						used = used || (r.kind == kind && r.yes[role] && subjectMatches(a, subj))
					}
				}
				if !used {
					t.Errorf("%s may %s %s, and no row of the table says so", role, kind, a)
				}
			}
		}
	}
}

// TestReadmeRoleMatrix checks the README's compact role × action matrix
// against the full table of docs/cluster-security.md (which
// TestRoleTableMatchesThePermissions checks against the permissions): each
// README row names an action of the full table and has its cells.
func TestReadmeRoleMatrix(t *testing.T) {
	section := func(file, marker string) []string {
		data, err := os.ReadFile(filepath.Join("..", file))
		if err != nil {
			t.Fatal(err)
		}
		_, table, ok := strings.Cut(string(data), "<!-- "+marker+": begin -->")
		table, _, ok2 := strings.Cut(table, "<!-- "+marker+": end -->")
		if !ok || !ok2 {
			t.Fatalf("%s has no %s markers", file, marker)
		}
		return strings.Split(strings.TrimSpace(table), "\n")[2:]
	}
	cells := func(line string) []string {
		f := strings.Split(strings.Trim(line, "| "), "|")
		for i := range f {
			f[i] = strings.TrimSpace(f[i])
		}
		return f
	}
	full := map[string][]string{}
	for _, line := range section("docs/cluster-security.md", "role-table") {
		f := cells(line)
		full[f[0]] = f[3:] // worker, person, admin, observer
	}
	rows := section("README.md", "role-matrix")
	if len(rows) < 10 {
		t.Errorf("the README's matrix has %d rows; want the 10 or more that matter", len(rows))
	}
	for _, line := range rows {
		f := cells(line)
		want, ok := full[f[0]]
		if !ok {
			t.Errorf("README matrix row %q: no action of that name in docs/cluster-security.md", f[0])
			continue
		}
		if got := strings.Join(f[1:], " "); got != strings.Join(want, " ") {
			t.Errorf("README matrix %q: %s; the full table (and the permissions) say %s", f[0], got, strings.Join(want, " "))
		}
	}
}
