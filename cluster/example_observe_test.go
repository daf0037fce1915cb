package cluster_test

import (
	"fmt"

	"github.com/worksteal/worksteal/cluster"
)

// The subjects a read-only observer role needs, for a server's permission
// configuration.
func ExampleObserverPermissions() {
	pub, sub := cluster.ObserverPermissions("ws")
	fmt.Println(len(pub) > 0, sub)
	// Output: true [ws.status.* ws.refusals _INBOX_observer.>]
}
