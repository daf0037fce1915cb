package worksteal_test

import (
	"fmt"
	"log"

	"github.com/worksteal/worksteal"
)

// A pool with Config.Counters reports the hardware and kernel counts of the
// process since it started; counts the machine cannot give are named, with
// the reason, instead of reading as zero.
func ExampleConfig_counters() {
	pool, err := worksteal.New(worksteal.Config{Workers: 2, Counters: true})
	if err != nil {
		log.Fatal(err)
	}
	defer pool.Close()
	if _, err := worksteal.Run(pool, func(w *worksteal.Worker) int { return fib(w, 20) }); err != nil {
		log.Fatal(err)
	}
	c := pool.Stats().Counters
	if ipc, ok := c.IPC(); ok {
		_ = ipc // instructions per cycle: the machine has a PMU
	} else {
		_ = c.Reasons() // why not: "cycles, instructions: unavailable: ..."
	}
	fmt.Println(c.Has("memory-bandwidth")) // never counted per process
	// Output: false
}

// CountProcess counts any stretch of a program, pool or not.
func ExampleCountProcess() {
	c := worksteal.CountProcess()
	defer c.Close()
	var sum int64 // the sum overflows a 32-bit int
	for i := range 1_000_000 {
		sum += int64(i)
	}
	n := c.Read()
	_ = n.String() // "instructions=… cycles=…", or "instructions=n/a …" and n.Reasons()
	fmt.Println(sum, n.Has("memory-bandwidth"))
	// Output: 499999500000 false
}
