package runner_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/worksteal/worksteal/runner"
)

// A template with ::: arguments, as GNU parallel users write it: every
// combination of the groups, values shell-quoted.
func ExampleInput_Jobs() {
	in := runner.Input{
		Template: []string{"convert", "{}", "{.}.png"},
		Sources:  []runner.Source{{Args: []string{"a.jpg", "my photo.jpg"}}},
	}
	jobs, _ := in.Jobs()
	for _, j := range jobs {
		fmt.Println(j.Seq, j.Command)
	}
	// Output:
	// 1 convert a.jpg a.png
	// 2 convert 'my photo.jpg' 'my photo'.png
}

// Jobs run on two slots; KeepOrder writes each job's output whole, in
// input order, whatever order they finish in.
func ExampleRun() {
	in := runner.Input{Lines: strings.NewReader("sleep 0.2; echo first\necho second\necho third\n")}
	jobs, _ := in.Jobs()
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

// Costs in a weight column start the longest jobs first.
func ExamplePlan() {
	in := runner.Input{WeightCol: 1, Lines: strings.NewReader("1\tgzip small\n50\tgzip big\n7\tgzip medium\n")}
	jobs, _ := in.Jobs()
	for _, j := range runner.Plan(jobs, runner.OrderAuto, nil) {
		fmt.Println(j.Command)
	}
	// Output:
	// gzip big
	// gzip medium
	// gzip small
}

// Sources combine as in GNU parallel: every combination, or, for a linked
// source (":::+"), side by side with the source before it.
func ExampleSource() {
	in := runner.Input{
		Template: []string{"echo", "{1}={2}", "{3}"},
		Sources: []runner.Source{
			{Args: []string{"a", "b"}},
			{Args: []string{"1", "2"}, Linked: true},
			{Args: []string{"x", "y"}},
		},
	}
	jobs, _ := in.Jobs()
	for _, j := range jobs {
		fmt.Println(j.Command)
	}
	// Output:
	// echo a=1 x
	// echo a=1 y
	// echo b=2 x
	// echo b=2 y
}

// {%} is the slot a job runs in, known only when it starts.
func ExampleJob_CommandIn() {
	jobs, _ := runner.Input{Template: []string{"render", "--gpu", "{%}", "{}"}, Sources: []runner.Source{{Args: []string{"frame 1"}}}}.Jobs()
	fmt.Println(jobs[0].Command)
	fmt.Println(jobs[0].CommandIn(2))
	// Output:
	// render --gpu {%} 'frame 1'
	// render --gpu 2 'frame 1'
}

// Resume matches a joblog's rows to jobs by number, as GNU parallel's
// --resume (every logged job is skipped) and --resume-failed (only those
// that succeeded) do.
func ExampleResume() {
	jobs, _ := runner.Input{Lines: strings.NewReader("true\nfalse\necho not run yet\n")}.Jobs()
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
	h, err := runner.ParseHalt("soon,fail=2")
	if err != nil {
		panic(err)
	}
	t := runner.NewHaltTracker(h, 4)
	for seq, code := range []int{0, 3, 0, 5} {
		if t.Observe(runner.Result{Job: runner.Job{Seq: seq + 1}, Exit: runner.Exit{Code: code}}) {
			fmt.Printf("halt after job %d, exit status %d\n", seq+1, t.ExitStatus(seq+1))
			break
		}
	}
	// Output: halt after job 4, exit status 2
}

// ParseHalt reads GNU parallel's --halt, long form or short.
func ExampleParseHalt() {
	for _, s := range []string{"now,fail=1", "soon,fail=20%", "-1"} {
		h, err := runner.ParseHalt(s)
		if err != nil {
			panic(err)
		}
		fmt.Printf("%s: when %d, why %d, count %d, percent %g\n", s, h.When, h.Why, h.Count, h.Percent)
	}
	// Output:
	// now,fail=1: when 2, why 0, count 1, percent 0
	// soon,fail=20%: when 1, why 0, count 0, percent 20
	// -1: when 1, why 1, count 1, percent 0
}

// Several arguments per job, as GNU parallel's -X: the word that holds {}
// is repeated for each, and the last arguments are spread over the slots;
// each job is tagged with its arguments (--tag).
func ExampleInput_contextReplace() {
	tag := "{}"
	jobs, err := runner.Input{
		Template: []string{"convert", "pic{}.jpg", "out.pdf"},
		Sources:  []runner.Source{{Args: []string{"1", "2", "3", "4", "5"}}},
		Fill:     true, ContextReplace: true, Spread: 2, Tag: &tag,
	}.Jobs()
	if err != nil {
		panic(err)
	}
	for _, j := range jobs {
		fmt.Printf("%s\t(tag %q)\n", j.Command, j.TagIn(1))
	}
	// Output:
	// convert pic1.jpg pic2.jpg pic3.jpg out.pdf	(tag "1 2 3")
	// convert pic4.jpg pic5.jpg out.pdf	(tag "4 5")
}

// GNU parallel's --plus {uniq}: the jobs whose values repeat are skipped;
// Run records them failed (exit status -2) without running anything.
func ExampleJob_Skipped() {
	in := runner.Input{
		Plus:     true,
		Template: []string{"echo", "{uniq}"},
		Sources:  []runner.Source{{Args: []string{"a", "b"}}, {Args: []string{"a", "b"}}},
	}
	jobs, _ := in.Jobs()
	for _, j := range jobs {
		fmt.Println(j.Command, j.Skipped())
	}
	// Output:
	// echo a a true
	// echo a b false
	// echo b a false
	// echo b b true
}
