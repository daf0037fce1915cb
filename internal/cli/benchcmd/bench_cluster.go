package benchcmd

import (
	"context"
	"fmt"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nuid"

	"github.com/worksteal/worksteal/cluster"
	"github.com/worksteal/worksteal/internal/bench"
	"github.com/worksteal/worksteal/internal/cli/cmdenv"
)

// utsHandler is the name of the built-in handler (and reduction) of the
// cluster's uts-sha1 cell: every worksteal worker has it.
const utsHandler = "uts-sha1"

// RegisterBuiltins gives a worker the built-in handlers besides the shell:
// uts-sha1, a node of a UTS tree (bench.UTSTaskRun), which spawns its
// children down to the split depth and counts the subtrees below on the
// worker's pool.
func RegisterBuiltins(node *cluster.Node) error {
	if err := node.Reduce(utsHandler, bench.UTSCombine); err != nil {
		return err
	}
	return node.Handle(utsHandler, func(ctx context.Context, p []byte) ([]byte, error) {
		out, err := bench.UTSTaskRun(cluster.PoolFrom(ctx), p, func(c []byte) error { return cluster.Spawn(ctx, utsHandler, c) })
		if err != nil {
			return nil, cluster.Permanent(err)
		}
		return out, nil
	})
}

// clusterCell is "bench cell cluster WORKLOAD SIZE THREADS [REPS [WARM]]
// --nats URL [--split D]": the workload runs as one job of spawning tasks
// on the cluster's workers (started apart: worksteal worker), THREADS is
// only reported (the workers' own -j and GOMAXPROCS decide).
func runClusterCell(env *cmdenv.Env, args []string) error {
	c, err := parseClusterCell(args)
	if err != nil {
		return err
	}
	root, err := bench.UTSRootTask(c.size, c.split)
	if err != nil {
		return cmdenv.UsageError(fmt.Errorf("bench cell cluster: SIZE: %w", err))
	}
	want, hasWant, _ := bench.Reference(c.workload, c.size)
	nc, ctx, roleOpts, err := cmdenv.ConnectAs(env.Ctx, c.url, "worksteal bench", cluster.RoleSubmitter, cluster.Credentials{}, env.Stderr)
	if err != nil {
		return err
	}
	defer nc.Close()
	node, err := cluster.New(nc, append([]cluster.Option{cluster.WithStream(c.stream)}, roleOpts...)...)
	if err != nil {
		return cmdenv.UsageError(err)
	}
	if err := node.Reduce(utsHandler, bench.UTSCombine); err != nil {
		return err
	}
	var idle atomic.Int64 // idle signals heard (every worker's)
	sub, err := nc.Subscribe(c.stream+".idle.>", func(*nats.Msg) { idle.Add(1) })
	if err != nil {
		return err
	}
	defer sub.Unsubscribe()
	var first bench.Result
	for i := range c.warm + c.reps {
		idle.Store(0)
		r, err := runClusterRound(ctx, nc, node, c.stream, root)
		if err != nil {
			return err
		}
		if i == 0 {
			first = r.res
			if hasWant && r.res != want {
				return fmt.Errorf("cluster %s %s: result %v, want %v", c.workload, c.size, r.res, want)
			}
		} else if r.res != first {
			return fmt.Errorf("result changed between iterations: %v vs %v", first, r.res)
		}
		if i >= c.warm {
			// handed: subtrees handed between workers (each a task message
			// and a result of its own); idle: idle signals heard.
			fmt.Fprintf(env.Stdout, "cluster %s %s %d %.3f %v handed=%d idle=%d task-msgs=%d\n", c.workload, c.size, c.threads,
				float64(r.elapsed.Nanoseconds())/1e6, r.res, r.handed, idle.Load(), r.msgs)
		}
	}
	return nil
}

// clusterCellArgs is a parsed "bench cell cluster" command line.
type clusterCellArgs struct {
	cellArgs
	url, stream, workload, size string
	split                       int
}

