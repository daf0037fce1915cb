package bench_test

import (
	"context"
	"fmt"

	"github.com/worksteal/worksteal"
	"github.com/worksteal/worksteal/internal/bench"
)

// Prepare one cell and run it by hand: nqueens 8 on the worksteal runtime
// with 2 workers.
func ExamplePrepare() {
	in, err := bench.Prepare("nqueens", "8", bench.WS, 2)
	if err != nil {
		panic(err)
	}
	defer in.Close()
	it, err := in.Run()
	if err != nil {
		panic(err)
	}
	fmt.Println(it.Result) // it.Elapsed and it.Steals vary from run to run
	// Output: 92
}

// A small suite: two workloads, sequential Go against worksteal at 1 and 2
// workers. Times vary; results and the shape of the tables do not.
func ExampleSuite() {
	s := &bench.Suite{
		Entries: []bench.Entry{
			{Workload: "fib", Size: "20", Impls: []bench.Impl{bench.Seq, bench.WS}},
			{Workload: "uts-sha1", Size: "default", Impls: []bench.Impl{bench.Seq, bench.WS}},
		},
		Reps: 3,
	}
	rep, err := s.Run(context.Background())
	if err != nil {
		panic(err)
	}
	for _, t := range rep.Tables {
		fmt.Printf("%s %s: %d joins, result %v\n", t.Workload, t.Size, t.Joins, t.Result)
		for _, row := range t.Rows {
			fmt.Printf("  %s at %d worker counts\n", row.Impl, len(row.Ms))
		}
	}
	// rep.WriteText(os.Stdout) prints the tables with times and ratios.

	// Output:
	// fib 20: 10945 joins, result 6765
	//   go-seq at 1 worker counts
	//   ws at 2 worker counts
	// uts-sha1 default: 1049 joins, result 1732 leaves=1050 depth=6
	//   go-seq at 1 worker counts
	//   ws at 2 worker counts
}

// The standard UTS trees and their published counts.
func ExampleStandardTrees() {
	for _, t := range bench.StandardTrees() {
		if !t.Large {
			fmt.Printf("%-7s %-36s %v\n", t.Name, t.String(), t.Want)
		}
	}
	// Output:
	// default -t 1 -a 0 -d 6 -b 4 -r 0             1732 leaves=1050 depth=6
	// T1      -t 1 -a 3 -d 10 -b 4 -r 19           4130071 leaves=3305118 depth=10
	// T2      -t 1 -a 2 -d 16 -b 6 -r 502          4117769 leaves=2342762 depth=81
	// T3      -t 0 -b 2000 -m 8 -q 0.124875 -r 42  4112897 leaves=3599034 depth=1572
	// T4      -t 2 -a 0 -d 16 -b 6 -m 4 -q 0.234375 -f 0.5 -r 1 4132453 leaves=3108986 depth=134
	// T5      -t 1 -a 0 -d 20 -b 4 -r 34           4147582 leaves=2181318 depth=20
}

// Count a UTS tree given by the reference implementation's parameters.
func ExampleParseUTSTree() {
	t, err := bench.ParseUTSTree("-t 1 -a 0 -d 6 -b 4 -r 0")
	if err != nil {
		panic(err)
	}
	fmt.Println(t.Count(), t.Known, t.Count() == t.Want)
	// Output: 1732 leaves=1050 depth=6 true true
}

// The published result and the number of joins of a workload size.
func ExampleJoins() {
	joins, _ := bench.Joins("fib", "35")
	ref, _, _ := bench.Reference("fib", "35")
	fmt.Println(ref, joins)
	// Output: 9227465 14930351
}

// Body runs a workload on a pool you configure, here with tracing on.
func ExampleBody() {
	body, err := bench.Body("fib", "20")
	if err != nil {
		panic(err)
	}
	pool, _ := worksteal.New(worksteal.Config{Workers: 2, Trace: 1 << 10})
	defer pool.Close()
	res, _ := worksteal.Run(pool, body)
	fmt.Println(res.Value, pool.Trace() != nil)
	// Output: 6765 true
}

// An iteration that gives up when its context is done: here a deadline
// that has already passed, so nothing runs.
func ExampleInstance_RunContext() {
	in, err := bench.Prepare("fib", "25", bench.WS, 2)
	if err != nil {
		panic(err)
	}
	defer in.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = in.RunContext(ctx)
	fmt.Println(err)
	// Output: context canceled
}
