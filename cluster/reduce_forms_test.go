package cluster_test

import (
	"context"
	"fmt"
	"strconv"
	"testing"

	"github.com/worksteal/worksteal/cluster"
)

// The fib trees of every form, for TestReductionMeansOneThingInEveryForm:
// a node of n < 2 outputs n; above, it spawns n−1 and n−2 and
//   - fibspawn: outputs nothing (its children's values are reduced);
//   - fibthen: adds its children's outputs in a continuation (fibadd);
//   - fibmix: does one or the other by the parity of n, so that Then
//     nodes have Spawn children and the other way round.
//
// With Reduce "sum" each gives fib(n), as fibSeq computes it in one
// goroutine: a value is counted once, by the continuation that reads it
// or by the job's reduction, never both.
func registerFib(n *cluster.Node) {
	must := func(err error) {
		if err != nil {
			panic(err)
		}
	}
	fib := func(name string, then func(k int) bool) cluster.Handler {
		return func(ctx context.Context, p []byte) ([]byte, error) {
			k, err := strconv.Atoi(string(p))
			if err != nil {
				return nil, cluster.Permanent(err)
			}
			if k < 2 {
				return p, nil
			}
			if then(k) {
				if err := cluster.Then(ctx, "fibadd", nil); err != nil {
					return nil, err
				}
			}
			for _, c := range []int{k - 1, k - 2} {
				if err := cluster.Spawn(ctx, name, []byte(strconv.Itoa(c))); err != nil {
					return nil, err
				}
			}
			return nil, nil
		}
	}
	must(n.Handle("fibspawn", fib("fibspawn", func(int) bool { return false })))
	must(n.Handle("fibthen", fib("fibthen", func(int) bool { return true })))
	must(n.Handle("fibmix", fib("fibmix", func(k int) bool { return k%2 == 0 })))
	must(n.Handle("fibadd", func(ctx context.Context, _ []byte) ([]byte, error) {
		sum := 0
		for _, r := range cluster.ChildResults(ctx) {
			if len(r) == 0 {
				continue // a Spawn node's output: its value went to the reduction
			}
			k, err := strconv.Atoi(string(r))
			if err != nil {
				return nil, fmt.Errorf("child output %q: %w", r, err)
			}
			sum += k
		}
		return []byte(strconv.Itoa(sum)), nil
	}))
}

func fibSeq(n int) int {
	a, b := 0, 1
	for range n {
		a, b = b, a+b
	}
	return a
}

// TestReductionMeansOneThingInEveryForm: on two worker processes (so
// that Spawn trees are handed over), fib(20) as a tree of each form
// reduces to the sequential fib(20) with "sum", and with the default
// reduction a Then tree's value is its root's output (not every node's).
func TestReductionMeansOneThingInEveryForm(t *testing.T) {
	srv := startServer(t)
	startWorkerProcess(t, srv.ClientURL(), "fa", nil)
	startWorkerProcess(t, srv.ClientURL(), "fb", nil)
	n := submitter(t, connect(t, srv.ClientURL()))
	const k = 20
	want := strconv.Itoa(fibSeq(k))
	for _, form := range []string{"fibspawn", "fibthen", "fibmix"} {
		for _, reduce := range []string{"sum", ""} {
			if reduce == "" && form != "fibthen" {
				continue // concat of a Spawn tree's leaves: order not fixed
			}
			job := cluster.Job{ID: form + "-" + reduce + "x", Reduce: reduce,
				Tasks: []cluster.Task{{ID: "root", Handler: form, Payload: []byte(strconv.Itoa(k))}}}
			s, err := n.Submit(context.Background(), job)
			if err != nil {
				t.Fatal(err)
			}
			rs := waitJob(t, s)
			s.Stop()
			for _, r := range rs {
				if !r.OK() {
					t.Errorf("%s: task %s failed: %s", form, r.Task, r.Error)
				}
			}
			v, ok, err := s.Value()
			if err != nil || !ok || string(v) != want {
				t.Errorf("%s, reduce %q: Value = %q, %v, %v; want fib(%d) = %s", form, reduce, v, ok, err, k, want)
			}
		}
	}
}
