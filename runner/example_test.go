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

// Resume matches a joblog's rows to jobs by number, as GNU parallel's
// --resume (every logged job is skipped) and --resume-failed (only those
// that succeeded) do.
func ExampleResume() {
	jobs := []runner.Job{{Seq: 1, Command: "true"}, {Seq: 2, Command: "false"}, {Seq: 3, Command: "echo not run yet"}}
	log := runner.JoblogHeader + "\n" +
		"1\t:\t1700000000.000\t0.001\t0\t0\t0\t0\ttrue\n" +
		"2\t:\t1700000000.000\t0.001\t0\t0\t1\t0\tfalse\n"
	records, _ := runner.ReadJoblog(strings.NewReader(log))
	todo, skipped := runner.Resume(jobs, records, false)
	fmt.Println("--resume:", len(todo), "to run,", skipped, "skipped")
	todo, skipped = runner.Resume(jobs, records, true)
	fmt.Println("--resume-failed:", len(todo), "to run,", skipped, "skipped")
	// Output:
	// --resume: 1 to run, 2 skipped
	// --resume-failed: 2 to run, 1 skipped
}

// A joblog on any writer (GNU parallel's --joblog -: stdout).
func ExampleNewJoblog() {
	var b strings.Builder
	l, _ := runner.NewJoblog(&b)
	l.Write(runner.Record{Seq: 1, Host: ":", Runtime: 1500 * time.Millisecond, Receive: 2, Command: "echo a"})
	fmt.Print(b.String())
	// Output:
	// Seq	Host	Starttime	JobRuntime	Send	Receive	Exitval	Signal	Command
	// 1	:	0.000	     1.500	0	2	0	0	echo a
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

// A HaltTracker applies GNU parallel's --halt to results that come from
// elsewhere: here, stop at the second failure.
func ExampleHaltTracker() {
	t := runner.NewHaltTracker(runner.Halt{When: runner.HaltSoon, Why: runner.HaltOnFail, Count: 2}, 4)
	for seq, code := range []int{0, 3, 0, 5} {
		if t.Observe(runner.Result{Job: runner.Job{Seq: seq + 1}, Exit: runner.Exit{Code: code}}) {
			fmt.Printf("halt after job %d, exit status %d\n", seq+1, t.ExitStatus(seq+1))
			break
		}
	}
	// Output: halt after job 4, exit status 2
}

// --load and --memfree: a job starts only while the readings allow it
// (here injected; nil Read reads /proc).
func ExampleThrottle() {
	reads := 0
	th := &runner.Throttle{MaxLoad: 4, Every: 10 * time.Millisecond, Read: func() (runner.Reading, error) {
		reads++
		if reads < 3 {
			return runner.Reading{Load: 9}, nil // busy: wait
		}
		return runner.Reading{Load: 1}, nil
	}}
	jobs := []runner.Job{{Seq: 1, Command: "echo started"}}
	runner.Run(context.Background(), runner.Config{Slots: 1, Throttle: th, Stdout: os.Stdout}, jobs)
	fmt.Println("after", reads, "readings")
	// Output:
	// started
	// after 3 readings
}
