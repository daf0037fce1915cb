package cluster_test

import (
	"fmt"
	"runtime"

	"github.com/worksteal/worksteal/cluster"
)

// WithAdmission keeps a worker from taking new tasks while its machine is
// busy: here, while more than four goroutines per CPU run.
func ExampleWithAdmission() {
	busy := func() bool { return runtime.NumGoroutine() > 4*runtime.NumCPU() }
	opts := []cluster.Option{cluster.WithSlots(4), cluster.WithAdmission(func() bool { return !busy() })}
	fmt.Println(len(opts))
	// Output: 2
}
