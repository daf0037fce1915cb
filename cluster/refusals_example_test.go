package cluster_test

import (
	"context"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/worksteal/worksteal/cluster"
)

// CountRefusal: a refusal made outside the recorder (worksteal serve
// counts its server's permission violations so) joins the counts that
// the recorder publishes on <stream>.refusals for the dashboard.
func ExampleNode_CountRefusal() {
	url, stop := embedded()
	defer stop()
	nc, _ := nats.Connect(url)
	defer nc.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	sub, _ := nc.SubscribeSync("ws.refusals")
	rec, _ := cluster.New(nc, cluster.WithName("recorder"))
	rec.CountRefusal("worker", "server/publish-denied") // before Record: kept
	rec.CountRefusal("person", "server/subscribe-denied")
	go rec.Record(ctx, nil)

	m, err := sub.NextMsg(time.Minute)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(string(m.Data))
	// Output: {"person/server/subscribe-denied":1,"worker/server/publish-denied":1}
}
