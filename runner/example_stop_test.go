package runner_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/worksteal/worksteal/runner"
)

// A command stopped when ctx is done: its process group gets SIGTERM, then
// SIGKILL after Grace. The command says which signal came.
func ExampleExec() {
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	out := writerFunc(func(p []byte) (int, error) {
		os.Stdout.Write(p)
		if strings.Contains(string(p), "ready") {
			stop() // the command's trap is set: stop it
		}
		return len(p), nil
	})
	e := runner.Exec(ctx, runner.Command{
		Line:   "trap 'echo got TERM; exit 4' TERM; echo ready; while :; do sleep 0.1; done",
		Stdout: out,
		Grace:  5 * time.Second,
	})
	fmt.Println("exit status", e.Code)
	// Output:
	// ready
	// got TERM
	// exit status 4
}

type writerFunc func(p []byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }
