package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/worksteal/worksteal/internal/testdeadline"
)

// TreeRun is a tree of shell tasks: the one command of the batch is the
// root; a node of depth d > 0 spawns fanout children of depth d−1 with
// worksteal spawn; every node appends "task worker" to a file, sleeps,
// and prints 1, so run --reduce sum prints the number of nodes. The root,
// once it has spawned its children, waits for a gate file, open unless a
// test holds it (HoldRoot): so a fault can hit the root's worker while
// the root is surely running there, however fast or slow the machine.
type TreeRun struct {
	dir, ran, gate, Input string
	depth, fanout         int
}

// NewTreeRun writes the tree's node script and input in a temporary
// directory of t.
func NewTreeRun(t *testing.T, depth, fanout int) *TreeRun {
	dir := t.TempDir()
	tr := &TreeRun{dir: dir, ran: filepath.Join(dir, "ran"), gate: filepath.Join(dir, "gate"), Input: filepath.Join(dir, "input"), depth: depth, fanout: fanout}
	script := filepath.Join(dir, "node.sh")
	body := fmt.Sprintf(`d=$1
echo "$WORKSTEAL_TASK $WORKSTEAL_WORKER" >> %s
if [ "$d" -gt 0 ]; then
  i=0
  while [ $i -lt %d ]; do %s spawn -- sh %s $((d-1)) || exit 9; i=$((i+1)); done
fi
if [ "$d" -eq %d ]; then
  while [ ! -e %s ]; do sleep 0.05; done
fi
sleep 0.15
echo 1
`, tr.ran, fanout, Bin, script, depth, tr.gate)
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	tr.ReleaseRoot(t)
	if err := os.WriteFile(tr.Input, []byte(fmt.Sprintf("sh %s %d\n", script, depth)), 0o644); err != nil {
		t.Fatal(err)
	}
	return tr
}

// HoldRoot closes the root's gate: a root started from now on waits,
// after spawning its children, until ReleaseRoot. Call it before the run
// starts, and release the root once the fault it waits for is done, or
// the run never ends.
func (tr *TreeRun) HoldRoot(t *testing.T) {
	t.Helper()
	if err := os.Remove(tr.gate); err != nil {
		t.Fatal(err)
	}
}

// ReleaseRoot opens the root's gate: every copy of the root goes on.
func (tr *TreeRun) ReleaseRoot(t *testing.T) {
	t.Helper()
	if err := os.WriteFile(tr.gate, nil, 0o644); err != nil {
		t.Fatal(err)
	}
}

// IDs are the task ids of the whole tree: "1" (the batch's first task)
// and "<parent>=<i>".
func (tr *TreeRun) IDs() []string {
	level := []string{"1"}
	all := append([]string(nil), level...)
	for range tr.depth {
		var next []string
		for _, p := range level {
			for i := range tr.fanout {
				next = append(next, p+"="+strconv.Itoa(i))
			}
		}
		all = append(all, next...)
		level = next
	}
	return all
}

// Runs returns the nodes started so far, task -> workers that started it.
func (tr *TreeRun) Runs() map[string][]string {
	data, _ := os.ReadFile(tr.ran)
	m := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if f := strings.Fields(line); len(f) == 2 {
			m[f[0]] = append(m[f[0]], f[1])
		}
	}
	return m
}

// Run starts worksteal run --nats url on the tree's input, with extra.
func (tr *TreeRun) Run(t *testing.T, url string, extra ...string) *Process {
	args := append([]string{"run", "--nats", url, "--ack-wait", AckWait, "--reduce", "sum", "--progress=lines", "--summary", "-a", tr.Input}, extra...)
	return Launch(t, "run", args...)
}

// WaitRuns waits until k nodes have started.
func (tr *TreeRun) WaitRuns(t *testing.T, k int, run *Process) {
	t.Helper()
	deadline := time.Now().Add(testdeadline.Left(t))
	for len(tr.Runs()) < k {
		select {
		case <-run.Done:
			t.Fatalf("run exited %d after %d of %d nodes:\n%s", run.Code, len(tr.Runs()), k, run.Out.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("only %d of %d nodes started:\n%s", len(tr.Runs()), k, run.Out.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Check asserts the promise: run exits 0 and prints the exact number of
// nodes as the reduced value; every node of the tree ran (at least once)
// and no task outside it did.
func (tr *TreeRun) Check(t *testing.T, run *Process) {
	t.Helper()
	if code := run.Wait(t); code != 0 {
		t.Fatalf("run exited %d; want 0:\n%s", code, run.Out.String())
	}
	ids := tr.IDs()
	if !regexp.MustCompile(`(?m)^` + strconv.Itoa(len(ids)) + `$`).MatchString(run.Out.String()) {
		t.Errorf("run did not print the sum %d (one per node):\n%s", len(ids), run.Out.String())
	}
	runs := tr.Runs()
	extra := 0
	for _, id := range ids {
		if len(runs[id]) == 0 {
			t.Errorf("node %s never ran", id)
		}
		extra += max(0, len(runs[id])-1)
		delete(runs, id)
	}
	for id := range runs {
		t.Errorf("task %s ran, and is not a node of the tree", id)
	}
	t.Logf("%d nodes, %d ran again", len(ids), extra)
}

// RootWorker is the index of the worker that ran the root.
func (tr *TreeRun) RootWorker(t *testing.T) int {
	t.Helper()
	w := tr.Runs()["1"]
	if len(w) == 0 {
		t.Fatal("the root has not run")
	}
	i, err := strconv.Atoi(strings.TrimPrefix(w[0], "w"))
	if err != nil {
		t.Fatalf("root ran on %q", w[0])
	}
	return i - 1
}
