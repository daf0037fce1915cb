package cli

import (
	"encoding/json"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// checkNA: a count shown as n/a has its reason printed, once; a machine
// with no PMU prints n/a for instructions, never a 0.
func checkNA(t *testing.T, out string) {
	t.Helper()
	if strings.Contains(out, "n/a") {
		if strings.Count(out, "\nn/a:\n") != 1 {
			t.Errorf("n/a counts without their reasons printed once:\n%s", out)
		}
		if !strings.Contains(out, "memory-bandwidth: unavailable: ") {
			t.Errorf("no reason for the missing memory bandwidth:\n%s", out)
		}
	}
	if strings.Contains(out, "instructions=0 ") {
		t.Errorf("instructions read as 0:\n%s", out)
	}
}

func TestBenchCounters(t *testing.T) {
	code, out, errs := runCLI(t, "bench", "--entry", "fib=18", "--impls", "go-seq,ws", "--workers", "2", "--reps", "2", "--progress", "none", "--counters")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	i := strings.Index(out, "Counters per timed iteration")
	if i < 0 {
		t.Fatalf("no counters table:\n%s", out)
	}
	table := out[i:]
	rows := 0
	for line := range strings.SplitSeq(table, "\n") {
		f := strings.Fields(line)
		if len(f) == 11 && f[0] == "fib" {
			rows++
			if runtime.GOOS == "linux" && (f[9] == "n/a" || f[8] == "n/a") {
				t.Errorf("row %q: page faults or context switches n/a on Linux", line)
			}
		}
	}
	if rows != 2 {
		t.Errorf("%d counter rows; want 2 (go-seq, ws at 2 workers):\n%s", rows, table)
	}
	checkNA(t, table)

	code, out, errs = runCLI(t, "bench", "--entry", "fib=12", "--impls", "ws", "--workers", "1", "--reps", "1", "--json", "--progress", "none", "--counters")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var rep struct {
		Cells []struct {
			Counters *struct {
				PageFaults  uint64
				Unavailable map[string]string
			} `json:"counters"`
		} `json:"cells"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	if len(rep.Cells) != 1 || rep.Cells[0].Counters == nil || rep.Cells[0].Counters.Unavailable["memory-bandwidth"] == "" {
		t.Fatalf("JSON cells lack counters with the reason for memory bandwidth: %s", out)
	}
}

func TestBenchWithoutCountersHasNoTable(t *testing.T) {
	code, out, errs := runCLI(t, "bench", "--entry", "fib=12", "--impls", "ws", "--workers", "1", "--reps", "1", "--progress", "none")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if strings.Contains(out, "Counters per") || strings.Contains(out, "n/a:") {
		t.Errorf("counters printed without --counters:\n%s", out)
	}
}

func TestTraceRecordCounters(t *testing.T) {
	args := []string{"trace", "record", "--workload", "fib", "--size", "18", "--workers", "2", "--counters", "-o", filepath.Join(t.TempDir(), "t.json")}
	if runtime.GOOS == "linux" {
		args = append(args, "--pin")
	}
	code, out, errs := runCLI(t, args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(out, "counters (process") {
		t.Fatalf("no counters line:\n%s", out)
	}
	if runtime.GOOS == "linux" && (!strings.Contains(out, "  worker 0: ") || !strings.Contains(out, "  worker 1: ")) {
		t.Errorf("no per-worker counters with --pin:\n%s", out)
	}
	checkNA(t, out)
}
