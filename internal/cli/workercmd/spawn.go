package workercmd

import (
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/worksteal/worksteal/cluster"
	"github.com/worksteal/worksteal/cluster/shelltask"
	"github.com/worksteal/worksteal/internal/cli/cmdenv"
)

func init() { cmdenv.AddCommand(newSpawnCommand) }

func newSpawnCommand(env *cmdenv.Env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "spawn -- CMD [ARGS...]",
		Short: "From a cluster task's command: add a child task (a command) to the task's job",
		Long: `spawn, run by a command that a worksteal worker runs as a task, adds a child
task to that task's job: the child runs CMD ARGS (one argument: a shell
command line; several: quoted and joined). The child runs on the same
worker unless an idle worker is handed it; the job (worksteal run --nats)
ends once the task, its children and theirs have all run. spawn finds its
task through the environment the worker sets ($WORKSTEAL_SPAWN_SOCKET,
$WORKSTEAL_SPAWN_TOKEN) and returns at once: the child runs later. Its
standard output goes into the job's reduction (run --reduce; by default
it is printed).

A child's id is its parent's id, '=', and its index: a task that runs again
(its worker died) spawns the same children, so none runs twice, provided it
spawns them in the same order.

A child inherits what its parent task was given: the variables of run
--env (with the values they have where spawn runs), run --timeout, the
job's retries and reduction, and run --tag's tag (its root task's).`,
		Example: `  worksteal run --nats nats://127.0.0.1:4222 'for i in 1 2 3; do worksteal spawn -- echo {} $i; done' ::: child
  worksteal run --nats nats://127.0.0.1:4222 --reduce sum 'worksteal spawn -- echo 40; echo {}' ::: 2`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			line := args[0]
			if len(args) > 1 {
				q := make([]string, len(args))
				for i, a := range args {
					q[i] = shellQuote(a)
				}
				line = strings.Join(q, " ")
			}
			seq, _ := strconv.Atoi(os.Getenv("WORKSTEAL_SEQ"))
			t := shelltask.Task{Cmd: line, Seq: seq}
			shelltask.Inherit(&t) // --env, --timeout: as its parent task was given them
			p, _ := json.Marshal(t)
			if err := cluster.SpawnFromEnv(shelltask.HandlerName, p); err != nil {
				return fmt.Errorf("worksteal spawn: %w", err)
			}
			return nil
		},
	}
	return cmd
}

// shellQuote quotes s for /bin/sh unless it needs nothing.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:,+@%", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
