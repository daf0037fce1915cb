package cluster_test

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/worksteal/worksteal/cluster"
	"github.com/worksteal/worksteal/internal/clusterops"
	"github.com/worksteal/worksteal/internal/testdeadline"
)

// registerTree installs the tree handlers: "tree" with payload
// "depth,fanout,ms" runs a node that sleeps ms milliseconds and, above
// depth 0, spawns fanout children of depth−1; its value is 1, so a job
// reduced with "sum" counts the nodes: (fanout^(depth+1) − 1)/(fanout − 1).
// "treefail" is the same but a node of depth 0 with index 3 fails once
// per worker process (the first time it runs there).
func registerTree(n *cluster.Node) {
	must := func(err error) {
		if err != nil {
			panic(err)
		}
	}
	must(n.Handle("tree", treeNode))
	must(n.Handle("spin", spinNode))
	// sizetree "d": a node of depth d > 0 spawns three children and a
	// continuation, sizeup, that adds their outputs + 1: the root's
	// output is the number of nodes, computed by continuations.
	must(n.Handle("sizetree", func(ctx context.Context, p []byte) ([]byte, error) {
		d, _ := strconv.Atoi(string(p))
		if d == 0 {
			time.Sleep(5 * time.Millisecond) // long enough for the idle worker to ask for work
			return []byte("1"), nil
		}
		if err := cluster.Then(ctx, "sizeup", nil); err != nil {
			return nil, err
		}
		for range 3 {
			if err := cluster.Spawn(ctx, "sizetree", []byte(strconv.Itoa(d-1))); err != nil {
				return nil, err
			}
		}
		return nil, nil
	}))
	must(n.Handle("sizeup", func(ctx context.Context, _ []byte) ([]byte, error) {
		total := 1
		rs := cluster.ChildResults(ctx)
		if len(rs) != 3 {
			return nil, fmt.Errorf("continuation got %d child results; want 3", len(rs))
		}
		for _, r := range rs {
			k, err := strconv.Atoi(string(r))
			if err != nil {
				return nil, fmt.Errorf("child result %q: %w", r, err)
			}
			total += k
		}
		return []byte(strconv.Itoa(total)), nil
	}))
}

// spinNode is a node of a tree of fixed work: payload "lo,hi,us" covers
// the leaves lo..hi−1; an inner node spawns up to four children that
// split its range, a leaf spins us microseconds. Every node's value is 1.
func spinNode(ctx context.Context, p []byte) ([]byte, error) {
	var lo, hi, us int
	if _, err := fmt.Sscanf(string(p), "%d,%d,%d", &lo, &hi, &us); err != nil || hi <= lo {
		return nil, cluster.Permanent(fmt.Errorf("spin payload %q: want lo,hi,us", p))
	}
	if hi-lo == 1 {
		spin(time.Duration(us) * time.Microsecond)
		return []byte("1"), nil
	}
	k := min(4, hi-lo)
	for i := range k {
		a, b := lo+(hi-lo)*i/k, lo+(hi-lo)*(i+1)/k
		if err := cluster.Spawn(ctx, "spin", fmt.Appendf(nil, "%d,%d,%d", a, b, us)); err != nil {
			return nil, err
		}
	}
	return []byte("1"), nil
}

// spin busy-waits d.
func spin(d time.Duration) {
	for start := time.Now(); time.Since(start) < d; {
	}
}

// spinNodes is the number of nodes of the spin tree over n leaves.
func spinNodes(n int) int {
	if n == 1 {
		return 1
	}
	k, total := min(4, n), 1
	for i := range k {
		total += spinNodes(n*(i+1)/k - n*i/k)
	}
	return total
}

