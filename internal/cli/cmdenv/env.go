package cmdenv

import (
	"context"
	"io"

	"github.com/spf13/cobra"
)

// CommandFactories holds one constructor per subcommand file.
var CommandFactories []func(env *Env) *cobra.Command

// AddCommand registers a subcommand constructor; call it from init.
func AddCommand(f func(env *Env) *cobra.Command) { CommandFactories = append(CommandFactories, f) }

// Env is what a subcommand may use of the process: its streams and context.
type Env struct {
	Ctx    context.Context
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer

	// started is set when a command's RunE begins: an error before that is
	// cobra refusing the flags or arguments (exit status 2).
	Started bool
}
