package cluster_test

import (
	"fmt"
	"runtime"

	"github.com/worksteal/worksteal/cluster"
)

// A worker's measured labels (cores, mem, gpu) with the given ones on top:
// a given label wins where both name the same key.
func ExampleMachineLabels() {
	labels := cluster.MachineLabels().Merge(cluster.Labels{"gpu": "a100", "zone": "eu"})
	fmt.Println(labels["cores"] == fmt.Sprint(runtime.NumCPU()), labels["gpu"], labels["zone"])
	// Output: true a100 eu
}

// WithAdmission keeps a worker from taking new tasks while its machine is
// busy: here, while more than four goroutines per CPU run.
func ExampleWithAdmission() {
	busy := func() bool { return runtime.NumGoroutine() > 4*runtime.NumCPU() }
	opts := []cluster.Option{cluster.WithSlots(4), cluster.WithAdmission(func() bool { return !busy() })}
	fmt.Println(len(opts))
	// Output: 2
}
