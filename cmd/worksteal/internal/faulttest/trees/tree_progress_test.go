package trees

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/worksteal/worksteal/cmd/worksteal/internal/e2e"
	"github.com/worksteal/worksteal/internal/testdeadline"
)

// progressTree is a shell tree whose root stays running until the test
// releases it: every node logs "start ID" and "end ID" around its work,
// spawns fanout children while its depth is above 0, sleeps, and prints 1
// (so --reduce sum counts the nodes).
type progressTree struct {
	dir, log, release string
}

func newProgressTree(t *testing.T, depth, fanout int, sleep string) *progressTree {
	dir := t.TempDir()
	pt := &progressTree{dir: dir, log: filepath.Join(dir, "log"), release: filepath.Join(dir, "release")}
	script := filepath.Join(dir, "node.sh")
	body := fmt.Sprintf(`d=$1
echo "start $WORKSTEAL_TASK" >> %[1]s
if [ "$d" -gt 0 ]; then
  i=0
  while [ $i -lt %[2]d ]; do %[3]s spawn -- sh %[4]s $((d-1)) || exit 9; i=$((i+1)); done
fi
sleep %[5]s
if [ "$WORKSTEAL_TASK" = 1 ]; then
  while [ ! -f %[6]s ]; do sleep 0.05; done
fi
echo "end $WORKSTEAL_TASK" >> %[1]s
echo 1
`, pt.log, fanout, e2e.Bin, script, sleep, pt.release)
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	return pt
}

// ended returns the nodes whose command has ended so far, and how many
// have started.
func (pt *progressTree) ended() (ended map[string]bool, started int) {
	data, _ := os.ReadFile(pt.log)
	ended = map[string]bool{}
	for _, line := range strings.Split(string(data), "\n") {
		switch f := strings.Fields(line); {
		case len(f) != 2:
		case f[0] == "start":
			started++
		case f[0] == "end":
			ended[f[1]] = true
		}
	}
	return ended, started
}

// apiJob is a job of the dashboard's /api/state.
type apiJob struct {
	ID        string  `json:"id"`
	Total     int     `json:"total"`
	Handed    int     `json:"handed"`
	Succeeded int     `json:"succeeded"`
	Failed    int     `json:"failed"`
	Running   int     `json:"running"`
	Queued    int     `json:"queued"`
	Finished  bool    `json:"finished"`
	ETA       float64 `json:"eta_s"`
}

