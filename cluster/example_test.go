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

// Jobs lists the recorded jobs; Cancel stops one (its queued tasks are
// removed, its running ones stopped, its followers end).
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
	jobs, _ := node.Jobs(ctx)
	for _, j := range jobs {
		fmt.Println(j.ID, j.Total, j.Cancelled)
	}
	_, err := sub.Wait(ctx)
	fmt.Println(err)
	// Output:
	// film 1 true
	// cluster: job cancelled: job film
}

// Stalls says what a job's queued tasks wait for when no live worker can
// run them (here: no worker at all has started).
func ExampleNode_Stalls() {
	url, stop := embedded()
	defer stop()
	nc, _ := nats.Connect(url)
	defer nc.Close()
	ctx := context.Background()
	node, _ := cluster.New(nc)
	sub, _ := node.Submit(ctx, cluster.Job{ID: "film", Require: cluster.Labels{"gpu": "1"},
		Tasks: []cluster.Task{{Handler: "render"}, {Handler: "render"}}})
	defer sub.Stop()

	// The server counts a route's queued tasks a moment after they are
	// stored: ask again until it has (a status line would simply refresh).
	var stalls []cluster.Stall
	for deadline := time.Now().Add(10 * time.Second); len(stalls) == 0 && time.Now().Before(deadline); {
		stalls, _ = node.Stalls(ctx, "film")
		if len(stalls) == 0 {
			time.Sleep(20 * time.Millisecond)
		}
	}
	for _, s := range stalls {
		fmt.Println(s.Handler, s.Require, s.Queued)
	}
	// Output:
	// render gpu=1 2
}

// The handlers a worker serves, as its start-up line names them.
func ExampleNode_Handlers() {
	url, stop := embedded()
	defer stop()
	nc, _ := nats.Connect(url)
	defer nc.Close()
	node, _ := cluster.New(nc)
	node.Handle("upper", func(_ context.Context, p []byte) ([]byte, error) { return []byte(strings.ToUpper(string(p))), nil })
	node.Handle("echo", func(_ context.Context, p []byte) ([]byte, error) { return p, nil })
	fmt.Println(node.Handlers())
	// Output: [echo upper]
}
