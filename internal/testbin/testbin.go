// Package testbin gives end-to-end tests the worksteal binary: built once
// per test binary (from TestMain), or one built beforehand.
package testbin

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// Build returns the path of a worksteal binary: the one the environment
// variable WORKSTEAL_TEST_BIN names (a prepared benchmark script's, where no
// toolchain need be), or one it builds into dir with `go build`.
func Build(dir string) (string, error) {
	if bin := os.Getenv("WORKSTEAL_TEST_BIN"); bin != "" {
		return bin, nil
	}
	bin := filepath.Join(dir, "worksteal")
	out, err := exec.Command("go", "build", "-o", bin, "github.com/worksteal/worksteal/cmd/worksteal").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("building worksteal: %v\n%s", err, out)
	}
	return bin, nil
}
