// Command worksteal is the command-line front end of the worksteal toolkit:
// benchmarks of the work-stealing runtime, the scheduling simulator and the
// batch job runner. It only wires the process to internal/cli.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/worksteal/worksteal/internal/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.Run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
