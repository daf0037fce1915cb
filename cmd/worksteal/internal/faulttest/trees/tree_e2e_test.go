package trees

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/worksteal/worksteal/cmd/worksteal/internal/e2e"
)

// TestTreeThroughTheBinary: a shell tree spills to idle workers and run
// prints the exact sum; no fault.
func TestTreeThroughTheBinary(t *testing.T) {
	t.Parallel()
	srv, _ := e2e.Deployment(t)
	tr := e2e.NewTreeRun(t, 3, 4) // 85 nodes
	run := tr.Run(t, srv.URL())
	tr.Check(t, run)
	workers := map[string]bool{}
	for _, ws := range tr.Runs() {
		for _, w := range ws {
			workers[w] = true
		}
	}
	if len(workers) < 2 {
		t.Errorf("the tree ran on %d worker(s); want it handed over to idle ones", len(workers))
	}
	if !strings.Contains(run.Out.String(), "spawned") {
		t.Errorf("the progress lines do not show spawned tasks:\n%s", run.Out.String())
	}
	// The job's status shows the tasks handed over and the value.
	id := regexp.MustCompile(`job (run-[0-9a-f]+)`).FindStringSubmatch(run.Out.String())
	if id == nil {
		t.Fatalf("run named no job:\n%s", run.Out.String())
	}
	st := e2e.Launch(t, "job status", "job", "status", id[1], "--nats", srv.URL())
	if code := st.Wait(t); code != 0 {
		t.Fatalf("job status exited %d:\n%s", code, st.Out.String())
	}
	if out := st.Out.String(); !regexp.MustCompile(`spawned: [1-9]\d* tasks handed over`).MatchString(out) ||
		!strings.Contains(out, "value (sum) so far: "+strconv.Itoa(len(tr.IDs()))) {
		t.Errorf("job status does not show the tasks handed over and the sum %d:\n%s", len(tr.IDs()), out)
	}
}

// TestTreeWorkerKilledHoldingTheRoot: the worker that runs the root (and
// holds the subtrees it has not handed over) dies with SIGKILL a third of
// the way in; another worker runs the root again, which hands over again
// (same ids) what it handed over before, and the sum is exact.
func TestTreeWorkerKilledHoldingTheRoot(t *testing.T) {
	t.Parallel()
	_, workers, tr, run := e2e.TreePartWay(t)
	workers[tr.RootWorker(t)].Signal(t, syscall.SIGKILL)
	tr.ReleaseRoot(t)
	tr.Check(t, run)
}

// TestTreeWorkerStopped: the worker holding the root is stopped with
// SIGTERM: it hands its tasks back at once and exits 0.
func TestTreeWorkerStopped(t *testing.T) {
	t.Parallel()
	_, workers, tr, run := e2e.TreePartWay(t)
	w := workers[tr.RootWorker(t)]
	w.Signal(t, syscall.SIGTERM)
	if code := w.Wait(t); code != 0 {
		t.Errorf("the stopped worker exited %d; want 0", code)
	}
	tr.ReleaseRoot(t)
	tr.Check(t, run)
}

// TestTreeServerKilledAndRestarted: serve dies with SIGKILL mid-tree and
// comes back on its store 3 s later.
func TestTreeServerKilledAndRestarted(t *testing.T) {
	t.Parallel()
	srv, _, tr, run := e2e.TreePartWay(t)
	srv.Restart(t, 3*time.Second)
	tr.ReleaseRoot(t)
	tr.Check(t, run)
}

// TestBenchCellCluster: the cluster's uts-sha1 cell counts a tree on
// three worker processes exactly as the single-process cell does, and
// reports the subtrees handed between workers.
func TestBenchCellCluster(t *testing.T) {
	t.Parallel()
	srv, _ := e2e.Deployment(t)
	const tree = "t=1,a=3,d=7,b=4,r=19"
	local := e2e.Launch(t, "cell ws", "bench", "cell", "ws", "uts-sha1", tree, "1")
	if code := local.Wait(t); code != 0 {
		t.Fatalf("bench cell ws exited %d:\n%s", code, local.Out.String())
	}
	want := regexp.MustCompile(`ws uts-sha1 \S+ 1 [0-9.]+ (\d+ leaves=\d+ depth=\d+)`).FindStringSubmatch(local.Out.String())
	if want == nil {
		t.Fatalf("bench cell ws printed:\n%s", local.Out.String())
	}
	cell := e2e.Launch(t, "cell cluster", "bench", "cell", "cluster", "uts-sha1", tree, "12", "2", "0", "--nats", srv.URL(), "--split", "3")
	if code := cell.Wait(t); code != 0 {
		t.Fatalf("bench cell cluster exited %d:\n%s", code, cell.Out.String())
	}
	lines := regexp.MustCompile(`(?m)^cluster uts-sha1 \S+ 12 [0-9.]+ (\d+ leaves=\d+ depth=\d+) handed=(\d+) idle=(\d+) task-msgs=(\d+)$`).FindAllStringSubmatch(cell.Out.String(), -1)
	if len(lines) != 2 {
		t.Fatalf("want 2 lines of the cell's format, got:\n%s", cell.Out.String())
	}
	for _, m := range lines {
		if m[1] != want[1] {
			t.Errorf("cluster counted %s; one process counted %s", m[1], want[1])
		}
	}
	bad := e2e.Launch(t, "cell cluster bad", "bench", "cell", "cluster", "uts-sha1", "T1", "2")
	if code := bad.Wait(t); code == 0 || !strings.Contains(bad.Out.String(), "--nats URL is required") {
		t.Errorf("a cell without --nats exited %d:\n%s", code, bad.Out.String())
	}
}

