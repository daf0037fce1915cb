// Package cli is the worksteal command's root: it builds the command tree,
// maps errors to exit statuses and holds the commands that need no room of
// their own (job, dash, completion, version). Each other command lives in
// a package by what it serves (commands.go links them in: runcmd, servecmd,
// workercmd, simcmd, benchcmd) and registers itself through
// cmdenv.AddCommand; flags fill config structs handed to the library
// packages. The tests here run whole command lines.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"
	"github.com/worksteal/worksteal/internal/cli/cmdenv"
	"github.com/worksteal/worksteal/internal/cli/runcmd"
)

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
func NewRoot(env *cmdenv.Env) *cobra.Command {
	root := &cobra.Command{
		Use:   "worksteal",
		Short: "Work-stealing scheduler and load-balancing toolkit",
		Long: "worksteal runs the work-stealing runtime's benchmarks, simulates scheduling policies and runs batches of jobs balanced across cores.\n\n" +
			"SIGINT or SIGTERM stops any command within a second: it cleans up (removes the outputs it had begun,\n" +
			"stops the processes it started) and exits; a second signal ends it at once.\n\n" + exitStatusHelp,
		Version:       cmdenv.VersionString(),
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetIn(env.Stdin)
	root.SetOut(env.Stdout)
	root.SetErr(env.Stderr)
	root.SetVersionTemplate("worksteal {{.Version}}\n")
	// A flag cobra cannot parse is a usage error (subcommands inherit this).
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return cmdenv.UsageError(err) })
	for _, f := range cmdenv.CommandFactories {
		root.AddCommand(f(env))
	}
	markStarted(root, env)
	registerCompletions(root)
	return root
}

// markStarted wraps the RunE of every command so that env.started says
// whether cobra accepted the command line.
func markStarted(cmd *cobra.Command, env *cmdenv.Env) {
	if run := cmd.RunE; run != nil {
		cmd.RunE = func(c *cobra.Command, args []string) error {
			env.Started = true
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
	env := &cmdenv.Env{Ctx: ctx, Stdin: stdin, Stdout: stdout, Stderr: stderr}
	root := NewRoot(env)
	root.SetArgs(runcmd.GNUArgs(args)) // run's -l without its value
	cmd, err := root.ExecuteContextC(ctx)
	if err == nil {
		return cmdenv.ExitOK
	}
	code := exitCode(ctx, err, env.Started)
	switch in := cmdenv.Interruption(ctx); {
	case in != nil && errors.Is(err, context.Canceled):
		// Not "context canceled": say what happened.
		fmt.Fprintf(stderr, "worksteal: interrupted (%s)\n", cmdenv.SignalName(in.Signal))
	case !env.Started && cmd != nil:
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
