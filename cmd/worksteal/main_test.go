// The end-to-end tests of this package (the cluster tier as real processes:
// faults, trees, security) run the worksteal binary, which TestMain builds
// once. The GNU parallel differential suite is in internal/gnutest.
package main

import (
	"fmt"
	"os"
	"testing"

	"github.com/worksteal/worksteal/internal/testbin"
)

var wsBin string // the worksteal binary built by TestMain

func TestMain(m *testing.M) {
	os.Exit(testMain(m))
}

func testMain(m *testing.M) int {
	dir, err := os.MkdirTemp("", "worksteal-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	if wsBin, err = testbin.Build(dir); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return m.Run()
}
