// Package cli implements the worksteal subcommands. Each subcommand lives in
// its own file and registers itself on the root command through
// addCommand in an init function; flags fill config structs that are handed
// to the library packages.
package cli

import (
	"context"
	"errors"
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

	// started is set when a command's RunE begins: an error before that is
	// cobra refusing the flags or arguments (exit status 2).
	started bool
}

// exitStatusHelp is the exit-status scheme shown by worksteal --help.
const exitStatusHelp = `Exit status (every command):
  0    the work was done
  1    the work failed (a wrong result, a failed task, an I/O error)
  2    usage or bad input (a flag, argument or input file): nothing was run
  130  interrupted by SIGINT, 143 by SIGTERM (after stopping and cleaning up)
  worksteal run: the number of failed jobs (at most 101), 255 for bad usage, as GNU parallel.
  worksteal serve, worker and dash run until SIGINT or SIGTERM: that is their
  normal end, and they exit 0 after it.`

// NewRoot builds the root command with every registered subcommand.
func NewRoot(env *Env) *cobra.Command {
	root := &cobra.Command{
		Use:   "worksteal",
		Short: "Work-stealing scheduler and load-balancing toolkit",
		Long: "worksteal runs the work-stealing runtime's benchmarks, simulates scheduling policies and runs batches of jobs balanced across cores.\n\n" +
			"SIGINT or SIGTERM stops any command within a second: it cleans up (removes the outputs it had begun,\n" +
			"stops the processes it started) and exits; a second signal ends it at once.\n\n" + exitStatusHelp,
		Version:       version(),
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetIn(env.Stdin)
	root.SetOut(env.Stdout)
	root.SetErr(env.Stderr)
	root.SetVersionTemplate("worksteal {{.Version}}\n")
	// A flag cobra cannot parse is a usage error (subcommands inherit this).
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError(err) })
	for _, f := range commandFactories {
		root.AddCommand(f(env))
	}
	markStarted(root, env)
	registerCompletions(root)
	return root
}

// markStarted wraps the RunE of every command so that env.started says
// whether cobra accepted the command line.
func markStarted(cmd *cobra.Command, env *Env) {
	if run := cmd.RunE; run != nil {
		cmd.RunE = func(c *cobra.Command, args []string) error {
			env.started = true
			return run(c, args)
		}
	}
	for _, sub := range cmd.Commands() {
		markStarted(sub, env)
	}
}

// Run executes the command line args and returns the process exit code
// (see exit.go).
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	env := &Env{Ctx: ctx, Stdin: stdin, Stdout: stdout, Stderr: stderr}
	root := NewRoot(env)
	root.SetArgs(args)
	cmd, err := root.ExecuteContextC(ctx)
	if err == nil {
		return exitOK
	}
	code := exitCode(ctx, err, env.started)
	switch in := interruption(ctx); {
	case in != nil && errors.Is(err, context.Canceled):
		// Not "context canceled": say what happened.
		fmt.Fprintf(stderr, "worksteal: interrupted (%s)\n", signalName(in.Signal))
	case !env.started && cmd != nil:
		// cobra refused the command line: name the command and its help.
		fmt.Fprintf(stderr, "%s: %v\nRun '%s --help' for usage.\n", cmd.CommandPath(), err, cmd.CommandPath())
	case err.Error() == "":
		// Nothing to add to the exit status (run's failed jobs, whose
		// own output said it, as GNU parallel).
	default:
		fmt.Fprintln(stderr, "worksteal:", err)
	}
	return code
}
