package embedded_test

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/nats-io/nats.go"

	"github.com/worksteal/worksteal/cluster"
	"github.com/worksteal/worksteal/cluster/embedded"
)

// A program runs the cluster tier's server, a worker and a submitter in
// one process; Wait reports the failed task, whose result says what kind
// of failure it was.
func Example() {
	srv, err := embedded.Start(embedded.Config{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer srv.Shutdown()
	nc, err := nats.Connect(srv.URL())
	if err != nil {
		fmt.Println(err)
		return
	}
	defer nc.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	node, _ := cluster.New(nc, cluster.WithSlots(2))
	node.Handle("upper", func(ctx context.Context, p []byte) ([]byte, error) {
		if len(p) == 0 {
			return nil, cluster.Permanent(errors.New("empty payload"))
		}
		return []byte(strings.ToUpper(string(p))), nil
	})
	served := make(chan error)
	go func() { served <- node.Serve(ctx) }()
	defer func() { cancel(); <-served }()

	sub, err := node.Submit(ctx, cluster.Job{ID: "words", Tasks: []cluster.Task{
		{Handler: "upper", Payload: []byte("work")},
		{Handler: "upper"},
	}})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer sub.Stop()
	results, err := sub.Wait(ctx)
	fmt.Println(errors.Is(err, cluster.ErrTasksFailed), err)
	for _, r := range results {
		fmt.Printf("%s %q %q %q\n", r.Task, r.Output, r.Failure, r.Error)
	}
	// Output:
	// true cluster: tasks failed: job words: 1 of 2 tasks failed (task 1: permanent: empty payload)
	// 0 "WORK" "" ""
	// 1 "" "permanent" "empty payload"
}
