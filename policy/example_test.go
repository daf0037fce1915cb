package policy_test

import (
	"fmt"

	"github.com/worksteal/worksteal/policy"
)

func ExampleNewGroups() {
	g, _ := policy.NewGroups([]int{0, 0, 1, 1, 1})
	fmt.Println(g.Len(), g.Members(1), g.Of(4))
	// Output: 2 [2 3 4] 1
}

// Six workers in groups of four consecutive ones (cores that share a cache,
// say: worksteal.Config's Groups, for the Locality victim policy); the last
// group takes what is left.
func ExampleEvenGroups() {
	g := policy.EvenGroups(6, 4)
	for x := range g.Len() {
		fmt.Println("group", x, g.Members(x))
	}
	fmt.Println("worker 5 is in group", g.Of(5))
	// Output:
	// group 0 [0 1 2 3]
	// group 1 [4 5]
	// worker 5 is in group 1
}
