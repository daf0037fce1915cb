package cluster_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/worksteal/worksteal/cluster"
)

// WithOwner: the node of the person alice submits "alice.<id>" jobs; her
// key's file names her (serve credentials add writes that first line).
func ExampleWithOwner() {
	dir, _ := os.MkdirTemp("", "creds")
	defer os.RemoveAll(dir)
	file := filepath.Join(dir, "alice.nk")
	os.WriteFile(file, []byte("# worksteal submitter credentials of alice: an nkey seed.\nSU...\n"), 0o600)
	name, role, ok := cluster.Credentials{Creds: file}.Holder()
	fmt.Println(name, role, ok)
	opt := cluster.WithOwner(name) // with cluster.New(nc, cluster.WithRole(role), opt)
	fmt.Println(opt != nil)
	// Output:
	// alice submitter true
	// true
}
