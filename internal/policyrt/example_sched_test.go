package policyrt_test

import (
	"fmt"
	"time"

	"github.com/worksteal/worksteal/internal/policyrt"
	"github.com/worksteal/worksteal/policy"
)

// One steal round of worker 1 among 6 workers in groups of 3 under the
// locality policy: its own group first, then the others.
func ExampleSelector() {
	groups := policy.EvenGroups(6, 3)
	s := policyrt.NewSelector(policy.Locality, 1, 6, groups, 7)
	s.Begin()
	own, other := 0, 0
	for a := 0; a < s.Attempts(); a++ {
		v := s.Next(nil)
		if groups.Of(v) == groups.Of(1) {
			if other > 0 {
				fmt.Println("own group after another group")
			}
			own++
		} else {
			other++
		}
	}
	fmt.Println(own, "in its group first, then", other, "others")
	// Output: 2 in its group first, then 3 others
}

// An idle worker asks its IdleState what to do after each failed round.
func ExampleIdleState() {
	idle := policy.Idle{Rounds: 4, Base: 10 * time.Microsecond, Cap: 40 * time.Microsecond}
	var s policyrt.IdleState
	for range 5 {
		st := s.Next(idle, nil) // nil: no jitter
		fmt.Println(st.Kind, st.Delay, st.Kind.Blocks())
	}
	// Output:
	// spin 10µs false
	// sleep 20µs true
	// sleep 40µs true
	// park 0s true
	// spin 10µs false
}

func ExampleParseVictim() {
	v, err := policyrt.ParseVictim("adaptive")
	fmt.Println(v, err)
	_, err = policyrt.ParseVictim("nearest")
	fmt.Println(err != nil)
	// Output:
	// largest <nil>
	// true
}

func ExampleTake() {
	fmt.Println(policyrt.Take(policy.StealOne, 10, policy.MaxBatch), policyrt.Take(policy.StealHalf, 10, policy.MaxBatch))
	fmt.Println(policyrt.Take(policy.StealHalf, 1000, policy.MaxBatch), "with the runtime's cap,", policyrt.Take(policy.StealHalf, 1000, 0), "without")
	// Output:
	// 1 5
	// 32 with the runtime's cap, 500 without
}

func ExampleDelay() {
	idle := policy.Idle{Rounds: 5, Base: time.Microsecond, Cap: 5 * time.Microsecond}
	for k := 0; k < 5; k++ {
		fmt.Print(policyrt.Delay(idle, k, nil), " ")
	}
	fmt.Println("budget", policyrt.Budget(idle))
	// Output: 1µs 2µs 4µs 5µs 5µs budget 12µs
}
