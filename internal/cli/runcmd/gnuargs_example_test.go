package runcmd_test

import (
	"fmt"

	"github.com/worksteal/worksteal/internal/cli/runcmd"
)

// GNUArgs gives -l without a number GNU parallel's value, 1; a number
// after it, and the COMMAND's own -l, are left alone.
func ExampleGNUArgs() {
	fmt.Println(runcmd.GNUArgs([]string{"run", "-k", "-l", "echo"}))
	fmt.Println(runcmd.GNUArgs([]string{"run", "-l", "2", "echo"}))
	fmt.Println(runcmd.GNUArgs([]string{"run", "-j", "2", "ls", "-l"}))
	// Output:
	// [run -k -l1 echo]
	// [run -l 2 echo]
	// [run -j 2 ls -l]
}
