package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/worksteal/worksteal/internal/cli/benchcmd"
)

// runCLI runs the worksteal command line and returns its exit code and output.
func runCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = Run(context.Background(), args, strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

func TestBenchCell(t *testing.T) {
	cases := []struct {
		args  []string
		lines int
		want  string // every line starts with it and ends with the result
		res   string
	}{
		{[]string{"bench", "cell", "ws", "fib", "20", "2", "3", "0"}, 3, "ws fib 20 2 ", " 6765"},
		{[]string{"bench", "cell", "go-ws", "nqueens", "8", "1"}, 1, "go-ws nqueens 8 1 ", " 92"},
		{[]string{"bench", "cell", "go-wg-cutoff", "uts", "100", "2", "2"}, 2, "go-wg-cutoff uts 100 2 ", " 4101"},
		{[]string{"bench", "cell", "go-seq", "uts-sha1", "default", "1", "1", "0"}, 1, "go-seq uts-sha1 default 1 ", " 1732 leaves=1050 depth=6"},
		// The loops, with the anchors' own Go binary's results.
		{[]string{"bench", "cell", "go-ws", "sort", "1000", "2", "3"}, 3, "go-ws sort 1000 2 ", " 4365739868045896643"},
		{[]string{"bench", "cell", "go-ws", "mapreduce", "1000000", "2", "2"}, 2, "go-ws mapreduce 1000000 2 ", " 493486003624585"},
		{[]string{"bench", "cell", "go-wg", "mandel", "100", "2"}, 1, "go-wg mandel 100 2 ", " 2486649"},
		// The two loops with LLVM-shaped leaves: the same results as the plain ones.
		{[]string{"bench", "cell", "go-ws", "mapreduce-mulhi", "1000001", "2", "2"}, 2, "go-ws mapreduce-mulhi 1000001 2 ", " 493487003617592"},
		{[]string{"bench", "cell", "go-ws", "mandel-unrolled", "100", "2"}, 1, "go-ws mandel-unrolled 100 2 ", " 2486649"},
	}
	for _, tc := range cases {
		code, out, errs := runCLI(t, tc.args...)
		if code != 0 {
			t.Errorf("%v: exit %d, stderr %q", tc.args, code, errs)
			continue
		}
		lines := strings.Split(strings.TrimSpace(out), "\n")
		if len(lines) != tc.lines {
			t.Errorf("%v: %d lines; want %d:\n%s", tc.args, len(lines), tc.lines, out)
		}
		for _, l := range lines {
			if !strings.HasPrefix(l, tc.want) || !strings.HasSuffix(l, tc.res) || len(strings.Fields(l)) != 5+len(strings.Fields(tc.res)) {
				t.Errorf("%v: line %q; want %q ... ms%s", tc.args, l, tc.want, tc.res)
			}
		}
	}
}

func TestBenchCellErrors(t *testing.T) {
	for _, args := range [][]string{
		{"bench", "cell", "rust-rayon", "fib", "20", "1"},
		{"bench", "cell", "ws", "quicksort", "20", "1"},
		{"bench", "cell", "ws-closure", "sort", "20", "1"},
		{"bench", "cell", "go-wg-cutoff", "mapreduce", "20", "1"},
		{"bench", "cell", "ws", "mapreduce", "-1", "1"},
		{"bench", "cell", "ws", "mandel", "0", "1"},
		{"bench", "cell", "ws", "fib", "x", "1"},
		{"bench", "cell", "ws", "fib", "20", "0"},
		{"bench", "cell", "go-seq", "fib", "20", "2"},
		{"bench", "cell", "ws", "fib", "20"},
	} {
		if code, _, _ := runCLI(t, args...); code == 0 {
			t.Errorf("%v: exit 0; want an error", args)
		}
	}
}

func TestBenchTable(t *testing.T) {
	code, out, errs := runCLI(t, "bench", "--entry", "fib=15", "--entry", "uts-sha1=t=1,a=3,d=4,b=4,r=19", "--reps", "1", "--progress", "lines", "--max-load", "0.5", "--retries", "2", "--retry-budget", "10s")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"fib 15:", "joins 986, result 610", "go-seq", "go-wg-cutoff", "ws-closure", "uts-sha1 t=1,a=3,d=4,b=4,r=19", "T2w/seq"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(errs, "bench: [1/") || !strings.Contains(errs, "bench: done") {
		t.Errorf("no progress lines on stderr: %q", errs)
	}
}

// TestBenchTableLoops: an --entry of a loop workload runs the
// implementations it has (go-seq and ws; go-wg too for mandel), none that
// it lacks, and prints the anchors' result.
func TestBenchTableLoops(t *testing.T) {
	code, out, errs := runCLI(t, "bench", "--entry", "mapreduce=1000000", "--entry", "mandel=37", "--reps", "1", "--progress", "none")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"mapreduce 1000000:", "joins none (a loop), result 493486003624585", "mandel 37:", "result 338908", "go-wg"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	for _, absent := range []string{"ws-closure", "go-wg-cutoff"} {
		if strings.Contains(out, absent) {
			t.Errorf("table has %q, which the loops do not offer:\n%s", absent, out)
		}
	}
	if code, _, errs := runCLI(t, "bench", "--entry", "sort=1000", "--impls", "go-wg"); code == 0 {
		t.Errorf("sort with only go-wg: exit 0; want an error (%s)", errs)
	}
}

func TestBenchProgressBar(t *testing.T) {
	code, out, errs := runCLI(t, "bench", "--entry", "nqueens=6", "--impls", "go-seq,ws", "--workers", "1", "--reps", "1", "--warmup", "0", "--progress", "bar")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(out, "nqueens 6:") || errs != "" {
		t.Errorf("stdout %q, stderr %q", out, errs)
	}
}

func TestBenchJSON(t *testing.T) {
	code, out, errs := runCLI(t, "bench", "--entry", "fib=12", "--impls", "go-seq,ws", "--reps", "2", "--json", "--progress", "none")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var rep struct {
		Reps   int `json:"reps"`
		Tables []struct {
			Workload string `json:"workload"`
			Joins    int64  `json:"joins"`
			Rows     []struct {
				Impl string             `json:"impl"`
				Ms   map[string]float64 `json:"ms"`
			} `json:"rows"`
		} `json:"tables"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if rep.Reps != 2 || len(rep.Tables) != 1 || rep.Tables[0].Joins != 232 || len(rep.Tables[0].Rows) != 2 || len(rep.Tables[0].Rows[1].Ms) != 2 {
		t.Errorf("report = %+v", rep)
	}
}

func TestBenchFlagErrors(t *testing.T) {
	for _, args := range [][]string{
		{"bench", "--workloads", "sort"},
		{"bench", "--impls", "go-errgroup"},
		{"bench", "--entry", "fib"},
		{"bench", "--entry", "fib=x"},
		{"bench", "--reps", "0"},
		{"bench", "--progress", "fancy", "--entry", "fib=5"},
		{"bench", "--workers", "0", "--entry", "fib=5"},
		{"bench", "--quick", "--workloads", "fib", "--impls", "rust-rayon"},
	} {
		if code, _, _ := runCLI(t, args...); code == 0 {
			t.Errorf("%v: exit 0; want an error", args)
		}
	}
}

func TestBenchList(t *testing.T) {
	code, out, _ := runCLI(t, "bench", "list")
	if code != 0 {
		t.Fatal("exit", code)
	}
	for _, want := range []string{"uts-sha1", "T3", "4112897 leaves=3599034 depth=1572", "ws-closure"} {
		if !strings.Contains(out, want) {
			t.Errorf("list lacks %q:\n%s", want, out)
		}
	}
}

// TestBenchQuickBoundsItsReRuns: --quick re-runs busy cells for at most
// quickRetryBudget (the default minute made a quick run take 83 s on a busy
// machine), unless --retry-budget is given.
func TestBenchQuickBoundsItsReRuns(t *testing.T) {
	cases := []struct {
		cfg   benchcmd.BenchConfig
		given bool
		want  time.Duration
	}{
		{benchcmd.BenchConfig{Quick: true, RetryBudget: time.Minute}, false, benchcmd.QuickRetryBudget},
		{benchcmd.BenchConfig{Quick: true, RetryBudget: 2 * time.Minute}, true, 2 * time.Minute},
		{benchcmd.BenchConfig{RetryBudget: time.Minute}, false, time.Minute},
	}
	for _, c := range cases {
		cfg := c.cfg
		cfg.QuickDefaults(c.given)
		if cfg.RetryBudget != c.want {
			t.Errorf("quick=%v, --retry-budget given=%v: retry budget %v; want %v", c.cfg.Quick, c.given, cfg.RetryBudget, c.want)
		}
	}
}
