// Command worksteal is the command-line front end of the worksteal toolkit:
// benchmarks of the work-stealing runtime, the scheduling simulator and the
// batch job runner. It only wires the process to internal/cli, which also
// turns SIGINT and SIGTERM into a canceled context (cli.SignalContext).
package main

import (
	"os"

	"github.com/worksteal/worksteal/internal/cli"
)

func main() { os.Exit(cli.Main(os.Args[1:])) }
