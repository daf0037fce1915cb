package cluster_test

import (
	"fmt"

	"github.com/worksteal/worksteal/cluster"
)

// A worker's labels (worksteal worker --label) against a task's
// requirements (run --require): the task runs only where every required
// label is present with the same value.
func ExampleLabels_Satisfy() {
	gpu := cluster.Labels{"gpu": "1", "mem": "64G"}
	fmt.Println(gpu)
	fmt.Println(gpu.Satisfy(cluster.Labels{"gpu": "1"}))
	fmt.Println(gpu.Satisfy(cluster.Labels{"mem": "128G"}))
	// Output:
	// gpu=1,mem=64G
	// true
	// false
}

// WithLabels gives a worker labels; Job.Require (or Task.Require) sends a
// job's tasks only to workers that have them.
func ExampleWithLabels() {
	opts := []cluster.Option{cluster.WithLabels(cluster.Labels{"gpu": "1"}), cluster.WithSlots(2)}
	job := cluster.Job{ID: "film", Require: cluster.Labels{"gpu": "1"},
		Tasks: []cluster.Task{{Handler: "render"}, {Handler: "render", Require: cluster.Labels{"mem": "64G"}}}}
	fmt.Println(len(opts), job.Require, job.Tasks[1].Require)
	// Output: 2 gpu=1 mem=64G
}