// TestSpawnOutsideATask: worksteal spawn run by hand says what is missing
// and fails.
func TestSpawnOutsideATask(t *testing.T) {
	t.Parallel()
	p := e2e.Launch(t, "spawn", "spawn", "--", "echo", "hi")
	if code := p.Wait(t); code == 0 || !strings.Contains(p.Out.String(), "WORKSTEAL_SPAWN_SOCKET") {
		t.Errorf("spawn outside a task exited %d:\n%s", code, p.Out.String())
	}
}

// TestTreeClusterLosesStreamLeader: three serve processes form a
// JetStream cluster, the tree runs with --replicas 3, and the server that
// leads the task stream dies with SIGKILL a third of the way in.
func TestTreeClusterLosesStreamLeader(t *testing.T) {
	t.Parallel()
	c := e2e.NewCluster(t)
	tr := e2e.NewTreeRun(t, 3, 4)
	run := tr.Run(t, c.URLs, "--replicas", "3")
	tr.WaitRuns(t, len(tr.IDs())/3, run)
	c.KillStreamLeader(t)
	killed := time.Now()
	tr.Check(t, run)
	c.LogIfSlow(t, killed, run)
}

// TestTreeShellReductionMatchesSequential: fib(9) as a tree of shell
// commands (worksteal spawn; a node below 2 prints n, one above spawns
// n−1 and n−2 and prints nothing) reduces with --reduce sum to the fib(9)
// of a loop, 34, on three workers that hand subtrees to each other.
func TestTreeShellReductionMatchesSequential(t *testing.T) {
	t.Parallel()
	srv, _ := e2e.Deployment(t)
	dir := t.TempDir()
	script := filepath.Join(dir, "fib.sh")
	body := fmt.Sprintf(`n=$1
if [ "$n" -lt 2 ]; then echo "$n"; exit 0; fi
%[1]s spawn -- sh %[2]s $((n-1)) || exit 9
%[1]s spawn -- sh %[2]s $((n-2)) || exit 9
`, e2e.Bin, script)
	writeScript(t, script, body)
	const n = 9
	a, b := 0, 1
	for range n {
		a, b = b, a+b
	}
	run := e2e.Launch(t, "run", "run", "--nats", srv.URL(), "--reduce", "sum", "sh "+script+" {}", ":::", strconv.Itoa(n))
	if code := run.Wait(t); code != 0 {
		t.Fatalf("run exited %d:\n%s", code, run.Out.String())
	}
	if !regexp.MustCompile(`(?m)^` + strconv.Itoa(a) + `$`).MatchString(run.Out.String()) {
		t.Errorf("run --reduce sum of the fib(%d) tree did not print %d:\n%s", n, a, run.Out.String())
	}
}

// TestSpawnedChildrenInheritEnvAndTimeout: a variable that run --env
// gives the task reaches its grandchild (spawned by its spawned child),
// as GNU parallel users expect of a job; and --timeout applies to a
// grandchild too.
func TestSpawnedChildrenInheritEnvAndTimeout(t *testing.T) {
	t.Parallel()
	srv, _ := e2e.Deployment(t)
	_, child := spawnScripts(t, "echo C=$FOO\n%s spawn -- sh %s \"$1\" || exit 9\n", "echo G=$FOO\nsleep \"$1\"\n")
	run := e2e.LaunchEnv(t, "run", []string{"FOO=bar"}, "run", "--nats", srv.URL(), "--env", "FOO",
		"echo P=$FOO; "+e2e.Bin+" spawn -- sh "+child+" {}", ":::", "0")
	if code := run.Wait(t); code != 0 {
		t.Fatalf("run exited %d:\n%s", code, run.Out.String())
	}
	for _, want := range []string{"P=bar", "C=bar", "G=bar"} {
		if !regexp.MustCompile(`(?m)^` + want + `$`).MatchString(run.Out.String()) {
			t.Errorf("run --env FOO: no line %s:\n%s", want, run.Out.String())
		}
	}
	slow := e2e.Launch(t, "run slow", "run", "--nats", srv.URL(), "--timeout", "2s",
		e2e.Bin+" spawn -- sh "+child+" {}", ":::", "600")
	if code := slow.Wait(t); code == 0 || !strings.Contains(slow.Out.String(), "timed out after 2s") {
		t.Errorf("a grandchild sleeping 600 s under --timeout 2s: run exited %d:\n%s", code, slow.Out.String())
	}
}

