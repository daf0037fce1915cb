package runner_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/worksteal/worksteal/runner"
)

// Jobs run on two slots; KeepOrder writes each job's output whole, in
// input order, whatever order they finish in.
func ExampleRun() {
	jobs := []runner.Job{{Seq: 1, Command: "sleep 0.2; echo first"}, {Seq: 2, Command: "echo second"}, {Seq: 3, Command: "echo third"}}
	sum, err := runner.Run(context.Background(), runner.Config{Slots: 2, KeepOrder: true, Stdout: os.Stdout}, jobs)
	if err != nil {
		panic(err)
	}
	fmt.Println(sum.Succeeded, "succeeded,", sum.Failed, "failed")
	// Output:
	// first
	// second
	// third
	// 3 succeeded, 0 failed
}

// Jobs made while the batch runs (a job per chunk of input, as run --pipe
// makes them): the sender closes the channel after the last job and
// selects on ctx.Done, since RunStream takes no more jobs once ctx is done.
func ExampleRunStream() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	jobs := make(chan runner.Job)
	go func() {
		defer close(jobs)
		for i, chunk := range []string{"a\nb\n", "c\n", "d\ne\nf\n"} {
			select {
			case jobs <- runner.Job{Seq: i + 1, Command: "awk 'END { print NR }'", Stdin: []byte(chunk)}:
			case <-ctx.Done():
				return
			}
		}
	}()
	sum, err := runner.RunStream(ctx, runner.Config{Slots: 2, KeepOrder: true, Stdout: os.Stdout}, jobs)
	if err != nil {
		panic(err)
	}
	fmt.Println(sum.Jobs, "jobs,", sum.Succeeded, "succeeded")
	// Output:
	// 2
	// 1
	// 3
	// 3 jobs, 3 succeeded
}

// Known costs (Weight) start the longest jobs first.
func ExamplePlan() {
	jobs := []runner.Job{{Seq: 1, Command: "gzip small", Weight: 1}, {Seq: 2, Command: "gzip big", Weight: 50}, {Seq: 3, Command: "gzip medium", Weight: 7}}
	for _, j := range runner.Plan(jobs, runner.OrderAuto, nil) {
		fmt.Println(j.Command)
	}
	// Output:
	// gzip big
	// gzip medium
	// gzip small
}

// A worker process that runs commands starts a reaper: should the worker
// die (SIGKILL included), the reaper kills the process groups of the
// commands still running. The reaper is a program whose main calls
// ReapGroups on its stdin; worksteal's is its hidden "reap" command.
func ExampleStartReaper() {
	reaper, err := runner.StartReaper("/usr/local/bin/worksteal", "reap", "--grace", "2s")
	if err != nil {
		fmt.Println(err) // no process groups on this system: no reaper
		return
	}
	defer reaper.Close()
	e := runner.Exec(context.Background(), runner.Command{Line: "make -j8", Reaper: reaper})
	fmt.Println(e.Code)
}

// ReapGroups is the reaper's main loop: "+PGID" and "-PGID" lines, then,
// at end of input, the groups still listed are stopped.
func ExampleReapGroups() {
	// Every group that started also ended: nothing to stop.
	err := runner.ReapGroups(strings.NewReader("+4242\n-4242\n"), time.Second)
	fmt.Println(err)
	// Output: <nil>
}
