package cluster_test

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/worksteal/worksteal/cluster"
	embeddedserver "github.com/worksteal/worksteal/cluster/embedded"
)

// embedded starts a JetStream server in this process (what worksteal
// serve runs) and returns its URL and a stop function.
func embedded() (string, func()) {
	srv, err := embeddedserver.Start(embeddedserver.Config{})
	if err != nil {
		panic(err)
	}
	return srv.URL(), srv.Shutdown
}

// A worker serves a handler; a submitter submits a job and waits for its
// results, each recorded exactly once.
func Example() {
	url, stop := embedded()
	defer stop()
	nc, _ := nats.Connect(url)
	defer nc.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	node, _ := cluster.New(nc, cluster.WithSlots(2), cluster.WithAckWait(2*time.Second))
	node.Handle("upper", func(ctx context.Context, p []byte) ([]byte, error) {
		return []byte(strings.ToUpper(string(p))), nil
	})
	go node.Serve(ctx)

	sub, err := node.Submit(ctx, cluster.Job{ID: "words", MaxAttempts: 3, Tasks: []cluster.Task{
		{Handler: "upper", Payload: []byte("work")},
		{Handler: "upper", Payload: []byte("stealing")},
	}})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer sub.Stop()
	results, _ := sub.Wait(ctx)
	for _, r := range results {
		fmt.Println(r.Task, string(r.Output), r.Attempt)
	}
	// Output:
	// 0 WORK 1
	// 1 STEALING 1
}

// Cancel stops a job: its queued tasks are removed, its running ones
// stopped, and its followers end.
func ExampleNode_Cancel() {
	url, stop := embedded()
	defer stop()
	nc, _ := nats.Connect(url)
	defer nc.Close()
	ctx := context.Background()
	node, _ := cluster.New(nc)
	// No worker serves "render": the job waits in the queue.
	sub, _ := node.Submit(ctx, cluster.Job{ID: "film", Tasks: []cluster.Task{{Handler: "render"}}})
	defer sub.Stop()

	if err := node.Cancel(ctx, "film"); err != nil {
		fmt.Println(err)
	}
	_, err := sub.Wait(ctx)
	fmt.Println(err)
	// Output:
	// cluster: job cancelled: job film
}
