package cluster_test

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/worksteal/worksteal"
	"github.com/worksteal/worksteal/cluster"
	"github.com/worksteal/worksteal/par"
)

// A handler that keeps its progress: it loads the checkpoint of an earlier
// run (none on the first), saves one after each step, and so a retry
// resumes where the failed attempt stopped instead of starting over. Here
// the first attempt fails at step 3; the checkpoint is deleted once the
// result is recorded.
func ExampleSaveCheckpoint() {
	url, stop := embedded()
	defer stop()
	nc, _ := nats.Connect(url)
	defer nc.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	node, _ := cluster.New(nc, cluster.WithSlots(1))
	node.Handle("steps", func(ctx context.Context, _ []byte) ([]byte, error) {
		info, _ := cluster.TaskOf(ctx)
		cp, err := cluster.LoadCheckpoint(ctx)
		if err != nil {
			return nil, err
		}
		done := 0 // the steps done by earlier runs
		if cp != nil {
			done, _ = strconv.Atoi(string(cp))
		}
		fmt.Printf("attempt %d resumes after step %d\n", info.Attempt, done)
		for step := done + 1; step <= 5; step++ {
			if step == 3 && info.Attempt == 1 {
				return nil, errors.New("connection lost") // an ordinary error: retried
			}
			// ... the step's work ...
			if err := cluster.SaveCheckpoint(ctx, []byte(strconv.Itoa(step))); err != nil {
				return nil, err
			}
		}
		return []byte("5 steps done"), nil
	})
	go node.Serve(ctx)

	sub, err := node.Submit(ctx, cluster.Job{ID: "steps", RetryDelay: 10 * time.Millisecond,
		Tasks: []cluster.Task{{Handler: "steps"}}})
	if err != nil {
		panic(err)
	}
	defer sub.Stop()
	rs, err := sub.Wait(ctx)
	fmt.Println(string(rs[0].Output), "on attempt", rs[0].Attempt, err)
	// Output:
	// attempt 1 resumes after step 0
	// attempt 2 resumes after step 2
	// 5 steps done on attempt 2 <nil>
}

// An error wrapped with Permanent is recorded at once: a retry cannot mend
// a malformed payload, so the task fails on its first attempt although the
// job allows three, and the handler ran once.
func ExamplePermanent() {
	url, stop := embedded()
	defer stop()
	nc, _ := nats.Connect(url)
	defer nc.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	var runs atomic.Int32
	node, _ := cluster.New(nc, cluster.WithSlots(1))
	node.Handle("double", func(_ context.Context, p []byte) ([]byte, error) {
		runs.Add(1)
		n, err := strconv.Atoi(string(p))
		if err != nil {
			return nil, cluster.Permanent(err)
		}
		return []byte(strconv.Itoa(2 * n)), nil
	})
	go node.Serve(ctx)

	sub, err := node.Submit(ctx, cluster.Job{ID: "double", MaxAttempts: 3,
		Tasks: []cluster.Task{{Handler: "double", Payload: []byte("forty")}}})
	if err != nil {
		panic(err)
	}
	defer sub.Stop()
	rs, err := sub.Wait(ctx)
	fmt.Println(err)
	r := rs[0]
	fmt.Println(r.OK(), r.Failure, "attempt", r.Attempt, "deliveries", r.Deliveries, "runs", runs.Load())
	// Output:
	// cluster: tasks failed: job double: 1 of 1 tasks failed (task 0: permanent: strconv.Atoi: parsing "forty": invalid syntax)
	// false permanent attempt 1 deliveries 1 runs 1
}

// What a handler learns of the task it runs: its job, its id and index in
// the job, the attempt, and the worker. Outside a handler TaskOf says
// false.
func ExampleTaskOf() {
	url, stop := embedded()
	defer stop()
	nc, _ := nats.Connect(url)
	defer nc.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	node, _ := cluster.New(nc, cluster.WithSlots(2), cluster.WithName("worker-1"))
	node.Handle("describe", func(ctx context.Context, _ []byte) ([]byte, error) {
		info, ok := cluster.TaskOf(ctx)
		return fmt.Appendf(nil, "%v: job %s, task %s (index %d), attempt %d on %s",
			ok, info.Job, info.Task, info.Index, info.Attempt, info.Worker), nil
	})
	go node.Serve(ctx)

	sub, err := node.Submit(ctx, cluster.Job{ID: "report", Tasks: []cluster.Task{
		{ID: "intro", Handler: "describe"},
		{ID: "summary", Handler: "describe"},
	}})
	if err != nil {
		panic(err)
	}
	defer sub.Stop()
	rs, _ := sub.Wait(ctx)
	for _, r := range rs {
		fmt.Println(string(r.Output))
	}
	_, ok := cluster.TaskOf(context.Background())
	fmt.Println(ok)
	// Output:
	// true: job report, task intro (index 0), attempt 1 on worker-1
	// true: job report, task summary (index 1), attempt 1 on worker-1
	// false
}

// A handler spreads its own work over the worker's work-stealing pool:
// the tasks balance across workers, each task's sum across the cores of
// its worker. Outside a handler PoolFrom is nil.
func ExamplePoolFrom() {
	url, stop := embedded()
	defer stop()
	nc, _ := nats.Connect(url)
	defer nc.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	node, _ := cluster.New(nc, cluster.WithSlots(2))
	node.Handle("sumsquares", func(ctx context.Context, p []byte) ([]byte, error) {
		n, err := strconv.Atoi(string(p))
		if err != nil {
			return nil, cluster.Permanent(err)
		}
		total, err := worksteal.Run(cluster.PoolFrom(ctx), func(w *worksteal.Worker) int {
			return par.ReduceRange(w, 1, n+1, 0, func(_ *worksteal.Worker, lo, hi, acc int) int {
				for i := lo; i < hi; i++ {
					acc += i * i
				}
				return acc
			}, func(a, b int) int { return a + b })
		})
		return []byte(strconv.Itoa(total)), err
	})
	go node.Serve(ctx)

	sub, err := node.Submit(ctx, cluster.Job{ID: "squares", Tasks: []cluster.Task{
		{Handler: "sumsquares", Payload: []byte("100")},
		{Handler: "sumsquares", Payload: []byte("1000")},
	}})
	if err != nil {
		panic(err)
	}
	defer sub.Stop()
	rs, _ := sub.Wait(ctx)
	for _, r := range rs {
		fmt.Println(string(r.Output))
	}
	fmt.Println(cluster.PoolFrom(context.Background()) == nil)
	// Output:
	// 338350
	// 333833500
	// true
}
