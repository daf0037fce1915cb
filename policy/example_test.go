package policy_test

import (
	"fmt"
	"time"

	"github.com/worksteal/worksteal/policy"
)

func ExampleParseVictim() {
	v, err := policy.ParseVictim("adaptive")
	fmt.Println(v, err)
	_, err = policy.ParseVictim("nearest")
	fmt.Println(err != nil)
	// Output:
	// largest <nil>
	// true
}

func ExampleAmount_Take() {
	fmt.Println(policy.StealOne.Take(10, policy.MaxBatch), policy.StealHalf.Take(10, policy.MaxBatch))
	fmt.Println(policy.StealHalf.Take(1000, policy.MaxBatch), "with the runtime's cap,", policy.StealHalf.Take(1000, 0), "without")
	// Output:
	// 1 5
	// 32 with the runtime's cap, 500 without
}

func ExampleIdle_Delay() {
	idle := policy.Idle{Rounds: 5, Base: time.Microsecond, Cap: 5 * time.Microsecond}
	for k := 0; k < 5; k++ {
		fmt.Print(idle.Delay(k, nil), " ")
	}
	fmt.Println("budget", idle.Budget())
	// Output: 1µs 2µs 4µs 5µs 5µs budget 12µs
}

func ExampleNewGroups() {
	g, _ := policy.NewGroups([]int{0, 0, 1, 1, 1})
	fmt.Println(g.Len(), g.Members(1), g.Of(4))
	// Output: 2 [2 3 4] 1
}
