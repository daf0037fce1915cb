// Package cli implements the worksteal subcommands. Each subcommand lives in
// its own file and registers itself on the root command through
// addCommand in an init function; flags fill config structs that are handed
// to the library packages.
package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"
)

// commandFactories holds one constructor per subcommand file.
var commandFactories []func(env *Env) *cobra.Command

// addCommand registers a subcommand constructor; call it from init.
func addCommand(f func(env *Env) *cobra.Command) { commandFactories = append(commandFactories, f) }

// Env is what a subcommand may use of the process: its streams and context.
type Env struct {
	Ctx    context.Context
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
}

// NewRoot builds the root command with every registered subcommand.
func NewRoot(env *Env) *cobra.Command {
	root := &cobra.Command{
		Use:           "worksteal",
		Short:         "Work-stealing scheduler and load-balancing toolkit",
		Long:          "worksteal runs the work-stealing runtime's benchmarks, simulates scheduling policies and runs batches of jobs balanced across cores.",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetIn(env.Stdin)
	root.SetOut(env.Stdout)
	root.SetErr(env.Stderr)
	for _, f := range commandFactories {
		root.AddCommand(f(env))
	}
	return root
}

// Run executes the command line args and returns the process exit code.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	env := &Env{Ctx: ctx, Stdin: stdin, Stdout: stdout, Stderr: stderr}
	root := NewRoot(env)
	root.SetArgs(args)
	if err := root.ExecuteContext(ctx); err != nil {
		fmt.Fprintln(stderr, "worksteal:", err)
		var ec interface{ ExitCode() int }
		if asExit(err, &ec) {
			return ec.ExitCode()
		}
		return 1
	}
	return 0
}
