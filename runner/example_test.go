package runner_test

import (
	"context"
	"fmt"
	"os"
	"strings"

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
