package runcmd

import (
	"errors"
	"fmt"
	"slices"

	"github.com/spf13/cobra"

	"github.com/worksteal/worksteal/internal/jobio"
	"github.com/worksteal/worksteal/internal/joblog"
	"github.com/worksteal/worksteal/internal/throttle"
	"github.com/worksteal/worksteal/runner"
)

// answerFirst answers the questions worksteal run answers instead of
// running anything (--number-of-cores and the like, --max-line-length-allowed,
// --version), prints --show-limits, and reads what the rest of the run
// needs first: the CPUs -j counts, the --color tags, --tty's -j1. done: the
// run ends here, with err.
func answerFirst(cmd *cobra.Command, cfg *runConfig) (done bool, err error) {
	f, out := cmd.Flags(), cmd.OutOrStdout()
	if done, err := answerCPUQuestion(f, out); done { // --number-of-cores ... (run_cpus.go)
		return true, err
	}
	if done, err := answerMaxLineLength(f, out); done { // run_cpus.go
		return true, err
	}
	if err := showLimits(f, cfg.gnu.maxChars, out); err != nil { // run_showlimits.go
		return true, runError(err)
	}
	cfg.cpus = jobCPUs(f)
	if done, err := answerVersion(f, out); done { // --version, --minversion (run_version.go)
		return true, err
	}
	if err := colorTags(f, &cfg.gnu); err != nil {
		return true, runError(err)
	}
	if cfg.gnu.tty && cfg.jobs == "" {
		cfg.jobs = "1" // GNU: --tty is -j1 unless -j says otherwise
	}
	return false, nil
}

// commonRunFlags is what argument mode (runRun) and pipe mode (runPipe)
// read alike before their jobs: the flags checked (checkRunFlags),
// --colsep ”, and --load, --memfree and --nice (run_throttle.go), which a
// run with --nats refuses. The error is the run's (runError applied).
func commonRunFlags(cmd *cobra.Command, cfg *runConfig) (*throttle.Throttle, int, error) {
	if err := checkRunFlags(cfg, cmd); err != nil {
		return nil, 0, err
	}
	if cmd.Flags().Changed("colsep") && cfg.colSep == "" {
		cfg.colSep = "(?:)" // GNU: --colsep '' splits every character
	}
	throttle, nice, err := throttleOptions(cmd.Flags(), *cfg)
	if err != nil {
		return nil, 0, runError(err)
	}
	if cfg.nats != "" && (throttle != nil || nice != 0) {
		return nil, 0, runError(errors.New("--load, --memfree and --nice are for a local run: with --nats, each worker's -j says how much it runs"))
	}
	return throttle, nice, nil
}

// openJoblogAt opens the joblog at path ("" none, "-" stdout), appending
// or not; close closes it.
func openJoblogAt(cmd *cobra.Command, path string, appendLog bool) (jl *joblog.Log, close func(), err error) {
	switch path {
	case "":
		return nil, func() {}, nil
	case "-":
		jl, err = joblog.New(cmd.OutOrStdout())
	default:
		jl, err = joblog.Open(path, appendLog)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("--joblog: %w", err)
	}
	return jl, func() { jl.Close() }, nil
}

// refuseLocalOnly refuses, for a run with --nats, the options of a local
// run and the jobs only a local run can skip.
func refuseLocalOnly(cfg runConfig, jobs []runner.Job) error {
	if cfg.http != "" {
		return errors.New("--http is for a local run: with --nats, watch the cluster with worksteal dash (or serve --http)")
	}
	if cfg.gnu.files {
		return errors.New("--files is for a local run: with --nats, the output comes back to this machine (use --results DIR)")
	}
	if g := cfg.gnu; g.tty || g.openTTY || g.compress || g.compressPrg != "" || len(g.templates) > 0 || g.termSeq != "" {
		return errors.New("--tty, --open-tty, --compress, --compress-program, --template and --term-seq are for a local run: with --nats the workers run the jobs")
	}
	if slices.ContainsFunc(jobs, func(j runner.Job) bool { return jobio.Of(j).Skipped() }) {
		return errors.New("--plus {uniq} and {choose_k} are not supported with --nats (the workers would run the jobs they skip)")
	}
	return nil
}
