//go:build unix

package semaphore_test

import (
	"context"
	"fmt"
	"os"

	"github.com/worksteal/worksteal/internal/semaphore"
)

// GNU's sem -j 2 --id build: at most two holders at once, across
// processes (here one process holds a slot for itself).
func ExampleSemaphore() {
	dir, _ := os.MkdirTemp("", "sem")
	defer os.RemoveAll(dir)
	s := &semaphore.Semaphore{Dir: dir, Name: "build", Slots: 2}
	ctx := context.Background()
	s.Acquire(ctx, os.Getpid(), 0)
	n, _ := s.Holders(ctx)
	fmt.Println(n, "holder")
	s.Release(os.Getpid())
	s.Wait(ctx) // sem --wait: until no one holds it
	// Output: 1 holder
}
