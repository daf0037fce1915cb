package main

import (
	"os"
	"strings"
	"testing"

	"github.com/worksteal/worksteal/cmd/worksteal/internal/e2e"
)

// TestBuiltWithTheProfile: `go build ./cmd/worksteal` picks up
// default.pgo (go build's -pgo=auto), and the binary says so in
// --version. The profile is what lets the compiler inline JoinFunc's
// plain-call path into the benchmark kernels `worksteal bench` and the
// anchor suite time (PROTOCOL.md "What a Join costs": 38.7 instructions
// per Join over a plain call without it, 18.7 with it); a build that lost
// it would time the other Join.
func TestBuiltWithTheProfile(t *testing.T) {
	if os.Getenv("WORKSTEAL_TEST_BIN") != "" {
		t.Skip("WORKSTEAL_TEST_BIN names a binary built elsewhere")
	}
	if _, err := os.Stat("default.pgo"); err != nil {
		t.Fatalf("cmd/worksteal/default.pgo: %v (regenerate it with scripts/pgo.sh)", err)
	}
	code, out, errOut := e2e.Run(t, "", nil, "--version")
	if code != 0 {
		t.Fatalf("worksteal --version: exit %d, %s%s", code, out, errOut)
	}
	if !strings.Contains(out, "pgo default.pgo") {
		t.Errorf("worksteal --version = %q: want the profile it was built with (pgo default.pgo)", strings.TrimSpace(out))
	}
}
