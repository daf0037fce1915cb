package cluster_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
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

// A continuation adds up what the children computed: the root spawns
// three children and a continuation that runs once they are done (no
// slot waits for them), with their outputs.
func ExampleThen() {
	url, stop := embedded()
	defer stop()
	nc, _ := nats.Connect(url)
	defer nc.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	node, _ := cluster.New(nc, cluster.WithSlots(1))
	node.Handle("square", func(ctx context.Context, p []byte) ([]byte, error) {
		n, _ := strconv.Atoi(string(p))
		return []byte(strconv.Itoa(n * n)), nil
	})
	node.Handle("squares", func(ctx context.Context, p []byte) ([]byte, error) {
		if err := cluster.Then(ctx, "add", nil); err != nil {
			return nil, err
		}
		for _, n := range []string{"1", "2", "3"} {
			cluster.Spawn(ctx, "square", []byte(n))
		}
		return nil, nil
	})
	node.Handle("add", func(ctx context.Context, _ []byte) ([]byte, error) {
		sum := 0
		for _, r := range cluster.ChildResults(ctx) {
			n, _ := strconv.Atoi(string(r))
			sum += n
		}
		return []byte(strconv.Itoa(sum)), nil
	})
	go node.Serve(ctx)

	// Reduced with sum, the job's value counts each value once: the
	// children's outputs went to the continuation, whose value stands
	// for the root's.
	sub, _ := node.Submit(ctx, cluster.Job{ID: "squares", Reduce: "sum", Tasks: []cluster.Task{{Handler: "squares"}}})
	defer sub.Stop()
	rs, _ := sub.Wait(ctx)
	v, _, _ := sub.Value()
	fmt.Println(string(rs[0].Output), string(v))
	// Output: 14 14
}

// A handler whose command spawns children: SpawnEnv gives the command the
// environment that worksteal spawn (SpawnFromEnv) reads.
func ExampleSpawnEnv() {
	handler := func(ctx context.Context, p []byte) ([]byte, error) {
		env, err := cluster.SpawnEnv(ctx)
		if err != nil {
			return nil, err
		}
		cmd := exec.CommandContext(ctx, "sh", "-c", string(p))
		cmd.Env = append(os.Environ(), env...) // the command may run: worksteal spawn -- CMD ARGS
		return cmd.Output()
	}
	_ = handler
}

// In a process started by a task (see SpawnEnv): add a child to the task's
// job. Outside one it says so.
func ExampleSpawnFromEnv() {
	os.Unsetenv("WORKSTEAL_SPAWN_SOCKET")
	err := cluster.SpawnFromEnv("sh", []byte(`{"cmd":"echo child"}`))
	fmt.Println(errors.Is(err, cluster.ErrNotInTask))
	// Output: true
}

// A job's reduction as its results arrive: the running total while the
// job goes on, the final one once it is done.
func ExampleSubmission_Value() {
	url, stop := embedded()
	defer stop()
	nc, _ := nats.Connect(url)
	defer nc.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	node, _ := cluster.New(nc, cluster.WithSlots(2))
	node.Handle("len", func(_ context.Context, p []byte) ([]byte, error) { return []byte(strconv.Itoa(len(p))), nil })
	go node.Serve(ctx)
	job := cluster.Job{ID: "lengths", Reduce: "max"}
	for _, w := range []string{"work", "stealing", "across", "machines"} {
		job.Tasks = append(job.Tasks, cluster.Task{Handler: "len", Payload: []byte(w)})
	}
	sub, _ := node.Submit(ctx, job)
	defer sub.Stop()
	sub.Wait(ctx)
	v, ok, err := sub.Value()
	fmt.Println(string(v), ok, err)
	// Output: 8 true <nil>
}
