package cluster_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/worksteal/worksteal/cluster"
	"github.com/worksteal/worksteal/internal/clusterops"
	"github.com/worksteal/worksteal/internal/clusterwire"
	"github.com/worksteal/worksteal/internal/testdeadline"
)

// TestStallsSayWhatAJobWaitsFor: the stalls of a job say what its queued
// tasks wait for when no live worker can run them (here: no worker at
// all has started).
func TestStallsSayWhatAJobWaitsFor(t *testing.T) {
	node := submitter(t, connect(t, startServer(t).ClientURL()))
	ctx := context.Background()
	sub, _ := node.Submit(ctx, cluster.Job{ID: "film", Require: cluster.Labels{"gpu": "1"},
		Tasks: []cluster.Task{{Handler: "render"}, {Handler: "render"}}})
	defer sub.Stop()

	// The server counts a route's queued tasks a moment after they are
	// stored: ask again until it has (a status line would simply refresh).
	var stalls []clusterops.Stall
	for deadline := time.Now().Add(testdeadline.Left(t)); len(stalls) == 0 && time.Now().Before(deadline); {
		stalls, _ = clusterops.Stalls(ctx, node, "film")
		if len(stalls) == 0 {
			time.Sleep(20 * time.Millisecond)
		}
	}
	if len(stalls) != 1 || stalls[0].Handler != "render" || clusterwire.LabelString(stalls[0].Require) != "gpu=1" || stalls[0].Queued != 2 {
		t.Errorf("stalls = %+v; want render, gpu=1, 2 queued", stalls)
	}
}

// TestHandlersAreNamedSorted: the handlers a worker serves, as its
// start-up line names them.
func TestHandlersAreNamedSorted(t *testing.T) {
	node := submitter(t, connect(t, startServer(t).ClientURL()))
	node.Handle("upper", func(_ context.Context, p []byte) ([]byte, error) { return []byte(strings.ToUpper(string(p))), nil })
	node.Handle("echo", func(_ context.Context, p []byte) ([]byte, error) { return p, nil })
	if got := fmt.Sprint(clusterops.Handlers(node)); got != "[echo upper]" {
		t.Errorf("handlers = %s; want [echo upper]", got)
	}
}

// TestRoleTablesRefuseBadNamesAsInvalidOptions: the role tables (in
// internal/clusterops) refuse a bad stream name, role or holder name with
// an error that wraps cluster.ErrInvalidOption, as every option check of
// this package does.
func TestRoleTablesRefuseBadNamesAsInvalidOptions(t *testing.T) {
	for _, c := range []struct{ role, stream, name string }{
		{"worker", "a b", ""}, {"boss", "ws", ""}, {"worker", "ws", "a.b"}, {"submitter", "a.b", "alice"},
	} {
		if _, err := clusterops.RolePermissionsFor(c.role, c.stream, c.name); !errors.Is(err, cluster.ErrInvalidOption) {
			t.Errorf("RolePermissionsFor(%q, %q, %q) = %v; want an error wrapping ErrInvalidOption", c.role, c.stream, c.name, err)
		}
	}
}
