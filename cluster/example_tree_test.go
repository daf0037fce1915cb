package cluster_test

import (
	"context"
	"fmt"
	"strconv"

	"github.com/nats-io/nats.go"

	"github.com/worksteal/worksteal/cluster"
)

// A handler that spawns its subproblems: fib(n) spawns fib(n−1) and
// fib(n−2), and the leaves' values add up (Reduce "sum") to fib(n). The
// children run on the worker that spawned them while no other worker is
// idle; an idle worker is handed the oldest pending ones. The job ends
// when no task of the tree is pending or running.
func ExampleSpawn() {
	url, stop := embedded()
	defer stop()
	nc, _ := nats.Connect(url)
	defer nc.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	node, _ := cluster.New(nc, cluster.WithSlots(4))
	node.Handle("fib", func(ctx context.Context, p []byte) ([]byte, error) {
		n, err := strconv.Atoi(string(p))
		if err != nil {
			return nil, cluster.Permanent(err)
		}
		if n < 2 {
			return p, nil // a leaf: fib(0) = 0, fib(1) = 1
		}
		for _, k := range []int{n - 1, n - 2} {
			if err := cluster.Spawn(ctx, "fib", []byte(strconv.Itoa(k))); err != nil {
				return nil, err
			}
		}
		return []byte("0"), nil // an inner node adds nothing itself
	})
	go node.Serve(ctx)

	sub, err := node.Submit(ctx, cluster.Job{ID: "fib15", Reduce: "sum",
		Tasks: []cluster.Task{{ID: "root", Handler: "fib", Payload: []byte("15")}}})
	if err != nil {
		panic(err)
	}
	defer sub.Stop()
	if _, err := sub.Wait(ctx); err != nil {
		panic(err)
	}
	v, _, err := sub.Value()
	fmt.Printf("fib(15) = %s %v\n", v, err)
	// Output: fib(15) = 610 <nil>
}

// A reduction of the program's own: the longest word of a text, each word
// a spawned task whose value (ReduceValue) is the word, not the handler's
// output. Both the worker and the submitter register it.
func ExampleNode_Reduce() {
	url, stop := embedded()
	defer stop()
	nc, _ := nats.Connect(url)
	defer nc.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	node, _ := cluster.New(nc, cluster.WithSlots(2))
	node.Reduce("longest", func(a, b []byte) ([]byte, error) {
		if len(b) > len(a) || len(b) == len(a) && string(b) < string(a) {
			return b, nil
		}
		return a, nil
	})
	node.Handle("words", func(ctx context.Context, p []byte) ([]byte, error) {
		for _, w := range []string{"spawn", "quiescence", "steal"} {
			cluster.Spawn(ctx, "word", []byte(w))
		}
		return nil, cluster.ReduceValue(ctx, nil) // the root adds no word
	})
	node.Handle("word", func(ctx context.Context, p []byte) ([]byte, error) {
		cluster.ReduceValue(ctx, p)
		return []byte(fmt.Sprintf("%d letters", len(p))), nil
	})
	go node.Serve(ctx)

	sub, _ := node.Submit(ctx, cluster.Job{ID: "words", Reduce: "longest",
		Tasks: []cluster.Task{{Handler: "words"}}})
	defer sub.Stop()
	sub.Wait(ctx)
	v, _, _ := sub.Value()
	fmt.Println(string(v))
	// Output: quiescence
}
