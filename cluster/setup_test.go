package cluster_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/nats-io/nats.go"

	"github.com/worksteal/worksteal/cluster"
	"github.com/worksteal/worksteal/internal/clusterops"
)

// Workers that start together on a fresh server set the tier up without
// rewriting what another has just made: no stream update goes out. An
// update of the task stream while another node adds its consumer to it was
// a data race inside nats-server 2.15.2 (the race detector failed a CI run
// on it, stop 44), and in a JetStream cluster every update is a proposal
// its meta leader must order. Red with setup's create-or-update, which
// tries an update first.
func TestNodesStartingTogetherSendNoStreamUpdate(t *testing.T) {
	srv := startServer(t)
	spy := connect(t, srv.ClientURL())
	var updates atomic.Int64
	var first atomic.Value
	sub, err := spy.Subscribe("$JS.API.STREAM.UPDATE.>", func(m *nats.Msg) {
		if updates.Add(1) == 1 {
			first.Store(m.Subject)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Unsubscribe()
	if err := spy.Flush(); err != nil {
		t.Fatal(err)
	}

	const workers = 8
	nodes := make([]*cluster.Node, workers)
	for i := range nodes {
		n, err := cluster.New(connect(t, srv.ClientURL()), testOptions(cluster.WithName(fmt.Sprintf("w%d", i)))...)
		if err != nil {
			t.Fatal(err)
		}
		register(n)
		nodes[i] = n
	}
	start := make(chan struct{})
	var wg sync.WaitGroup
	for _, n := range nodes {
		wg.Go(func() {
			<-start
			startServing(t, n)
		})
	}
	close(start)
	wg.Wait()
	waitFor(t, "every worker's registration", func() bool {
		ws, _ := clusterops.Workers(context.Background(), nodes[0])
		return len(ws) == workers
	})
	if err := spy.Flush(); err != nil {
		t.Fatal(err)
	}
	if n := updates.Load(); n != 0 {
		t.Errorf("%d stream updates while %d workers set the tier up (the first: %v); want none", n, workers, first.Load())
	}
}
