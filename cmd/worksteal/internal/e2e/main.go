// Package e2e runs the worksteal binary for the end-to-end tests of
// cmd/worksteal and the suites beside it (internal/faulttest,
// internal/attacktest): Main builds it once per test binary; Launch, Wait
// and Signal real processes, start and restart a serve (Server), run
// batches (Batch) on a deployment of one serve and three workers.
package e2e

import (
	"fmt"
	"os"
	"testing"

	"github.com/worksteal/worksteal/internal/testbin"
)

var Bin string // the worksteal binary Main built

// Main builds the worksteal binary into Bin, runs the tests and removes
// the binary: a test package's TestMain is os.Exit(e2e.Main(m)).
func Main(m *testing.M) int {
	dir, err := os.MkdirTemp("", "worksteal-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	if Bin, err = testbin.Build(dir); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return m.Run()
}
