package clusterops_test

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/nats-io/nats.go"

	"github.com/worksteal/worksteal/cluster"
	"github.com/worksteal/worksteal/internal/clusterops"
)

// A role's permissions, for a server configuration: a worker may pull
// tasks and ask the recorder to record their results, but may not write
// results itself, publish tasks or create jobs (what is not allowed is
// refused).
func ExampleRolePermissions() {
	p, err := clusterops.RolePermissions(cluster.RoleWorker, "ws")
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
	p, err := clusterops.RolePermissionsFor(cluster.RoleWorker, "ws", "gpu1")
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

// The recorder, as worksteal serve runs it beside its embedded server: on
// a connection with every right of the tier's account, it records the
// results that workers of the worker role ask it to, after checking that
// they hold the task (see the package doc, "Authority").
func ExampleRecord() {
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
	go clusterops.Record(ctx, n, func(op, reason, detail string) {
		fmt.Printf("refused a worker's %s: %s: %s\n", op, reason, detail)
	})
}

// The subjects a read-only observer role needs, for a server's permission
// configuration.
func ExampleObserverPermissions() {
	pub, sub := clusterops.ObserverPermissions("ws")
	fmt.Println(len(pub) > 0, sub)
	// Output: true [ws.status.* ws.refusals _INBOX_observer.>]
}

// A person's permissions: alice (a submitter key with her name) may publish
// tasks, write records and read results only of the jobs whose id begins
// "alice.", and asks the owner service for what no subject bounds.
func ExampleRolePermissionsFor_person() {
	p, err := clusterops.RolePermissionsFor(cluster.RoleSubmitter, "ws", "alice")
	if err != nil {
		panic(err)
	}
	for _, s := range p.Publish.Allow {
		if strings.HasPrefix(s, "ws.task") || strings.HasPrefix(s, "$KV.") || strings.HasPrefix(s, "ws.own") {
			fmt.Println("may publish", s)
		}
	}
	fmt.Println("her replies:", clusterops.HolderInboxPrefix(cluster.RoleSubmitter, "alice"))
	// Output:
	// may publish ws.task.alice.>
	// may publish $KV.ws_jobs.alice.>
	// may publish ws.own.alice.*
	// her replies: _INBOX_submitter_alice
}

// Storage limits, as worksteal serve sets them up and reports them.
func ExampleStorageLimits() {
	l := clusterops.StorageLimits{Tasks: 1_000_000, TaskBytes: 1 << 30, ResultBytes: 4 << 30}
	fmt.Println(l)
	_ = clusterops.WithLimits(l).(cluster.Option) // with cluster.New(nc, ...) on the node that sets the tier up
	// Output: task stream 1000000 tasks and 1024.0 MiB (a submit past them is refused), results 4096.0 MiB
}
