package cmdenv_test

import (
	"fmt"

	"github.com/worksteal/worksteal/cluster"
	"github.com/worksteal/worksteal/internal/cli/cmdenv"
)

// A worker's labels (worksteal worker --label) against a task's
// requirements (run --require): the task runs only where every required
// label is present with the same value.
func ExampleParseLabels() {
	gpu, err := cmdenv.ParseLabels([]string{"gpu=1", "mem=64G"})
	if err != nil {
		panic(err)
	}
	fmt.Println(gpu)
	fmt.Println(gpu.Satisfy(cluster.Labels{"gpu": "1"}))
	fmt.Println(gpu.Satisfy(cluster.Labels{"mem": "128G"}))
	_, err = cmdenv.ParseLabels([]string{"gpu"})
	fmt.Println(err)
	// Output:
	// gpu=1,mem=64G
	// true
	// false
	// cluster: invalid option: label "gpu": want key=value
}
