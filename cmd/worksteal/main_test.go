// The end-to-end tests of worksteal's commands that stay beside the binary
// (admission, routes, serve, stalls, storage, pipes and semaphores, GNU
// options over --nats) run it as real processes; e2e.Main builds it once.
// The larger suites are packages of their own, so that each runs beside the
// others and none nears go test's timeout: internal/gnutest (GNU parallel
// differential), internal/faulttest (workers and servers killed, trees),
// internal/attacktest (credentials, roles, attacks with real keys).
package main

import (
	"os"
	"testing"

	"github.com/worksteal/worksteal/cmd/worksteal/internal/e2e"
)

func TestMain(m *testing.M) { os.Exit(e2e.Main(m)) }
