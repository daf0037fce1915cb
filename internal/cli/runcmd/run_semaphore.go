package runcmd

// GNU parallel's --semaphore (and its sem command): "worksteal run
// --semaphore" and "worksteal sem" wait for a slot of a counting semaphore
// shared by every process of the machine (GNU's files, so GNU's sem and
// worksteal's share it), then run the command: in the background, or in
// the foreground with --fg.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"golang.org/x/term"

	"github.com/worksteal/worksteal/internal/cli/cmdenv"
	"github.com/worksteal/worksteal/internal/semaphore"
	"github.com/worksteal/worksteal/runner"
)

func init() { cmdenv.AddCommand(newSemCommand) }

// newSemCommand is GNU's sem: worksteal run --semaphore.
func newSemCommand(env *cmdenv.Env) *cobra.Command {
	return &cobra.Command{
		Use:   "sem [--fg] [--id NAME] [-j N] [--semaphore-timeout SECS] [--wait] COMMAND [ARG...]",
		Short: "A counting semaphore across invocations (GNU sem: worksteal run --semaphore)",
		Long: `sem waits until fewer than -j N commands (default 1) hold the semaphore
--id NAME, then runs COMMAND: in the background (sem exits at once), or
with --fg in the foreground, exiting with its status. --wait waits until
no command holds the semaphore. --semaphore-timeout SECS: after SECS
seconds, run anyway; after -SECS, give up (exit 1). The semaphores are GNU
parallel's files (in $PARALLEL_HOME, else ~/.parallel, semaphores/), so
GNU's sem and worksteal's share a semaphore of the same name. The default
name is that of the terminal ("not a tty" without one).`,
		Example: `  for f in *.log; do worksteal sem -j 4 --id gz gzip "$f"; done; worksteal sem --wait --id gz
  worksteal sem --fg --id db ./migrate.sh`,
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			rc := newRunCommand(env)
			rc.SetOut(cmd.OutOrStdout())
			rc.SetErr(cmd.ErrOrStderr())
			for _, a := range args {
				if a == "-h" || a == "--help" {
					return cmd.Help()
				}
			}
			if err := rc.ParseFlags(append([]string{"--semaphore"}, args...)); err != nil {
				return runError(gnuFlagError(err))
			}
			return rc.RunE(rc, rc.Flags().Args())
		},
	}
}

// semHandedEnv tells the background holder that the semaphore is handed
// to it by the sem that started it (whose pid it holds).
const semHandedEnv = "WORKSTEAL_SEM_HANDED"

// semaphoreOnly says a flag that implies --semaphore was given (GNU's
// parse_semaphore: --id, --semaphore-timeout, --bg, --fg, --wait).
func semaphoreOnly(f *pflag.FlagSet) bool {
	for _, name := range []string{"semaphore-name", "semaphore-timeout", "bg", "fg", "wait"} {
		if _, ok := gnuChanged(f, name); ok {
			return true
		}
	}
	return false
}

// semaphoreArgsOptions are run's options that a semaphore does not take.
var semaphoreArgsOptions = []string{"arg-file", "pipe", "pipe-part", "round-robin", "cat", "fifo", "joblog",
	"resume", "resume-failed", "nats", "http", "timeout", "retries", "speculate", "keep-order", "colsep", "link",
	"header", "max-replace-args", "max-lines", "max-args", "tag", "results", "load", "memfree", "nice", "dry-run"}

// runSemaphore is --semaphore: acquire, then run the command.
func runSemaphore(env *cmdenv.Env, cmd *cobra.Command, cfg runConfig, args []string) error {
	plan, err := planSemaphore(cmd, cfg, args)
	if err != nil {
		return err
	}
	sem := &semaphore.Semaphore{Name: plan.name, Slots: plan.slots}
	if cfg.pipe.wait {
		// GNU: --wait waits for every holder, and runs no command.
		if err := sem.Wait(env.Ctx); err != nil {
			return semError(err)
		}
		return nil
	}
	self := os.Getpid()
	if err := holdSemaphore(env.Ctx, sem, self, plan.timeout, cmd.ErrOrStderr()); err != nil {
		return err
	}
	return runHolding(env.Ctx, cmd, cfg, sem, self, plan)
}

// semPlan is what sem's flags and arguments ask for.
type semPlan struct {
	name    string
	slots   int
	timeout time.Duration
	shell   string
	line    string // the command; "" with --wait
}

// planSemaphore checks sem's flags and arguments: parse, before anything
// is held or run.
func planSemaphore(cmd *cobra.Command, cfg runConfig, args []string) (semPlan, error) {
	f := cmd.Flags()
	for _, name := range semaphoreArgsOptions {
		if given, ok := gnuChanged(f, name); ok {
			return semPlan{}, runError(fmt.Errorf("%s is not supported with --semaphore (sem runs one command)", given))
		}
	}
	p := cfg.pipe
	if p.fg && p.bg {
		return semPlan{}, runError(errors.New("--fg and --bg: give one of them"))
	}
	for _, a := range args {
		if strings.HasPrefix(a, ":::") {
			return semPlan{}, runError(fmt.Errorf("%s: --semaphore runs one command, it takes no arguments to fill in", a))
		}
	}
	plan := semPlan{slots: 1} // sem's default: a mutex
	if cfg.jobs != "" {
		var err error
		if plan.slots, err = parseSlots(cfg.jobs, 1, cfg.cpus); err != nil {
			return semPlan{}, runError(err)
		}
	}
	var err error
	if plan.timeout, err = parseSemTimeout(p.semTimeout); err != nil {
		return semPlan{}, runError(err)
	}
	plan.name = p.semName
	if _, ok := gnuChanged(f, "semaphore-name"); !ok {
		plan.name = ttyName()
	}
	if plan.name == "" {
		return semPlan{}, runError(errors.New("--id \"\": give the semaphore a name"))
	}
	if p.wait {
		return plan, nil
	}
	if len(args) == 0 {
		return semPlan{}, runError(errors.New("--semaphore needs a command to run"))
	}
	if plan.shell, err = resolveShell(cfg.shell); err != nil {
		return semPlan{}, runError(err)
	}
	plan.line = strings.Join(args, " ")
	return plan, nil
}

