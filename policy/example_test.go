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
