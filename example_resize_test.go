package worksteal_test

import (
	"fmt"
	"log"

	"github.com/worksteal/worksteal"
)

// SetWorkers changes how many workers take work while computations run:
// the surplus ones finish their job and park until the count goes up.
func ExamplePool_SetWorkers() {
	pool, err := worksteal.New(worksteal.Config{Workers: 4})
	if err != nil {
		log.Fatal(err)
	}
	defer pool.Close()
	if err := pool.SetWorkers(2); err != nil {
		log.Fatal(err)
	}
	v, _ := worksteal.Run(pool, func(w *worksteal.Worker) int { return fib(w, 20) })
	fmt.Println(v, pool.ActiveWorkers(), pool.Workers())
	fmt.Println(pool.SetWorkers(5))
	// Output:
	// 6765 2 4
	// worksteal: SetWorkers(5): want 1 to 4 (the workers the pool was created with)
}

// A governor lowers the active workers while the machine is oversubscribed
// (CPU pressure), hot, at its power limit or under a smaller cgroup quota,
// and raises them when that clears.
func ExampleGovernor() {
	pool, err := worksteal.New(worksteal.Config{Workers: 4, Governor: &worksteal.Governor{
		OnChange: func(c worksteal.GovernorChange) {
			log.Printf("workers %d -> %d: %s (not read: %v)", c.From, c.To, c.Reason, c.Unavailable)
		},
	}})
	if err != nil {
		log.Fatal(err)
	}
	defer pool.Close()
	v, _ := worksteal.Run(pool, func(w *worksteal.Worker) int { return fib(w, 20) })
	fmt.Println(v)
	// Output: 6765
}
