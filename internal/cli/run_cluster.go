package cli

import (
	"errors"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/worksteal/worksteal/runner"
)

func addRunClusterFlags(f *pflag.FlagSet, cfg *runConfig) {
	f.StringVar(&cfg.nats, "nats", "", "run the batch on the workers of the NATS server at URL (worksteal serve, worksteal worker)")
}

func runCluster(env *Env, cmd *cobra.Command, cfg runConfig, all, todo []runner.Job, skipped int) error {
	return runError(errors.New("--nats: not implemented yet"))
}
