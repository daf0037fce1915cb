package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/worksteal/worksteal/internal/cli/cmdenv"
)

// One exit-status scheme for every command: 0 done, 1 the work failed,
// 2 usage or bad input, 128 + signal when interrupted.
func TestExitStatusScheme(t *testing.T) {
	dir := t.TempDir()
	notTrace := filepath.Join(dir, "a.json")
	os.WriteFile(notTrace, []byte(`{"a":[1,2,3]}`), 0o644)
	for _, tc := range []struct {
		args []string
		code int
		msg  string // stderr contains it
	}{
		{[]string{"bogus"}, 2, `unknown command "bogus"`},
		{[]string{"sim", "--nope"}, 2, "worksteal sim: unknown flag: --nope"},
		{[]string{"bench", "--reps", "x"}, 2, "invalid argument"},
		{[]string{"trace"}, 2, "worksteal trace: accepts 1 arg(s)"},
		{[]string{"bench", "cell", "ws", "fib", "-5", "1"}, 2, `fib size "-5"`},
		{[]string{"bench", "cell", "ws", "fib", "20", "-5"}, 2, `THREADS "-5": want a whole number from 1 to 1024`},
		{[]string{"bench", "cell", "ws", "fib", "20", "100000"}, 2, `THREADS "100000": want a whole number from 1 to 1024`},
		{[]string{"bench", "--workers", "100000", "--entry", "fib=5"}, 2, "bench: --workers 100000: want 1 to 1024"},
		{[]string{"bench", "--entry", "fib=99"}, 2, `--entry fib=99: bench: bad size: fib size "99" (want an integer in 0..90)`},
		{[]string{"bench", "--entry", "quicksort=1"}, 2, `--entry quicksort=1: bench: unknown workload`},
		{[]string{"bench", "--entry", "sort=-1"}, 2, `--entry sort=-1: bench: bad size: sort size "-1"`},
		{[]string{"bench", "--impls", "rayon"}, 2, `--impls rayon: bench: unknown implementation`},
		{[]string{"bench", "--workloads", "quicksort"}, 2, `--workloads quicksort: bench: unknown workload`},
		{[]string{"bench", "--workloads", "sort"}, 2, `bench: nothing to run`}, // not in the default plan
		{[]string{"trace", "record", "--size", "-5", "-o", filepath.Join(dir, "x.json")}, 2, "--size -5"},
		{[]string{"trace", "record", "-w", "100000", "-o", filepath.Join(dir, "x.json")}, 2, "--workers 100000: want 0 (GOMAXPROCS) to 1024"},
		{[]string{"trace", "record", "--ring", "2000000000", "-w", "2", "-o", filepath.Join(dir, "x.json")}, 2, "--ring 2000000000: want 1 to 8388608 events per worker"},
		{[]string{"trace", "--top", "-5", "x.json"}, 2, "--top -5: want at least 1"},
		{[]string{"trace", "--width", "5", "x.json"}, 2, "--width 5: want 200 to 100000 pixels"},
		{[]string{"trace", "record", "-o", "/nonexistent/x.json"}, 2, "worksteal trace record --output /nonexistent/x.json: no such file or directory"},
		{[]string{"trace", "profile", "-o", "/nonexistent/x.json"}, 2, "worksteal trace profile --output /nonexistent/x.json: no such file or directory"},
		{[]string{"bench", "cell", "ws", "fib", "10", "1"}, 0, ""},
	} {
		code, out, errs := runCLI(t, tc.args...)
		if code != tc.code || !strings.Contains(errs, tc.msg) {
			t.Errorf("%q: exit %d, stderr %q; want exit %d and %q", tc.args, code, errs, tc.code, tc.msg)
		}
		if code == cmdenv.ExitUsage && out != "" { // refused before running anything
			t.Errorf("%q: refused, yet printed %q", tc.args, out)
		}
	}
	for _, name := range []string{"x.json"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			t.Errorf("%s was written by a refused command", name)
		}
	}
}

// An interrupted command exits with 128 + the signal and says so, not
// "context canceled".
func TestExitStatusInterrupted(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		ctx, cancel := context.WithCancelCause(context.Background())
		cancel(&cmdenv.Interrupted{Signal: sig})
		var out, errb strings.Builder
		code := Run(ctx, []string{"bench", "cell", "ws", "fib", "30", "1"}, strings.NewReader(""), &out, &errb)
		if want := 128 + int(sig); code != want || !strings.Contains(errb.String(), "interrupted ("+cmdenv.SignalName(sig)+")") {
			t.Errorf("%v: exit %d, stderr %q; want %d and the signal's name", sig, code, errb.String(), want)
		}
	}
}

