package runner_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"syscall"
	"time"

	"github.com/worksteal/worksteal/runner"
)

// A job stopped in GNU parallel's --term-seq steps: SIGINT, up to 5 s for
// it to go, then SIGKILL. The job says which signal came.
func ExampleTermStep() {
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	out := writerFunc(func(p []byte) (int, error) {
		os.Stdout.Write(p)
		if strings.Contains(string(p), "ready") {
			stop() // the job's traps are set: stop it
		}
		return len(p), nil
	})
	e := runner.Exec(ctx, runner.Command{
		Line:    "trap 'echo got INT; exit 3' INT; trap 'echo got TERM; exit 4' TERM; echo ready; while :; do sleep 0.1; done",
		Stdout:  out,
		TermSeq: []runner.TermStep{{Signal: syscall.SIGINT, Wait: 5 * time.Second}, {Signal: syscall.SIGKILL}},
	})
	fmt.Println("exit status", e.Code)
	// Output:
	// ready
	// got INT
	// exit status 3
}

type writerFunc func(p []byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// The swap activity --noswap watches: pages swapped in and out since boot.
func ExampleReadSwap() {
	in, out, err := runner.ReadSwap()
	if err != nil {
		fmt.Println("no /proc/vmstat:", err)
		return
	}
	fmt.Println(in >= 0 && out >= 0)
}
