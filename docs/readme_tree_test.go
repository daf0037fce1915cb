package docs_test

import (
	"context"
	"strconv"

	"github.com/worksteal/worksteal/cluster"
)

// docs/cluster.md, "Trees: tasks that spawn tasks".
func readmeTree(ctx context.Context, node *cluster.Node) []byte {
	node.Handle("fib", func(ctx context.Context, p []byte) ([]byte, error) {
		n, _ := strconv.Atoi(string(p))
		if n < 2 {
			return p, nil
		}
		cluster.Spawn(ctx, "fib", []byte(strconv.Itoa(n-1)))
		cluster.Spawn(ctx, "fib", []byte(strconv.Itoa(n-2)))
		return []byte("0"), nil
	})
	sub, _ := node.Submit(ctx, cluster.Job{Reduce: "sum", Tasks: []cluster.Task{{Handler: "fib", Payload: []byte("30")}}})
	defer sub.Stop()
	sub.Wait(ctx)
	v, _, _ := sub.Value() // fib(30)
	return v
}

var _ = readmeTree