func TestVersion(t *testing.T) {
	old := cmdenv.Version
	defer func() { cmdenv.Version = old }()
	cmdenv.Version = "v9.8.7"
	code, out, _ := runCLI(t, "--version")
	if code != 0 || !strings.HasPrefix(out, "worksteal v9.8.7 (") || !strings.Contains(out, "go1.") {
		t.Errorf("--version: exit %d, %q", code, out)
	}
	cmdenv.Version = ""
	if _, out, _ = runCLI(t, "--version"); !strings.HasPrefix(out, "worksteal ") || strings.Contains(out, "v9.8.7") {
		t.Errorf("--version without ldflags: %q", out)
	}
}

func TestHelpTexts(t *testing.T) {
	code, out, _ := runCLI(t, "--help")
	if code != 0 || !strings.Contains(out, "Exit status (every command):") || !strings.Contains(out, "130  interrupted by SIGINT") {
		t.Errorf("worksteal --help lacks the exit statuses:\n%s", out)
	}
	for _, cmd := range [][]string{{"trace", "record"}, {"trace", "profile"}, {"bench"}, {"bench", "cell"}, {"sim"}, {"run"}} {
		_, out, _ := runCLI(t, append(cmd, "--help")...)
		for _, line := range strings.Split(out, "\n") {
			if strings.HasPrefix(strings.TrimSpace(line), "-") && strings.Count(line, "(default") > 1 && !strings.Contains(line, "fib: n") {
				t.Errorf("%v --help: default shown twice: %q", cmd, line)
			}
			if strings.Contains(line, "(default -1)") {
				t.Errorf("%v --help: %q", cmd, line)
			}
		}
	}
	// Every trace subcommand names its output file -o/--output.
	for _, cmd := range []string{"record", "profile"} {
		if _, out, _ := runCLI(t, "trace", cmd, "--help"); !strings.Contains(out, "-o, --output string") {
			t.Errorf("trace %s --help lacks -o, --output:\n%s", cmd, out)
		}
	}
	if _, out, _ := runCLI(t, "bench", "list", "--help"); !strings.Contains(out, "list prints what") {
		t.Errorf("bench list --help has no description:\n%s", out)
	}
}

// Shell completion asks the binary (cobra's __complete) for the values of
// --victim, --workload, preset names, --order, bench names.
func TestCompletion(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"sim", "--victim", ""}, []string{"random", "round-robin", "largest", "two-choices", "locality"}},
		{[]string{"sim", "--victim", "r"}, []string{"random", "round-robin"}},
		{[]string{"sim", "--scheduler", ""}, []string{"steal", "central", "static", "round-robin", "lpt"}},
		{[]string{"sim", "--sweep", "w"}, []string{"workers="}},
		{[]string{"sim", "fo"}, []string{"fork-join\t"}},
		{[]string{"sim", ""}, []string{"basic\t", "scale\t"}},
		{[]string{"run", "--order", ""}, []string{"auto", "input", "lpt"}},
		{[]string{"trace", "record", "--workload", ""}, []string{"fib", "uts", "tree"}},
		{[]string{"trace", "profile", "--workload", "t"}, []string{"tree"}},
		{[]string{"bench", "--workloads", "uts"}, []string{"uts", "uts-sha1"}},
		{[]string{"bench", "cell", ""}, []string{"go-seq", "ws"}},
		{[]string{"bench", "cell", "ws", "n"}, []string{"nqueens"}},
	} {
		code, out, _ := runCLI(t, append([]string{"__complete"}, tc.args...)...)
		if code != 0 {
			t.Errorf("__complete %q: exit %d", tc.args, code)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(out, w) {
				t.Errorf("__complete %q = %q; want %q among them", tc.args, out, w)
			}
		}
		if len(tc.args[len(tc.args)-1]) > 0 { // a prefix filters
			for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
				if !strings.HasPrefix(line, ":") && !strings.HasPrefix(line, tc.args[len(tc.args)-1]) {
					t.Errorf("__complete %q offers %q", tc.args, line)
				}
			}
		}
	}
}
