package cluster_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/nats-io/nats.go"

	"github.com/worksteal/worksteal/cluster"
	"github.com/worksteal/worksteal/dash/clusterdash"
)

// A dashboard connects as an observer, with the files serve init wrote
// (or those named by $WORKSTEAL_CREDS and $WORKSTEAL_TLS_CA).
func ExampleConnectOptions() {
	creds := cluster.Credentials{Creds: "/etc/worksteal/observer.nk", TLSCA: "/etc/worksteal/ca.pem"}.FromEnv()
	opts, err := cluster.ConnectOptions(cluster.RoleObserver, creds)
	if err != nil {
		fmt.Println(err) // names the file, never its contents
		return
	}
	nc, err := nats.Connect("nats://head:4222", opts...)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer nc.Close()
	d, err := clusterdash.New(nc, clusterdash.Config{}) // the observer and its page
	if err != nil {
		fmt.Println(err)
		return
	}
	go d.Run(context.Background())
	http.ListenAndServe("localhost:8080", d)
}

// A worker whose credentials are a worker's: it never sets the tier up,
// and waits for a submitter to.
func ExampleWithRole() {
	opts, _ := cluster.ConnectOptions(cluster.RoleWorker, cluster.Credentials{}.FromEnv())
	nc, err := nats.Connect(nats.DefaultURL, opts...)
	if err != nil {
		return
	}
	defer nc.Close()
	node, _ := cluster.New(nc, cluster.WithRole(cluster.RoleWorker), cluster.WithSlots(8))
	node.Handle("upper", func(_ context.Context, p []byte) ([]byte, error) { return []byte(strings.ToUpper(string(p))), nil })
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	node.Serve(ctx)
}
