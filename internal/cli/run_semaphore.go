package cli

import (
	"errors"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// semaphoreOnly says a flag that implies --semaphore was given.
func semaphoreOnly(f *pflag.FlagSet) bool {
	for _, name := range []string{"semaphore-name", "semaphore-timeout", "bg"} {
		if _, ok := gnuChanged(f, name); ok {
			return true
		}
	}
	return false
}

func runSemaphore(env *Env, cmd *cobra.Command, cfg runConfig, args []string) error {
	return runError(errors.New("--semaphore: not yet"))
}
