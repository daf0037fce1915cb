package cluster_test

import (
	"context"
	"errors"
	"testing"

	"github.com/worksteal/worksteal/cluster"
	"github.com/worksteal/worksteal/internal/clusterops"
)

// A handler no worker has is refused at Submit while a worker's
// registration lasts: while it serves, and just after it stopped (its
// entry says so for the registry's 15 s), not accepted silently.
func TestUnknownHandlerRefusedWhileARegistrationLasts(t *testing.T) {
	srv := startServer(t)
	w, err := cluster.New(connect(t, srv.ClientURL()), testOptions(cluster.WithName("w"))...)
	if err != nil {
		t.Fatal(err)
	}
	register(w)
	ctx, stop := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- w.Serve(ctx) }()
	n := submitter(t, connect(t, srv.ClientURL()))
	waitFor(t, "the worker's registration", func() bool { ws, _ := clusterops.Workers(context.Background(), n); return len(ws) == 1 })
	submit := func(id string) error {
		s, err := n.Submit(context.Background(), cluster.Job{ID: id, Tasks: []cluster.Task{{Handler: "nosuch"}}})
		if s != nil {
			s.Stop()
		}
		return err
	}
	if err := submit("live"); !errors.Is(err, cluster.ErrUnknownHandler) {
		t.Fatalf("Submit with the worker serving: %v; want ErrUnknownHandler", err)
	}
	stop()
	if err := <-served; err != nil {
		t.Fatal(err)
	}
	if err := submit("stopped"); !errors.Is(err, cluster.ErrUnknownHandler) {
		t.Errorf("Submit just after the worker stopped: %v; want ErrUnknownHandler (its registration lasts)", err)
	}
	if ws, err := clusterops.Workers(context.Background(), n); err != nil || len(ws) != 0 {
		t.Errorf("Workers after the stop: %v, %v; want none live", ws, err)
	}
}
