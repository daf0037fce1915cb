package joblog_test

import (
	"fmt"
	"strings"
	"time"

	"github.com/worksteal/worksteal/internal/joblog"
	"github.com/worksteal/worksteal/runner"
)

func seqOf(j runner.Job) int { return j.Seq }

// Resume matches a joblog's rows to jobs by number, as GNU parallel's
// --resume (every logged job is skipped) and --resume-failed (only those
// that succeeded) do.
func ExampleResume() {
	jobs := []runner.Job{{Seq: 1, Command: "true"}, {Seq: 2, Command: "false"}, {Seq: 3, Command: "echo not run yet"}}
	log := joblog.Header + "\n" +
		"1\t:\t1700000000.000\t0.001\t0\t0\t0\t0\ttrue\n" +
		"2\t:\t1700000000.000\t0.001\t0\t0\t1\t0\tfalse\n"
	records, _ := joblog.Read(strings.NewReader(log))
	todo, skipped := joblog.Resume(jobs, seqOf, records, false)
	fmt.Println("--resume:", len(todo), "to run,", skipped, "skipped")
	todo, skipped = joblog.Resume(jobs, seqOf, records, true)
	fmt.Println("--resume-failed:", len(todo), "to run,", skipped, "skipped")
	// Output:
	// --resume: 1 to run, 2 skipped
	// --resume-failed: 2 to run, 1 skipped
}

// A joblog on any writer (GNU parallel's --joblog -: stdout).
func ExampleNew() {
	var b strings.Builder
	l, _ := joblog.New(&b)
	l.Write(joblog.Record{Seq: 1, Host: ":", Runtime: 1500 * time.Millisecond, Receive: 2, Command: "echo a"})
	fmt.Print(b.String())
	// Output:
	// Seq	Host	Starttime	JobRuntime	Send	Receive	Exitval	Signal	Command
	// 1	:	0.000	     1.500	0	2	0	0	echo a
}
