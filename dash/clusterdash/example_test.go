package clusterdash_test

import (
	"context"
	"net/http"

	"github.com/nats-io/nats.go"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/worksteal/worksteal/cluster"
	"github.com/worksteal/worksteal/dash/clusterdash"
)

// Serve the dashboard of a cluster, with its JSON and Prometheus metrics,
// as "worksteal dash" does.
func ExampleNew() {
	opts, err := cluster.ConnectOptions(cluster.RoleObserver, cluster.Credentials{}.FromEnv())
	if err != nil {
		panic(err)
	}
	nc, err := nats.Connect("nats://127.0.0.1:4222", opts...)
	if err != nil {
		panic(err)
	}
	defer nc.Close()
	d, err := clusterdash.New(nc, clusterdash.Config{StragglerFactor: 3}) // 300% of the median
	if err != nil {
		panic(err)
	}
	go d.Run(context.Background())
	http.ListenAndServe("127.0.0.1:8222", d)
}

// The cluster's metrics in a program's own Prometheus registry.
func ExampleDashboard_Collector() {
	var d *clusterdash.Dashboard // made and run as in the example of New
	prometheus.MustRegister(d.Collector())
}
