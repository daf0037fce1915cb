package cluster_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/worksteal/worksteal"
	"github.com/worksteal/worksteal/cluster"
	"github.com/worksteal/worksteal/par"
)

// Environment of a child process started by these tests (the test binary
// re-exec pattern): its role and its settings.
const (
	envRole  = "WS_CLUSTER_TEST_ROLE" // "worker", "submitter" or "server"
	envURL   = "WS_CLUSTER_TEST_URL"
	envName  = "WS_CLUSTER_TEST_NAME"
	envJob   = "WS_CLUSTER_TEST_JOB"
	envSlots = "WS_CLUSTER_TEST_SLOTS" // a worker process's slots (default 4)
	envAck   = "WS_CLUSTER_TEST_ACK"   // a worker process's ack wait (default testOptions')
)

func TestMain(m *testing.M) {
	switch os.Getenv(envRole) {
	case "worker":
		os.Exit(workerMain())
	case "submitter":
		os.Exit(submitterMain())
	case "server":
		os.Exit(serverMain()) // security_bench_test.go
	}
	os.Exit(m.Run())
}

// Options every node of one test shares: a short ack deadline so that lost
// workers are noticed quickly, short waits so that stops are quick.
func testOptions(extra ...cluster.Option) []cluster.Option {
	return append([]cluster.Option{
		cluster.WithAckWait(2 * time.Second),
		cluster.WithFetchWait(500 * time.Millisecond),
		cluster.WithDefaultTimeout(20 * time.Second),
		cluster.WithBackoff(backoffFast),
	}, extra...)
}

// cancelled counts handler runs stopped by their ctx (in this process).
var cancelled atomic.Int64

// register installs the test handlers on a node.
func register(n *cluster.Node) {
	must := func(err error) {
		if err != nil {
			panic(err)
		}
	}
	registerTree(n) // tree_test.go
	registerFib(n)  // reduce_forms_test.go
	must(n.Handle("upper", func(_ context.Context, p []byte) ([]byte, error) {
		return []byte(strings.ToUpper(string(p))), nil
	}))
	// sum adds 0..n-1 on the worker's work-stealing pool.
	must(n.Handle("sum", func(ctx context.Context, p []byte) ([]byte, error) {
		k, err := strconv.Atoi(string(p))
		if err != nil {
			return nil, cluster.Permanent(err)
		}
		pool := cluster.PoolFrom(ctx)
		if pool == nil {
			return nil, errors.New("no pool in the handler's ctx")
		}
		total, err := worksteal.Run(pool, func(w *worksteal.Worker) int {
			return par.ReduceRange(w, 0, k, 0, func(_ *worksteal.Worker, lo, hi, acc int) int {
				for i := lo; i < hi; i++ {
					acc += i
				}
				return acc
			}, func(a, b int) int { return a + b })
		})
		return []byte(strconv.Itoa(total)), err
	}))
	// slow checkpoints, then sleeps payload milliseconds; a redelivered run
	// reports the checkpoint it resumed from.
	must(n.Handle("slow", func(ctx context.Context, p []byte) ([]byte, error) {
		ms, _ := strconv.Atoi(string(p))
		info, _ := cluster.TaskOf(ctx)
		prev, err := cluster.LoadCheckpoint(ctx)
		if err != nil {
			return nil, err
		}
		if err := cluster.SaveCheckpoint(ctx, []byte(fmt.Sprintf("%s@%d", info.Worker, info.Attempt))); err != nil {
			return nil, err
		}
		if os.Getenv(envRole) == "worker" {
			fmt.Printf("start %s %d\n", info.Task, info.Attempt) // the test waits for this line
		}
		select {
		case <-time.After(time.Duration(ms) * time.Millisecond):
		case <-ctx.Done():
			cancelled.Add(1)
			return nil, ctx.Err()
		}
		if prev != nil {
			return []byte("resumed from " + string(prev)), nil
		}
		return []byte("done"), nil
	}))
	// flaky fails until its attempt reaches the payload.
	must(n.Handle("flaky", func(ctx context.Context, p []byte) ([]byte, error) {
		want, _ := strconv.Atoi(string(p))
		info, _ := cluster.TaskOf(ctx)
		noteFlakyStart(info.Job+"."+info.Task, info.Attempt)
		if info.Attempt < want {
			return nil, fmt.Errorf("attempt %d fails", info.Attempt)
		}
		return []byte("ok@" + strconv.Itoa(info.Attempt)), nil
	}))
	must(n.Handle("poison", func(context.Context, []byte) ([]byte, error) {
		return []byte("partial output"), errors.New("always fails")
	}))
	// crash kills the worker process that runs it (a poison task).
	must(n.Handle("crash", func(context.Context, []byte) ([]byte, error) {
		if os.Getenv(envRole) == "worker" {
			os.Exit(3)
		}
		return nil, cluster.Permanent(errors.New("crash runs only in worker processes"))
	}))
	must(n.Handle("permanent", func(context.Context, []byte) ([]byte, error) {
		return nil, cluster.Permanent(errors.New("bad payload"))
	}))
	must(n.Handle("panics", func(context.Context, []byte) ([]byte, error) {
		panic("handler bug")
	}))
	// hangs hangs on its first copy until cancelled; a speculative copy
	// answers at once.
	must(n.Handle("hangs", func(ctx context.Context, p []byte) ([]byte, error) {
		info, _ := cluster.TaskOf(ctx)
		if info.Speculative {
			return []byte("copy"), nil
		}
		<-ctx.Done()
		cancelled.Add(1)
		return nil, ctx.Err()
	}))
	// bulk returns as many bytes as its payload says.
	must(n.Handle("bulk", func(_ context.Context, p []byte) ([]byte, error) {
		size, err := strconv.Atoi(string(p))
		if err != nil {
			return nil, cluster.Permanent(err)
		}
		return bytes.Repeat([]byte{'x'}, size), nil
	}))
}

