package cluster_test

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/nats-io/nats.go"

	"github.com/worksteal/worksteal/cluster"
)

// A role's permissions, for a server configuration: a worker may pull
// tasks and ask the recorder to record their results, but may not write
// results itself, publish tasks or create jobs (what is not allowed is
// refused).
func ExampleRolePermissions() {
	p, err := cluster.RolePermissions(cluster.RoleWorker, "ws")
	if err != nil {
		panic(err)
	}
	for _, s := range p.Publish.Allow {
		if strings.HasPrefix(s, "$JS.API.CONSUMER.MSG.NEXT") || strings.HasPrefix(s, "ws.rec") {
			fmt.Println("may publish", s)
		}
	}
	fmt.Println("may write results:", slices.Contains(p.Publish.Allow, "$KV.ws_results.>"))
	fmt.Println("may publish tasks:", slices.Contains(p.Publish.Allow, "ws.task.>"))
	fmt.Println("may create jobs:", slices.Contains(p.Publish.Allow, "$KV.ws_jobs.>"))
	fmt.Println("may subscribe", p.Subscribe.Allow)
	// Output:
	// may publish $JS.API.CONSUMER.MSG.NEXT.ws_tasks.*
	// may publish ws.rec.*.*
	// may write results: false
	// may publish tasks: false
	// may create jobs: false
	// may subscribe [_INBOX_worker.> ws.dlv.> ws.cancel.> ws.routes ws.idle.> ws.held.*.* ws.hello.* ws.alive.*.*]
}

// A worker with a key of its own may write only its own registry entry
// and send idle signals only as itself.
func ExampleRolePermissionsFor() {
	p, err := cluster.RolePermissionsFor(cluster.RoleWorker, "ws", "gpu1")
	if err != nil {
		panic(err)
	}
	for _, s := range p.Publish.Allow {
		if strings.HasPrefix(s, "$KV.ws_workers") {
			fmt.Println("may register as", s)
		}
		if strings.HasPrefix(s, "ws.idle") {
			fmt.Println("may say it is idle on", s)
		}
	}
	// Output:
	// may register as $KV.ws_workers.gpu1
	// may say it is idle on ws.idle.gpu1
}

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
	node, _ := cluster.New(nc, cluster.WithRole(cluster.RoleObserver))
	workers, _ := node.Workers(context.Background())
	fmt.Println(len(workers), "workers")
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

// The recorder, as worksteal serve runs it beside its embedded server: on
// a connection with every right of the tier's account, it records the
// results that workers of the worker role ask it to, after checking that
// they hold the task (see the package doc, "Authority").
func ExampleNode_Record() {
	nc, err := nats.Connect(nats.DefaultURL) // serve: nats.InProcessServer, an nkey of its own
	if err != nil {
		fmt.Println(err)
		return
	}
	defer nc.Close()
	n, err := cluster.New(nc, cluster.WithName("recorder"))
	if err != nil {
		panic(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	go n.Record(ctx, func(op, reason, detail string) {
		fmt.Printf("refused a worker's %s: %s: %s\n", op, reason, detail)
	})
}
