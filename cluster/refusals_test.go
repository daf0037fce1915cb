package cluster_test

import (
	"context"
	"testing"

	"github.com/worksteal/worksteal/cluster"
	"github.com/worksteal/worksteal/internal/clusterops"
	"github.com/worksteal/worksteal/internal/testdeadline"
)

// TestCountRefusalJoinsTheRecordersCounts: a refusal made outside the
// recorder (worksteal serve counts its server's permission violations so)
// joins the counts that the recorder publishes on <stream>.refusals for
// the dashboard, counted before Record started.
func TestCountRefusalJoinsTheRecordersCounts(t *testing.T) {
	nc := connect(t, startServer(t).ClientURL())
	ctx, cancel := context.WithTimeout(context.Background(), testdeadline.Left(t))
	defer cancel()

	sub, _ := nc.SubscribeSync("ws.refusals")
	rec, _ := cluster.New(nc, cluster.WithName("recorder"))
	clusterops.CountRefusal(rec, "worker", "server/publish-denied") // before Record: kept
	clusterops.CountRefusal(rec, "person", "server/subscribe-denied")
	go clusterops.Record(ctx, rec, nil)

	m, err := sub.NextMsg(testdeadline.Left(t))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(m.Data), `{"person/server/subscribe-denied":1,"worker/server/publish-denied":1}`; got != want {
		t.Errorf("refusals = %s; want %s", got, want)
	}
}