// holdSemaphore takes a slot of sem for process self: waiting for a free
// one (at most timeout, then as GNU: exit or take it anyway), or, in the
// background holder a sem started, the slot its parent hands over.
func holdSemaphore(ctx context.Context, sem *semaphore.Semaphore, self int, timeout time.Duration, stderr io.Writer) error {
	if parent := os.Getenv(semHandedEnv); parent != "" {
		// The background holder that a sem started: it holds the
		// semaphore once its parent has handed it over.
		if err := sem.AwaitHand(ctx, self); err != nil {
			return semError(err)
		}
		return nil
	}
	stolen, err := sem.Acquire(ctx, self, timeout)
	if err != nil {
		if errors.Is(err, semaphore.ErrTimeout) {
			fmt.Fprintln(stderr, "worksteal: warning: semaphore timed out: exiting")
			return &cmdenv.ExitError{Code: 1, Err: errSilent}
		}
		return semError(err)
	}
	if stolen {
		fmt.Fprintln(stderr, "worksteal: warning: semaphore timed out: taking it anyway")
	}
	return nil
}

// runHolding runs the command while self holds a slot of sem: handed to a
// background worksteal process (GNU's sem forks), or here, in the
// foreground, exiting with the command's status.
func runHolding(ctx context.Context, cmd *cobra.Command, cfg runConfig, sem *semaphore.Semaphore, self int, plan semPlan) error {
	out, errOut := cmd.OutOrStdout(), cmd.ErrOrStderr()
	of, okOut := out.(*os.File)
	ef, okErr := errOut.(*os.File)
	exe, exeErr := os.Executable()
	if !cfg.pipe.fg && okOut && okErr && exeErr == nil {
		// In the background: a worksteal process of its own holds the
		// semaphore, runs the command, writes its output whole and
		// releases the semaphore. It holds it from here: the hold is
		// handed to it before this process exits.
		c := exec.Command(exe, "run", "--semaphore", "--fg", "--id", plan.name, "-j", fmt.Sprint(plan.slots), "--shell", plan.shell, "--grace", cfg.grace.String(), "--", plan.line)
		c.Env = append(os.Environ(), semHandedEnv+"="+fmt.Sprint(self))
		c.Stdout, c.Stderr = of, ef
		if err := c.Start(); err != nil {
			sem.Release(self)
			return runError(err)
		}
		if err := sem.Hand(self, c.Process.Pid); err != nil {
			c.Process.Kill()
			sem.Release(self)
			return runError(err)
		}
		c.Process.Release()
		return nil
	}
	// In the foreground (or where the output cannot be handed on): run,
	// release, exit with the command's status.
	defer sem.Release(self)
	e := runner.Exec(context.WithoutCancel(ctx), runner.Command{Shell: plan.shell, Line: plan.line, Grace: cfg.grace})
	out.Write(e.Stdout)
	errOut.Write(e.Stderr)
	switch {
	case e.Err != nil:
		return runError(e.Err)
	case e.Signal != 0:
		return &cmdenv.ExitError{Code: 128 + e.Signal, Err: errSilent}
	case e.Code != 0:
		return &cmdenv.ExitError{Code: e.Code, Err: errSilent}
	}
	return nil
}

func semError(err error) error {
	if errors.Is(err, context.Canceled) || strings.Contains(err.Error(), "interrupt") || strings.Contains(err.Error(), "terminated") {
		return &cmdenv.ExitError{Code: interruptCode(err), Err: err}
	}
	return runError(err)
}

// parseSemTimeout reads --semaphore-timeout: seconds with GNU's units
// (s, m, h, d), negative to give up; "" is none.
func parseSemTimeout(s string) (time.Duration, error) {
	t := strings.TrimSpace(s)
	if t == "" {
		return 0, nil
	}
	neg := strings.HasPrefix(t, "-")
	d, _, err := parseTimeout(strings.TrimPrefix(t, "-"))
	if err != nil || strings.HasSuffix(t, "%") {
		return 0, fmt.Errorf("--semaphore-timeout %q: want seconds (or with units s, m, h, d), negative to give up instead of taking the semaphore", s)
	}
	if neg {
		d = -d
	}
	return d, nil
}

// ttyName is GNU's default semaphore name: what tty(1) prints.
func ttyName() string {
	if term.IsTerminal(0) {
		if p, err := os.Readlink("/proc/self/fd/0"); err == nil {
			return p
		}
	}
	return "not a tty"
}