func treeNode(ctx context.Context, p []byte) ([]byte, error) {
	f := strings.Split(string(p), ",")
	if len(f) != 3 {
		return nil, cluster.Permanent(fmt.Errorf("tree payload %q: want depth,fanout,ms", p))
	}
	depth, _ := strconv.Atoi(f[0])
	fanout, _ := strconv.Atoi(f[1])
	ms, _ := strconv.Atoi(f[2])
	if os.Getenv(envRole) == "worker" {
		info, _ := cluster.TaskOf(ctx)
		fmt.Printf("start %s %d\n", info.Task, info.Attempt) // a test may wait for this line
	}
	if depth > 0 {
		for range fanout {
			if err := cluster.Spawn(ctx, "tree", fmt.Appendf(nil, "%d,%d,%d", depth-1, fanout, ms)); err != nil {
				return nil, err
			}
		}
	}
	select {
	case <-time.After(time.Duration(ms) * time.Millisecond):
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return []byte("1"), nil
}

// treeSize is the number of nodes of a tree of that depth and fanout.
func treeSize(depth, fanout int) int {
	n, level := 0, 1
	for range depth + 1 {
		n += level
		level *= fanout
	}
	return n
}

// treeJob is one "tree" task, its nodes counted by the "sum" reduction.
func treeJob(id string, depth, fanout, ms int) cluster.Job {
	return cluster.Job{ID: id, Reduce: "sum", Tasks: []cluster.Task{{ID: "root", Handler: "tree", Payload: fmt.Appendf(nil, "%d,%d,%d", depth, fanout, ms)}}}
}

// checkTree checks the promise a user of trees sees: the job ends with
// every node counted exactly once, no failure, and the tasks recorded are
// the root and exactly the children handed over.
func checkTree(t *testing.T, s *cluster.Submission, rs []cluster.Result, want int) {
	t.Helper()
	for _, r := range rs {
		if !r.OK() {
			t.Errorf("task %s failed: %s", r.Task, r.Error)
		}
	}
	v, ok, err := s.Value()
	if err != nil || !ok || string(v) != strconv.Itoa(want) {
		t.Errorf("Value = %q, %v, %v; want %d nodes", v, ok, err, want)
	}
	p := s.Progress()
	if p.Total != 1+p.Spawned || len(rs) != p.Total || p.Done() != p.Total {
		t.Errorf("progress %+v with %d results: want total = 1 + spawned = results", p, len(rs))
	}
}

// Two workers, one tree: the worker that gets the root keeps its children
// until the other one says it is idle, then hands it half of them; the
// job ends with each node counted once, and the other worker did some.
func TestTreeSpillsToIdleWorkerAndCountsEachNodeOnce(t *testing.T) {
	srv := startServer(t)
	// One slot each: the worker holding the root is busy until its local
	// part of the tree is done, so a child it hands over goes to the other
	// worker's waiting pull and cannot come back to it however slow the
	// machine (with a free slot of its own it could pull its own spill back
	// first, and on a loaded machine it did).
	a := serve(t, connect(t, srv.ClientURL()), cluster.WithSlots(1), cluster.WithName("a"))
	b := serve(t, connect(t, srv.ClientURL()), cluster.WithSlots(1), cluster.WithName("b"))
	n := submitter(t, connect(t, srv.ClientURL()))
	const depth, fanout = 4, 4 // 341 nodes of 2 ms: 0.7 s on 1 slot
	s, err := n.Submit(context.Background(), treeJob("tree1", depth, fanout, 2))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	rs := waitJob(t, s)
	checkTree(t, s, rs, treeSize(depth, fanout))
	sa, sb := clusterops.StatsOf(a), clusterops.StatsOf(b)
	if sa.Spawned+sb.Spawned != int64(treeSize(depth, fanout)-1) {
		t.Errorf("spawned %d + %d children; want %d", sa.Spawned, sb.Spawned, treeSize(depth, fanout)-1)
	}
	if sa.Spilled+sb.Spilled == 0 || sa.Executed == 0 || sb.Executed == 0 {
		t.Errorf("no hand-over: a %+v, b %+v; want both workers to run nodes", sa, sb)
	}
	if p := s.Progress(); p.Spawned != int(sa.Spilled+sb.Spilled) {
		t.Errorf("progress shows %d spawned tasks; the workers handed over %d", p.Spawned, sa.Spilled+sb.Spilled)
	}
	checkRecordedOnce(t, n2(t, srv), len(rs))
}

// A lone worker with every slot busy hands nothing over: the whole tree
// is one task and one result (local first: no message per child).
func TestTreeStaysLocalWithoutIdleWorkers(t *testing.T) {
	srv := startServer(t)
	a := serve(t, connect(t, srv.ClientURL()), cluster.WithSlots(2))
	n := submitter(t, connect(t, srv.ClientURL()))
	s, err := n.Submit(context.Background(), treeJob("tree2", 3, 5, 0))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	rs := waitJob(t, s)
	checkTree(t, s, rs, treeSize(3, 5))
	if st := clusterops.StatsOf(a); len(rs) != 1 || st.Spilled != 0 || st.Spawned != int64(treeSize(3, 5)-1) {
		t.Errorf("%d results, stats %+v; want one result, nothing handed over", len(rs), st)
	}
}

// A worker killed (SIGKILL) in the middle of a tree, holding children it
// handed over and children it kept: the job still counts every node once.
func TestTreeSurvivesAWorkerKilledMidTree(t *testing.T) {
	srv := startServer(t)
	victim := startWorkerProcess(t, srv.ClientURL(), "victim", nil)
	handed := make(chan string, 1000)
	n := submitter(t, connect(t, srv.ClientURL()))
	const depth, fanout = 4, 4
	s, err := n.Submit(context.Background(), treeJob("tree3", depth, fanout, 20))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	// The victim has the root and its subtree to itself (about 1.7 s on 4
	// slots); a second worker starts, says it is idle and is handed
	// subtrees; then the victim dies with the rest.
	startWorkerProcess(t, srv.ClientURL(), "survivor", handed)
	select {
	case <-handed: // the survivor runs a node: it was handed over
	case <-time.After(testdeadline.Left(t)):
		t.Fatal("nothing was handed over to the idle survivor")
	}
	if err := victim.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	victim.Wait()
	rs := waitJob(t, s)
	checkTree(t, s, rs, treeSize(depth, fanout))
}

// A continuation runs when its children are done, with their outputs, and
// holds no slot while it waits: on a worker of one slot (one runner) a
// tree of depth 4 whose every inner node waits for three children
// completes, and the root's output is the tree's size as the
// continuations added it up.
func TestTreeContinuationsAddUpChildren(t *testing.T) {
	srv := startServer(t)
	a := serve(t, connect(t, srv.ClientURL()), cluster.WithSlots(1), cluster.WithName("a"))
	b := serve(t, connect(t, srv.ClientURL()), cluster.WithSlots(1), cluster.WithName("b"))
	n := submitter(t, connect(t, srv.ClientURL()))
	s, err := n.Submit(context.Background(), cluster.Job{ID: "sizes", Tasks: []cluster.Task{{ID: "root", Handler: "sizetree", Payload: []byte("4")}}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	rs := waitJob(t, s)
	if len(rs) != 1 || !rs[0].OK() || string(rs[0].Output) != strconv.Itoa(treeSize(4, 3)) {
		t.Fatalf("results %+v; want one, the root's, with output %d", rs, treeSize(4, 3))
	}
	// The idle worker asked for work, and got none: the children of a
	// task with a continuation stay where their outputs are awaited.
	sa, sb := clusterops.StatsOf(a), clusterops.StatsOf(b)
	if idle := min(sa.Executed, sb.Executed); idle != 0 || sa.IdleSignals+sb.IdleSignals == 0 || sa.Spilled+sb.Spilled != 0 {
		t.Errorf("a %+v, b %+v: want one worker idle (asking) and nothing handed over", sa, sb)
	}
}

// Progress says how many tasks each worker runs.
func TestProgressCountsRunningTasksPerWorker(t *testing.T) {
	srv := startServer(t)
	serve(t, connect(t, srv.ClientURL()), cluster.WithSlots(3), cluster.WithName("pw1"))
	n := submitter(t, connect(t, srv.ClientURL()))
	s, err := n.Submit(context.Background(), slowJob("perworker", 3, 3000))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	waitFor(t, "three tasks reported running on pw1", func() bool { return s.Progress().Workers["pw1"] == 3 })
	if p := s.Progress(); len(p.Workers) != 1 || p.Running != 3 {
		t.Errorf("progress %+v: want pw1 alone, running 3", p)
	}
}

// Two workers of one name (two nodes of one process, default names) still
// hand work to each other: an idle signal names its Serve, not the worker.
func TestTreeSpillsBetweenWorkersOfOneName(t *testing.T) {
	srv := startServer(t)
	a := serve(t, connect(t, srv.ClientURL()), cluster.WithSlots(2), cluster.WithName("twin"))
	b := serve(t, connect(t, srv.ClientURL()), cluster.WithSlots(2), cluster.WithName("twin"))
	n := submitter(t, connect(t, srv.ClientURL()))
	s, err := n.Submit(context.Background(), treeJob("twins", 4, 4, 2))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	rs := waitJob(t, s)
	checkTree(t, s, rs, treeSize(4, 4))
	if sa, sb := clusterops.StatsOf(a), clusterops.StatsOf(b); sa.Spilled+sb.Spilled == 0 || sa.Executed == 0 || sb.Executed == 0 {
		t.Errorf("a %+v, b %+v: want both to run nodes", sa, sb)
	}
}