func dashJob(t *testing.T, page, id string) (apiJob, bool) {
	t.Helper()
	resp, err := http.Get(page + "api/state")
	if err != nil {
		return apiJob{}, false
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var st struct {
		Jobs []apiJob `json:"jobs"`
	}
	if err := json.Unmarshal(b, &st); err != nil {
		t.Fatalf("/api/state: %v: %s", err, b)
	}
	for _, j := range st.Jobs {
		if j.ID == id {
			return j, true
		}
	}
	return apiJob{}, false
}

// statusView is what worksteal job status printed.
type statusView struct {
	state                                            string
	total, succeeded, failed, running, waiting, spun int
	value                                            int // -1: no value line
	out                                              string
}

var (
	statusLine  = regexp.MustCompile(`job \S+: (\w+), (\d+) tasks: (\d+) succeeded, (\d+) failed, (\d+) running, (\d+) waiting`)
	spawnedLine = regexp.MustCompile(`(?m)^spawned: (\d+) tasks handed over`)
	valueLine   = regexp.MustCompile(`(?m)^value \(sum\) so far: (\d+)$`)
)

func jobStatusOf(t *testing.T, url, id string) statusView {
	t.Helper()
	code, out, errs := e2e.Run(t, "", nil, "job", "status", id, "--nats", url)
	m := statusLine.FindStringSubmatch(out)
	if code != 0 || m == nil {
		t.Fatalf("job status %s: exit %d:\n%s%s", id, code, out, errs)
	}
	v := statusView{state: m[1], value: -1, out: out}
	for i, p := range []*int{&v.total, &v.succeeded, &v.failed, &v.running, &v.waiting} {
		*p, _ = strconv.Atoi(m[i+2])
	}
	if m := spawnedLine.FindStringSubmatch(out); m != nil {
		v.spun, _ = strconv.Atoi(m[1])
	}
	if m := valueLine.FindStringSubmatch(out); m != nil {
		v.value, _ = strconv.Atoi(m[1])
	}
	return v
}

// TestTreeProgressAgreesWithTheJob runs a shell tree whose root stays
// running, with a dashboard, and samples /api/state and worksteal job
// status at several moments as the tree grows, then once the tree is done
// but for its root, and at its end; each against the job's own counts:
// the nodes' side-effect log and, at the end, the job's results.
//
// While the tree grows neither view may claim the job finished or its
// ETA known, show no task left, or more done than the log shows ended;
// job status must show the root running, the tasks handed over so far and
// the value so far. When all but the root has ended, both views must
// settle on the same counts: every task handed over, all done but the
// root, which runs.
func TestTreeProgressAgreesWithTheJob(t *testing.T) {
	t.Parallel()
	srv, _ := e2e.Deployment(t)
	dash := e2e.Launch(t, "dash", "dash", "--nats", srv.URL(), "--http", "127.0.0.1:0")
	page := dash.WaitFor(t, `dashboard on (http://\S+/)`)[1]

	const depth, fanout = 3, 3
	const nodes = 1 + 3 + 9 + 27
	pt := newProgressTree(t, depth, fanout, "1")
	submit := e2e.Launch(t, "run", "run", "--nats", srv.URL(), "--ack-wait", e2e.AckWait, "--job", "grow", "--reduce", "sum",
		"sh "+filepath.Join(pt.dir, "node.sh")+" {}", ":::", strconv.Itoa(depth))

	deadline := time.Now().Add(testdeadline.Left(t))
	for _, started := pt.ended(); started == 0; _, started = pt.ended() {
		if time.Now().After(deadline) {
			t.Fatalf("the root did not start:\n%s", submit.Out.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	// Samples while the tree grows: checked against what the log says
	// before and after each.
	var dashSeen, statusSeen []string
	sawRunning, sawHanded, sawValue := false, false, false
	for i := 0; ; i++ {
		ended, _ := pt.ended()
		if len(ended) >= nodes-1 {
			break // all but the root: the growing part is over
		}
		if time.Now().After(deadline) {
			t.Fatalf("the tree did not end: %d of %d nodes ended", len(ended), nodes-1)
		}
		if j, ok := dashJob(t, page, "grow"); ok {
			after, _ := pt.ended()
			dashSeen = append(dashSeen, fmt.Sprintf("%+v", j))
			switch {
			case j.Finished || j.ETA != -1:
				t.Errorf("mid-tree, /api/state shows %+v: want unfinished, ETA unknown (-1) while the tree grows", j)
			case j.Total <= j.Succeeded+j.Failed || j.Total < j.Succeeded+j.Failed+j.Running+j.Queued:
				t.Errorf("mid-tree, /api/state shows %+v: the total must exceed what is done and cover what runs and waits", j)
			case j.Succeeded+j.Failed > len(after) || j.Total > nodes:
				t.Errorf("mid-tree, /api/state shows %+v: more done than the %d nodes ended, or more tasks than the tree's %d nodes", j, len(after), nodes)
			}
		}
		if i%2 == 0 {
			v := jobStatusOf(t, srv.URL(), "grow")
			after, _ := pt.ended()
			statusSeen = append(statusSeen, strings.SplitN(v.out, "\n", 2)[0])
			switch {
			case v.state != "running" || v.total <= v.succeeded+v.failed:
				t.Errorf("mid-tree, job status says:\n%s\nwant running, with a task left", v.out)
			case v.succeeded+v.failed > len(after) || v.total > nodes || v.value > len(after):
				t.Errorf("mid-tree, job status says:\n%s\nmore done (or a greater value) than the %d nodes ended, or more tasks than %d", v.out, len(after), nodes)
			}
			sawRunning = sawRunning || v.running > 0
			sawHanded = sawHanded || v.spun > 0
			sawValue = sawValue || v.value > 0
		}
		time.Sleep(150 * time.Millisecond)
	}
	t.Logf("/api/state while the tree grew:\n%s", strings.Join(dashSeen, "\n"))
	t.Logf("job status while the tree grew:\n%s", strings.Join(statusSeen, "\n"))

	// All but the root has ended: the views settle on the same counts.
	var j apiJob
	for {
		var ok bool
		j, ok = dashJob(t, page, "grow")
		if ok && j.Running == 1 && j.Queued == 0 && j.Handed > 0 && j.Succeeded == j.Total-1 && j.Total == 1+j.Handed {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("/api/state never settled on the tree done but its running root: %+v", j)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if j.Finished || j.ETA != -1 {
		t.Errorf("the root still runs, /api/state shows %+v: want unfinished, ETA unknown", j)
	}
	var v statusView
	for {
		v = jobStatusOf(t, srv.URL(), "grow")
		if v.running == 1 || time.Now().After(deadline) {
			break
		}
	}
	sawRunning, sawHanded, sawValue = sawRunning || v.running > 0, sawHanded || v.spun > 0, sawValue || v.value > 0
	if v.state != "running" || v.total != j.Total || v.succeeded != j.Succeeded || v.failed != 0 || v.running != 1 || v.waiting != 0 || v.spun != j.Handed {
		t.Errorf("all but the root done: job status says\n%s\n/api/state %+v: want the same counts, the root running", v.out, j)
	}
	if !sawRunning || !sawHanded || !sawValue {
		t.Errorf("job status never showed, mid-tree: the root running (%v), the tasks handed over (%v), the value so far (%v)", sawRunning, sawHanded, sawValue)
	}

	// The end: the job's own counts, from its results.
	if err := os.WriteFile(pt.release, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if code := submit.Wait(t); code != 0 || !regexp.MustCompile(`(?m)^`+strconv.Itoa(nodes)+`$`).MatchString(submit.Out.String()) {
		t.Fatalf("run exited %d; want 0 and the sum %d:\n%s", code, nodes, submit.Out.String())
	}
	code, out, errs := e2e.Run(t, "", nil, "job", "results", "grow", "--json", "--nats", srv.URL())
	if code != 0 {
		t.Fatalf("job results: exit %d: %s", code, errs)
	}
	results := strings.Count(strings.TrimSpace(out), "\n") + 1
	if results != 1+j.Handed {
		t.Errorf("the job has %d results (the root and the tasks handed over); mid-tree the views showed %d handed over", results, j.Handed)
	}
	for {
		j, _ = dashJob(t, page, "grow")
		if j.Finished || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	v = jobStatusOf(t, srv.URL(), "grow")
	if !j.Finished || j.Total != results || j.Succeeded != results || j.ETA != 0 || v.state != "done" || v.total != results || v.succeeded != results || v.value != nodes {
		t.Errorf("at the end: /api/state %+v, job status\n%s\nwant both done, %d tasks succeeded, value %d", j, v.out, results, nodes)
	}
}
