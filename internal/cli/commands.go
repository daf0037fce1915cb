package cli

// The commands, one package each by what they serve; each registers its
// commands on the root through cmdenv.AddCommand in an init function.
import (
	_ "github.com/worksteal/worksteal/internal/cli/benchcmd"  // bench
	_ "github.com/worksteal/worksteal/internal/cli/runcmd"    // run, sem
	_ "github.com/worksteal/worksteal/internal/cli/servecmd"  // serve (init, credentials)
	_ "github.com/worksteal/worksteal/internal/cli/simcmd"    // sim, trace, predict
	_ "github.com/worksteal/worksteal/internal/cli/workercmd" // worker, reap, spawn
)