// TestFailingGrandchildIsNamed: a grandchild that exits 3 fails the
// batch's task, and run says on stderr which node failed, its command
// and its exit status, as it does for a failing task of a flat batch.
func TestFailingGrandchildIsNamed(t *testing.T) {
	t.Parallel()
	srv, _ := e2e.Deployment(t)
	dir := t.TempDir()
	child := filepath.Join(dir, "child.sh")
	writeScript(t, child, fmt.Sprintf("echo 1\n%s spawn -- sh -c 'echo bad input >&2; exit 3' || exit 9\n", e2e.Bin))
	run := e2e.Launch(t, "run", "run", "--nats", srv.URL(), "echo 1; "+e2e.Bin+" spawn -- sh "+child, ":::", "7")
	if code := run.Wait(t); code != 1 {
		t.Fatalf("run exited %d; want 1:\n%s", code, run.Out.String())
	}
	want := regexp.MustCompile(`spawned task 1=0=0 \(sh\) failed: command "sh -c 'echo bad input >&2; exit 3'": exit status 3; stderr: bad input`)
	if !want.MatchString(run.Out.String()) {
		t.Errorf("run did not name the failing grandchild, its command and exit status:\n%s", run.Out.String())
	}
}

// TestSpawnedChildrenSaveUnderTheirRootsResults: with --results DIR, the
// output of every node of a task's tree (its children and grandchildren,
// run where they were spawned or handed over to other workers) is saved
// under the task's own name, DIR/1/<value>/stdout, once each, and
// nothing is saved anywhere else.
func TestSpawnedChildrenSaveUnderTheirRootsResults(t *testing.T) {
	t.Parallel()
	srv, _ := e2e.Deployment(t)
	dir, child := spawnScripts(t, "echo C$1-$2\n%s spawn -- sh %s $1 $2 || exit 9\nsleep 0.3\n", "echo G$1-$2\nsleep 0.2\n")
	results := filepath.Join(dir, "out")
	const children = 4
	submit := e2e.Launch(t, "run", "run", "--nats", srv.URL(), "--job", "saved", "--results", results,
		"echo P{}; for i in 1 2 3 4; do "+e2e.Bin+" spawn -- sh "+child+" {} $i || exit 9; done", ":::", "a", "b")
	if code := submit.Wait(t); code != 0 {
		t.Fatalf("run exited %d:\n%s", code, submit.Out.String())
	}
	var files []string
	filepath.WalkDir(results, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(results, p)
			files = append(files, rel)
		}
		return nil
	})
	want := []string{"1/a/seq", "1/a/stderr", "1/a/stdout", "1/b/seq", "1/b/stderr", "1/b/stdout"}
	if strings.Join(files, " ") != strings.Join(want, " ") {
		t.Errorf("--results %s holds %q; want %q", results, files, want)
	}
	for _, v := range []string{"a", "b"} {
		data, _ := os.ReadFile(filepath.Join(results, "1", v, "stdout"))
		lines := strings.Fields(string(data))
		wantLines := []string{"P" + v}
		for i := 1; i <= children; i++ {
			wantLines = append(wantLines, fmt.Sprintf("C%s-%d", v, i), fmt.Sprintf("G%s-%d", v, i))
		}
		slices.Sort(lines)
		slices.Sort(wantLines)
		if !slices.Equal(lines, wantLines) {
			t.Errorf("%s/1/%s/stdout holds %q; want each of %q once", results, v, lines, wantLines)
		}
	}
	// The test means something only if some node was handed over (saved
	// from a result of its own).
	code, out, errs := e2e.Run(t, "", nil, "job", "results", "saved", "--nats", srv.URL())
	if code != 0 {
		t.Fatalf("job results: %d %s", code, errs)
	}
	if !regexp.MustCompile(`(?m)^[12]=\d`).MatchString(out) {
		t.Skipf("no node was handed over to another worker:\n%s", out)
	}
}

// writeScript writes a shell script of the test's.
func writeScript(t *testing.T, path, body string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
}

// spawnScripts writes child.sh and grand.sh in a new directory of t:
// child's body is a format whose two %s are the worksteal binary and
// grand.sh's path (child spawns grand). It returns the directory and
// child.sh's path.
func spawnScripts(t *testing.T, child, grand string) (dir, childPath string) {
	t.Helper()
	dir = t.TempDir()
	childPath, grandPath := filepath.Join(dir, "child.sh"), filepath.Join(dir, "grand.sh")
	writeScript(t, childPath, fmt.Sprintf(child, e2e.Bin, grandPath))
	writeScript(t, grandPath, grand)
	return dir, childPath
}
