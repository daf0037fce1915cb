package throttle_test

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/worksteal/worksteal/internal/runopts"
	"github.com/worksteal/worksteal/internal/throttle"
	"github.com/worksteal/worksteal/runner"
)

// --load and --memfree: a job starts only while the readings allow it
// (here injected; nil Read reads /proc).
func ExampleThrottle() {
	reads := 0
	th := &throttle.Throttle{MaxLoad: 4, Every: 10 * time.Millisecond, Read: func() (throttle.Reading, error) {
		reads++
		if reads < 3 {
			return throttle.Reading{Load: 9}, nil // busy: wait
		}
		return throttle.Reading{Load: 1}, nil
	}}
	jobs := []runner.Job{{Seq: 1, Command: "echo started"}}
	cfg := runner.Config{Slots: 1, Stdout: os.Stdout}
	runopts.Of(&cfg).Throttle = th // worksteal run --load 4
	runner.Run(context.Background(), cfg, jobs)
	fmt.Println("after", reads, "readings")
	// Output:
	// started
	// after 3 readings
}

// The swap activity --noswap watches: pages swapped in and out since boot.
func ExampleReadSwap() {
	in, out, err := throttle.ReadSwap()
	if err != nil {
		fmt.Println("no /proc/vmstat:", err)
		return
	}
	fmt.Println(in >= 0 && out >= 0)
}
