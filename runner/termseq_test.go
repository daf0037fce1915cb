package runner

import (
	"context"
	"fmt"
	"os"
	"strings"
	"syscall"
	"time"

	"github.com/worksteal/worksteal/internal/runopts"
)

// A job stopped in GNU parallel's --term-seq steps (runopts.Options.TermSeq,
// which Run gives Exec): SIGINT, up to 5 s for
// it to go, then SIGKILL. The job says which signal came.
func Example_termSeq() {
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	out := writeFunc(func(p []byte) (int, error) {
		os.Stdout.Write(p)
		if strings.Contains(string(p), "ready") {
			stop() // the job's traps are set: stop it
		}
		return len(p), nil
	})
	e := Exec(ctx, Command{
		Line:    "trap 'echo got INT; exit 3' INT; trap 'echo got TERM; exit 4' TERM; echo ready; while :; do sleep 0.1; done",
		Stdout:  out,
		termSeq: []runopts.TermStep{{Signal: syscall.SIGINT, Wait: 5 * time.Second}, {Signal: syscall.SIGKILL}},
	})
	fmt.Println("exit status", e.Code)
	// Output:
	// ready
	// got INT
	// exit status 3
}

type writeFunc func(p []byte) (int, error)

func (f writeFunc) Write(p []byte) (int, error) { return f(p) }
