package cluster_test

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/nats-io/nats.go"

	"github.com/worksteal/worksteal/cluster"
)

// Next streams a job's results in the order workers record them, so that a
// large job's results need not be held at once; Progress counts them as
// they come.
func ExampleSubmission_Next() {
	url, stop := embedded()
	defer stop()
	nc, _ := nats.Connect(url)
	defer nc.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	node, _ := cluster.New(nc, cluster.WithSlots(2))
	node.Handle("square", func(ctx context.Context, p []byte) ([]byte, error) {
		n, err := strconv.Atoi(string(p))
		if err != nil {
			return nil, cluster.Permanent(err) // retrying cannot help
		}
		return []byte(strconv.Itoa(n * n)), nil
	})
	go node.Serve(ctx)

	var tasks []cluster.Task
	for i := 1; i <= 10; i++ {
		tasks = append(tasks, cluster.Task{Handler: "square", Payload: []byte(strconv.Itoa(i))})
	}
	tasks = append(tasks, cluster.Task{Handler: "square", Payload: []byte("eleven")})
	sub, err := node.Submit(ctx, cluster.Job{ID: "squares", Tasks: tasks})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer sub.Stop()

	sum := 0
	for {
		r, err := sub.Next(ctx)
		if errors.Is(err, cluster.ErrNoMoreResults) {
			break
		}
		if err != nil {
			fmt.Println(err)
			return
		}
		if r.Error != "" {
			fmt.Printf("task %d failed (%s): %s\n", r.Index, r.Failure, r.Error)
			continue
		}
		v, _ := strconv.Atoi(string(r.Output))
		sum += v
	}
	p := sub.Progress()
	fmt.Println("sum of squares:", sum)
	fmt.Println("succeeded", p.Succeeded, "failed", p.Failed, "of", p.Total)
	// Output:
	// task 10 failed (permanent): strconv.Atoi: parsing "eleven": invalid syntax
	// sum of squares: 385
	// succeeded 10 failed 1 of 11
}