// workerMain is a worker process: it serves the test handlers until
// killed or signalled.
func workerMain() int {
	nc, err := nats.Connect(os.Getenv(envURL), nats.MaxReconnects(-1), nats.ReconnectWait(50*time.Millisecond))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	slots := 4
	if v, err := strconv.Atoi(os.Getenv(envSlots)); err == nil && v > 0 {
		slots = v // tree_bench_test.go
	}
	opts := testOptions(cluster.WithSlots(slots), cluster.WithName(os.Getenv(envName)))
	if d, err := time.ParseDuration(os.Getenv(envAck)); err == nil {
		opts = append(opts, cluster.WithAckWait(d), // failover_bench_test.go
			cluster.WithErrorHandler(func(err error) { fmt.Fprintln(os.Stderr, os.Getenv(envName)+":", err) }))
	}
	n, err := cluster.New(nc, opts...)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	register(n)
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	fmt.Println("serving")
	if err := n.Serve(ctx); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// slowJob is a job of count "slow" tasks of ms milliseconds each.
func slowJob(id string, count, ms int) cluster.Job {
	job := cluster.Job{ID: id}
	for i := range count {
		job.Tasks = append(job.Tasks, cluster.Task{ID: fmt.Sprintf("t%03d", i), Handler: "slow", Payload: []byte(strconv.Itoa(ms))})
	}
	return job
}

// submitterMain is a submitter process: it submits slowJob and prints each
// result as it is recorded, until killed.
func submitterMain() int {
	nc, err := nats.Connect(os.Getenv(envURL))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	n, err := cluster.New(nc, testOptions()...)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	ctx := context.Background()
	s, err := n.Submit(ctx, slowJob(os.Getenv(envJob), 40, 100))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Println("submitted")
	for {
		r, err := s.Next(ctx)
		if err != nil {
			break
		}
		fmt.Println("result", r.Task)
	}
	return 0
}

// flaky's starts per task (in this process, for as long as it runs: a
// test that reads them clears its key first, as -count=2 runs it again in
// the same process).
var (
	flakyMu         sync.Mutex
	flakyStartTimes = map[string][]flakyStart{}
)

// flakyStart is one start of flaky: when, and which attempt.
type flakyStart struct {
	at      time.Time
	attempt int
}

func noteFlakyStart(key string, attempt int) {
	flakyMu.Lock()
	defer flakyMu.Unlock()
	flakyStartTimes[key] = append(flakyStartTimes[key], flakyStart{time.Now(), attempt})
}

func flakyStarts(key string) []flakyStart {
	flakyMu.Lock()
	defer flakyMu.Unlock()
	return append([]flakyStart(nil), flakyStartTimes[key]...)
}

func clearFlakyStarts(key string) {
	flakyMu.Lock()
	defer flakyMu.Unlock()
	delete(flakyStartTimes, key)
}