// parseClusterCell reads the command line of "bench cell cluster": its
// flags (--nats, --split, --stream) and positional arguments.
func parseClusterCell(args []string) (clusterCellArgs, error) {
	var pos []string
	c := clusterCellArgs{split: 4, stream: "ws"}
	for i := 0; i < len(args); i++ {
		switch a := args[i]; a {
		case "--nats", "--split", "--stream":
			if i+1 >= len(args) {
				return c, cmdenv.UsageError(fmt.Errorf("bench cell cluster: %s needs a value", a))
			}
			v := args[i+1]
			i++
			switch a {
			case "--nats":
				c.url = v
			case "--stream":
				c.stream = v
			default:
				n, err := strconv.Atoi(v)
				if err != nil || n < 0 || n > 64 {
					return c, cmdenv.UsageError(fmt.Errorf("bench cell cluster: --split %q: want a depth from 0 to 64", v))
				}
				c.split = n
			}
		default:
			pos = append(pos, a)
		}
	}
	if len(pos) < 4 || len(pos) > 6 {
		return c, cmdenv.UsageError(fmt.Errorf("bench cell cluster: want cluster WORKLOAD SIZE THREADS [REPS [WARM]] --nats URL, got %d argument(s)", len(pos)))
	}
	if c.url == "" {
		return c, cmdenv.UsageError(fmt.Errorf("bench cell cluster: --nats URL is required (the workers' server)"))
	}
	c.workload, c.size = pos[1], pos[2]
	if c.workload != "uts-sha1" {
		return c, cmdenv.UsageError(fmt.Errorf("bench cell cluster: workload %q: the cluster runs uts-sha1 only", c.workload))
	}
	ca, err := parseCellArgs(pos)
	c.cellArgs = ca
	return c, err
}

// clusterRound is one job of the cell: the tree's count, its time, the
// subtrees handed between workers and the task messages the server routed.
type clusterRound struct {
	res     bench.Result
	elapsed time.Duration
	handed  int64
	msgs    int64
}

// runClusterRound submits the tree rooted at root as one job, waits for its
// value and deletes the job.
func runClusterRound(ctx context.Context, nc *nats.Conn, node *cluster.Node, stream string, root []byte) (clusterRound, error) {
	id := "bench-uts-" + nuid.Next()
	// The job's task messages, counted as the server routes them: the root
	// and every subtree handed over (a copy published again included).
	var msgs atomic.Int64
	tsub, err := nc.Subscribe(stream+".task."+id+".>", func(*nats.Msg) { msgs.Add(1) })
	if err != nil {
		return clusterRound{}, err
	}
	if err := nc.Flush(); err != nil {
		tsub.Unsubscribe()
		return clusterRound{}, err
	}
	start := time.Now()
	s, err := node.Submit(ctx, cluster.Job{ID: id, Reduce: utsHandler, Tasks: []cluster.Task{{ID: "root", Handler: utsHandler, Payload: root}}})
	if err != nil {
		tsub.Unsubscribe()
		return clusterRound{}, err
	}
	rs, err := s.Wait(ctx)
	elapsed := time.Since(start)
	if err != nil {
		s.Stop()
		tsub.Unsubscribe()
		if ctx.Err() != nil {
			return clusterRound{}, cmdenv.InterruptedError(ctx)
		}
		return clusterRound{}, err
	}
	p := s.Progress()
	v, _, verr := s.Value()
	s.Stop()
	nc.Flush() // the messages routed before the last result are in
	tsub.Unsubscribe()
	dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	node.Delete(dctx, id)
	cancel()
	for _, r := range rs {
		if !r.OK() {
			return clusterRound{}, fmt.Errorf("bench cell cluster: task %s failed on %s: %s", r.Task, r.Worker, r.Error)
		}
	}
	if verr != nil {
		return clusterRound{}, verr
	}
	res, err := bench.UTSCount(v)
	return clusterRound{res: res, elapsed: elapsed, handed: int64(p.Spawned), msgs: msgs.Load()}, err
}
