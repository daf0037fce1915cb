package gnutest

// The differential test of "worksteal run" against GNU parallel: the same
// command line, input and files are given to both programs, in two fresh
// directories, and their stdout, exit status, the files they leave and
// their joblogs (without the times) must agree. GNU parallel 20221122 is
// the reference (Debian's "parallel" package); CI installs it and sets
// WORKSTEAL_CI=1, which turns a missing parallel into a failure.

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/worksteal/worksteal/internal/testbin"
)

var (
	wsBin   string // the worksteal binary built by TestMain
	gnuBin  string // GNU parallel, "" when absent
	gnuWhy  string // why gnuBin is "", for the skip message
	gnuHome string // a HOME of the test's own, where GNU parallel's citation notice is accepted
	// gnuCSV says GNU parallel runs --csv as worksteal follows it: Perl's
	// Text::CSV with its XS backend, Text::CSV_XS (Debian's
	// libtext-csv-perl recommends it). The pure-Perl backend alone
	// separates at a whole --colsep of several characters, where XS
	// separates at its first byte (docs/gnu-compat.md).
	gnuCSV = exec.Command("perl", "-MText::CSV_XS", "-e", "1").Run() == nil
)

func TestMain(m *testing.M) {
	os.Exit(testMain(m))
}

func testMain(m *testing.M) int {
	dir, err := os.MkdirTemp("", "worksteal-gnu-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	if wsBin, err = testbin.Build(dir); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	// Never the user's ~/.parallel: the notice is accepted in a HOME made
	// for the test.
	gnuHome = filepath.Join(dir, "home")
	if err := os.MkdirAll(filepath.Join(gnuHome, ".parallel"), 0o755); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	os.WriteFile(filepath.Join(gnuHome, ".parallel", "will-cite"), nil, 0o644)
	switch path, err := exec.LookPath("parallel"); {
	case err != nil:
		gnuWhy = "GNU parallel is not installed (apt-get install parallel)"
	default:
		cmd := exec.Command(path, "--version")
		cmd.Env = gnuEnv(nil)
		out, _ := cmd.Output()
		if !bytes.HasPrefix(out, []byte("GNU parallel")) {
			gnuWhy = fmt.Sprintf("%s is not GNU parallel (moreutils' parallel?): --version says %q", path, firstLine(out))
		} else {
			gnuBin = path
			if v := firstLine(out); v != "GNU parallel 20221122" {
				fmt.Fprintf(os.Stderr, "note: the reference is GNU parallel 20221122; found %s\n", v)
			}
		}
	}
	return m.Run()
}

func firstLine(b []byte) string {
	s, _, _ := strings.Cut(string(b), "\n")
	return s
}

// needGNU skips the test when GNU parallel is absent, except in CI.
func needGNU(t *testing.T) {
	t.Helper()
	if gnuBin != "" {
		return
	}
	if os.Getenv("WORKSTEAL_CI") == "1" {
		t.Fatalf("WORKSTEAL_CI=1 but %s", gnuWhy)
	}
	t.Skipf("skipping the differential test: %s", gnuWhy)
}

// gnuEnv is the environment both programs run in: nothing of the user's
// (no $PARALLEL options, no ~/.parallel), bash as the jobs' shell.
func gnuEnv(extra []string) []string {
	return append([]string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + gnuHome,
		"TMPDIR=" + os.TempDir(),
		"LC_ALL=C",
		"SHELL=/bin/bash",
		"PARALLEL_SHELL=/bin/bash",
	}, extra...)
}

// gnuCase is one command line given to both programs.
type gnuCase struct {
	name string
	args []string // after "parallel" and "worksteal run"
	// sh, when set, is a bash script run instead of args, in which $P is
	// the program ("parallel" or "worksteal run"): for pipelines and
	// process substitution.
	sh    string
	stdin string            //
	files map[string]string // made in the working directory first
	env   []string          // added to gnuEnv
	// stderr: compare stderr too (the jobs' own; nothing else may be
	// written off a terminal).
	stderr bool
	// joblog: a file (or "-": stdout) holding a joblog, compared with the
	// Starttime and JobRuntime columns blanked.
	joblog string
	// onlyStatus: compare the exit status alone (GNU parallel prints its
	// usage on stdout after an error).
	onlyStatus bool
	// refused: GNU parallel refuses the command line (exit 255); for any
	// other case a 255 from it means the case tests nothing.
	refused bool
	// wsRefuses: a difference docs/gnu-compat.md lists: GNU parallel runs
	// the command line, worksteal refuses it (exit 255, nothing run),
	// rather than run it otherwise.
	wsRefuses bool
	// norm, when set, is applied to both programs' stdout before they are
	// compared: it keeps what GNU parallel guarantees of an output whose
	// bytes depend on the order the jobs finish in.
	norm func(string) string
}

// outcome is what one program did.
type outcome struct {
	stdout, stderr string
	code           int
	files          map[string]string
}

var joblogTimes = regexp.MustCompile(`(?m)^(\d+\t[^\t]*\t)[0-9.]+\t *[0-9.]+\t`)

// tableTimes and jsonTimes match the times of --results FILE.csv, .tsv
// and .json rows.
var (
	tableTimes = regexp.MustCompile(`(?m)^(\d+[,\t][^,\t]*[,\t])[0-9.]+([,\t])[0-9.]+([,\t])`)
	jsonTimes  = regexp.MustCompile(`"Starttime": [0-9.]+, "JobRuntime": [0-9.]+,`)
)

// normTable blanks the times of a --results table.
func normTable(s string) string {
	s = tableTimes.ReplaceAllString(s, "${1}T${2}T${3}")
	return jsonTimes.ReplaceAllString(s, `"Starttime": T, "JobRuntime": T,`)
}

// run runs bin in dir, made ready with the case's files.
func (c gnuCase) run(ctx context.Context, dir, bin string, pre ...string) (outcome, error) {
	for name, content := range c.files {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			return outcome{}, err
		}
	}
	cmd := exec.CommandContext(ctx, bin, append(pre, c.args...)...)
	env := c.env
	if c.sh != "" {
		cmd = exec.CommandContext(ctx, "/bin/bash", "-c", c.sh)
		env = append(slices.Clip(env), "P="+strings.Join(append([]string{bin}, pre...), " "))
	}
	ownGroup(cmd)
	cmd.Dir = dir
	cmd.Env = gnuEnv(env)
	cmd.Stdin = strings.NewReader(c.stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	o := outcome{stdout: stdout.String(), stderr: stderr.String(), files: map[string]string{}}
	if ee, ok := err.(*exec.ExitError); ok {
		o.code = ee.ExitCode()
	} else if err != nil {
		return o, fmt.Errorf("%s: %v", bin, err)
	}
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		data, _ := os.ReadFile(p)
		if rel == c.joblog {
			data = []byte(normJoblog(string(data)))
		}
		if ext := filepath.Ext(rel); ext == ".csv" || ext == ".tsv" || ext == ".json" {
			data = []byte(normTable(string(data)))
		}
		o.files[rel] = string(data)
		return nil
	})
	if c.joblog == "-" {
		o.stdout = normJoblog(o.stdout)
	}
	if slices.ContainsFunc(c.args, func(a string) bool { return a == "-.csv" || a == "-.tsv" || a == "-.json" }) {
		o.stdout = normTable(o.stdout)
	}
	return o, nil
}

// normJoblog blanks the times of joblog rows and sorts the rows after the
// header (they are written as jobs finish).
func normJoblog(s string) string {
	s = joblogTimes.ReplaceAllString(s, "${1}T\tT\t")
	lines := strings.SplitAfter(s, "\n")
	if len(lines) > 1 {
		slices.Sort(lines[1:])
	}
	return strings.Join(lines, "")
}

// keepsOrder says the output order is defined: -k, or one slot.
func (c gnuCase) keepsOrder() bool {
	args := c.args
	if c.sh != "" {
		args = strings.Fields(c.sh)
	}
	for i, a := range args {
		if a == ":::" || a == "::::" {
			break
		}
		if a == "-k" || a == "--keep-order" || a == "--keep" || a == "-j1" || (a == "-j" && i+1 < len(args) && args[i+1] == "1") {
			return true
		}
	}
	return false
}

// sortedLines is the output as a multiset of lines, for jobs that finish
// in any order.
func sortedLines(s string) string {
	lines := strings.SplitAfter(s, "\n")
	slices.Sort(lines)
	return strings.Join(lines, "")
}

// gnuCases: every option and replacement string "worksteal run" accepts,
// and the cases of issue 15, in the shape of GNU parallel's own tests.
var gnuCases = []gnuCase{
	// Replacement strings.
	{name: "{} from ::: arguments", args: []string{"echo", "{}", ":::", "a", "b", "c"}},
	{name: "no replacement string: the argument is appended", args: []string{"-k", "echo", "x", ":::", "a b", "c"}},
	{name: "{#} alone takes no argument", args: []string{"-k", "echo", "{#}"}, stdin: "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\n"},
	{name: "{#} in a file name", args: []string{"touch", "job{#}.done", ":::", "x", "y"}},
	{name: "{%} with one slot", args: []string{"-j1", "echo", "{%}-{#}", ":::", "a", "b", "c"}},
	// Each job waits until both have started: two jobs running at once
	// have slots 1 and 2. (With "sleep 1" a job started a second late on
	// a busy machine found slot 1 free again.)
	{name: "{%} is a slot number", args: []string{"-j", "2", "touch s{#}; for i in $(seq 1200); do [ -e s1 ] && [ -e s2 ] && break; sleep 0.05; done; echo {%}", ":::", "a", "b"}},
	{name: "{%} and {#} in files", args: []string{"-j1", "touch", "s{%}-j{#}", ":::", "a", "b"}},
	{name: "path replacement strings", args: []string{"-k", "echo", "{//}", "{/}", "{/.}", "{.}", ":::",
		"./d/e", "dir/", "/x/y/", "a.b/c", ".x", "a.tar.gz", "/", "", "a b/c d.e", "x/.y", "a..b", "a/b.c/", "//a//b//"}},
	{name: "{//}/{/} rebuilds the argument", args: []string{"-k", "echo", "{//}/{/}", ":::", "./d/e", "a/b/c", "x/y"}},
	{name: "positional replacement strings", args: []string{"-k", "echo", "{2}", "{1}", ":::", "a", "b", ":::", "c", "d"}},
	{name: "positional modifiers", args: []string{"-k", "echo", "{2.}", "{1/}", "{1//}", "{2/.}", "{1/.}", ":::", "p/q.r", ":::", "s/t.u.v"}},
	{name: "positions from the end, zero, past the row", args: []string{"-k", "echo", "{0}", "{01}", "{-1}", "{-2}", "{-3}", "{5}", ":::", "a.b", ":::", "c/d.e"}},
	{name: "{} is every argument, each quoted", args: []string{"-k", "echo", "x{}y", "{.}", ":::", "a.x", ":::", "b c"}},
	{name: "quoting of special characters", args: []string{"-k", "echo", ":::", "it's", "x$y", "`date`", "$(echo hi)", `a"b`, `a\b`, "*", "~", "a;b", "a|b", "a&b", "a>b", "!x", "#c", "{x}"}},
	{name: "spaces and tabs kept", args: []string{"-k", "printf", "[%s]\\n", ":::", "a  b", "\tc", " "}},
	{name: "unicode", args: []string{"-k", "echo", "{}", "{.}", ":::", "ü é.txt", "日本.語"}},
	{name: "empty argument", args: []string{"-k", "echo", "[{}]", "[{.}]", ":::", "", "b"}},
	{name: "braces that are not replacement strings", args: []string{"-k", "echo", "{}}", "{{}}", "{ }", "{x}", "${HOME:+set}", "{1 }", ":::", "a"}},
	{name: "awk braces", args: []string{"-k", "sh", "-c", "echo {} | awk '{print $1}'", ":::", "p q"}},
	{name: "replacement string in the command word is not quoted", args: []string{"l{}"}, stdin: "s /bin/ls\n"},
	{name: "{} as the command", args: []string{"-k", "{}"}, stdin: "echo a b\necho 'c  d'\n"},
	{name: "{1} {2} as the command", args: []string{"-k", "{1}", "{2}", ":::", "echo", "printf", ":::", "a b"}},
	{name: "V={} is quoted", args: []string{"-k", "V={}; echo \"$V\"", ":::", "a  b"}},
	{name: "one word template with spaces", args: []string{"-k", "echo {} | tr a-z A-Z", ":::", "a b"}},
	{name: "a ::: value with newlines is several values", args: []string{"-k", "echo", "[{}]", ":::", "a\nb", "c\n"}},
	{name: "-q quotes the command", args: []string{"-k", "-q", "printf", "%s|\\n", "{}", ":::", "a  b", "c"}},
	{name: "-q passes shell syntax on", args: []string{"-k", "-q", "echo", "$HOME", "a;b", "{}", ":::", "x y"}},
	{name: "--quote", args: []string{"--quote", "echo", "*", ":::", "a"}},

	// Input sources.
	{name: "stdin lines", args: []string{"-k", "echo"}, stdin: "a\nb\nc\n"},
	{name: "empty input lines run", args: []string{"-k", "echo", "{#}:{}"}, stdin: "\n\nx\n\ny\n"},
	{name: "last line without newline", args: []string{"-k", "echo"}, stdin: "a\nb"},
	{name: "carriage return kept", args: []string{"-k", "printf", "%q\\n", "{}"}, stdin: "a\r\nb\n"},
	{name: "-a file", args: []string{"-k", "-a", "f1", "echo"}, files: map[string]string{"f1": "1\n2\n"}},
	{name: "--arg-file", args: []string{"-k", "--arg-file", "f1", "echo"}, files: map[string]string{"f1": "1\n2\n"}},
	{name: "several -a combine", args: []string{"-k", "-a", "f1", "-a", "f2", "echo"}, files: map[string]string{"f1": "1\n2\n", "f2": "a\nb\n"}},
	{name: "-a with :::", args: []string{"-k", "-a", "f1", "echo", ":::", "x", "y"}, files: map[string]string{"f1": "1\n2\n"}},
	{name: "-a with ::::", args: []string{"-k", "-a", "f1", "echo", "::::", "f2"}, files: map[string]string{"f1": "1\n2\n", "f2": "a\nb\n"}},
	{name: "-a - is stdin", args: []string{"-k", "-a", "-", "echo"}, stdin: "p\nq\n"},
	{name: ":::: files", args: []string{"-k", "echo", "::::", "f1", "f2"}, files: map[string]string{"f1": "1\n2\n", "f2": "a\nb\n"}},
	{name: ":::: - is stdin", args: []string{"-k", "echo", "::::", "-", ":::", "1"}, stdin: "p\nq\n"},
	{name: "::: and :::: mixed", args: []string{"-k", "echo", ":::", "x", "y", "::::", "f1", ":::", "z"}, files: map[string]string{"f1": "1\n2\n"}},
	{name: "cartesian product, first slowest", args: []string{"-k", "echo", "{1}-{2}-{3}", ":::", "a", "b", ":::", "1", "2", ":::", "x", "y"}},
	{name: ":::+ links to the previous source", args: []string{"-k", "echo", ":::", "a", "b", "c", ":::+", "1", "2"}},
	{name: ":::+ then a product", args: []string{"-k", "echo", ":::", "a", "b", ":::+", "1", "2", "3", ":::", "x", "y"}},
	{name: "product then :::+", args: []string{"-k", "echo", ":::", "a", "b", ":::", "x", "y", "z", ":::+", "1", "2"}},
	{name: "::::+ links a file", args: []string{"-k", "echo", ":::", "a", "b", "::::+", "f1"}, files: map[string]string{"f1": "1\n2\n3\n"}},
	{name: "::::+ between files", args: []string{"-k", "echo", "::::", "f1", "::::+", "f2", ":::", "z"}, files: map[string]string{"f1": "1\n2\n", "f2": "a\nb\n"}},
	{name: "--link wraps the shorter", args: []string{"-k", "--link", "echo", ":::", "a", "b", "c", ":::", "1", "2"}},
	{name: "--link with files", args: []string{"-k", "--link", "echo", "::::", "f1", "f2"}, files: map[string]string{"f1": "1\n2\n3\n", "f2": "a\nb\n"}},
	{name: "--colsep on ::: arguments", args: []string{"-k", "--colsep", "%", "echo", "{1}", "{3}", "{2}", ":::", "a%c%b"}},
	{name: "--colsep is a regexp (tab)", args: []string{"-k", "--colsep", `\t`, "echo", "{2}{1}"}, stdin: "a\tb\nc\td\n"},
	{name: "--colsep is a regexp (%+)", args: []string{"-k", "--colsep", "%+", "echo", "{2}{1}"}, stdin: "a%%%b\nc%d\n"},
	{name: "--colsep fills missing columns with empty", args: []string{"-k", "--colsep", ",", "echo", "{1}-{2}-{3}", ":::", "a,b", "c"}},
	{name: "--colsep trims the columns", args: []string{"-k", "--colsep", ",", "echo", "[{1}]", "[{2}]", "[{}]"}, stdin: " a , b \n"},
	{name: "--colsep empty columns", args: []string{"-k", "--colsep", " ", "echo", "{1}:{2}:{3}"}, stdin: "a  b\n"},
	{name: "--colsep on several -a", args: []string{"-k", "-a", "f1", "-a", "f2", "--colsep", "X", "echo", "{2}{1}{3}"}, files: map[string]string{"f1": "1\n2\n", "f2": "aXc\nb\n"}},
	{name: "--colsep on :::: files", args: []string{"-k", "--colsep", ",", "echo", "{3}", "{1}", "::::", "f1"}, files: map[string]string{"f1": "a,b,c\nd,e,f\n"}},
	{name: "--colsep without a command", args: []string{"-k", "--colsep", ","}, stdin: "echo,a,b\nprintf,%s-%s\\n,x,y\n"},
	{name: "-C", args: []string{"-k", "-C", ":", "echo", "{2}"}, stdin: "a:b\n"},
	{name: "no command: the arguments are commands", args: []string{"-k", ":::", "echo cmd1", "echo cmd2"}},
	{name: "no command: several sources", args: []string{"-k", ":::", "echo a", "printf %s", ":::", "b c"}},
	{name: "command lines from stdin", args: []string{"-k"}, stdin: "echo a\necho b | tr b B\n\necho 'c  d'\n"},
	{name: "command lines with unicode", args: []string{"-k"}, stdin: "echo ✓\necho 'é è'\n"},

	// The shell.
	{name: "jobs run under $PARALLEL_SHELL: process substitution", args: []string{"-k", "cat", "<(echo {})", ":::", "a", "b"}},
	{name: "exported bash function", args: []string{"-k", "myfunc", ":::", "a", "b"}, env: []string{"BASH_FUNC_myfunc%%=() {  echo \"f $1\"\n}"}},
	{name: "PARALLEL_SEQ", args: []string{"-k", "echo", "$PARALLEL_SEQ", ":::", "a", "b"}},
	{name: "PARALLEL_JOBSLOT", args: []string{"-j1", "echo", "$PARALLEL_JOBSLOT", ":::", "a", "b"}},
	{name: "redirections in the template", args: []string{"echo {} > {}.out", ":::", "a", "b c"}},
	{name: "operators in the template", args: []string{"-k", "test {} = a && echo yes || echo no", ":::", "a", "b"}},
	{name: "jobs get no stdin", args: []string{"-k", "cat; echo {}", ":::", "1"}, stdin: "hi\n"},
	{name: "stderr kept per job", args: []string{"-k", "echo out{}; echo err{} >&2", ":::", "1", "2"}, stderr: true},

	// Exit status.
	{name: "exit status is the number of failed jobs", args: []string{"exit {}", ":::", "0", "1", "2", "3"}},
	{name: "all succeed", args: []string{"true", ":::", "1", "2"}, stderr: true},
	{name: "failures print nothing off a terminal", args: []string{"-k", "echo {}; exit {}", ":::", "0", "3"}, stderr: true},
	{name: "more than 100 failed jobs", args: []string{"-j", "8", "false"}, stdin: strings.Repeat("x\n", 102)},
	{name: "killed by a signal", args: []string{"kill -9 $$", ":::", "1"}, joblog: "-"},
	{name: "unknown option", args: []string{"--no-such-option", "echo", ":::", "a"}, onlyStatus: true, refused: true},
	{name: "missing -a file", args: []string{"-a", "nonexistent", "echo"}, refused: true},
	{name: "missing :::: file", args: []string{"echo", "::::", "nonexistent"}, refused: true},
	{name: "--resume without --joblog", args: []string{"--resume", "echo", ":::", "a"}, refused: true},

	// Slots.
	{name: "-j 1 keeps input order", args: []string{"-j", "1", "echo"}, stdin: "c\nb\na\n"},
	{name: "-j 0 runs every job at once", args: []string{"-j0", "sleep 0.2; echo {}", ":::", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12"}},
	{name: "-j +0", args: []string{"-k", "-j", "+0", "echo", ":::", "a", "b"}},
	{name: "-j 50%", args: []string{"-k", "-j", "50%", "echo", ":::", "a", "b"}},
	{name: "--jobs", args: []string{"-k", "--jobs", "3", "echo", ":::", "a", "b"}},
	{name: "output in finishing order without -k", args: []string{"-j2", "sleep {}; echo {}", ":::", "1", "0"}, stderr: true},
	{name: "-k output in input order", args: []string{"-k", "-j2", "sleep {}; echo {}", ":::", "0.5", "0"}},
	{name: "large output kept whole", args: []string{"-k", "-j2", "seq", ":::", "20000", "3"}},

	// Timeouts and retries.
	// The job that ends must do so within the timeout, from its start:
	// 6 s leaves a busy machine room to start a shell (2 s did not argue
	// it: a job GNU has not reaped when its time is up is killed, -1).
	{name: "--timeout in seconds", args: []string{"--timeout", "6", "sleep {}; echo {}", ":::", "0", "60"}, joblog: "-"},
	{name: "--timeout with units", args: []string{"--timeout", "1m", "echo", ":::", "a"}},
	{name: "--timeout % applies to running jobs from the first success", args: []string{"-j2", "--timeout", "300%", "sleep {}; echo {}", ":::", "0.2", "20"}, joblog: "jl"},
	{name: "--retries N is N tries in all", args: []string{"--retries", "2", "echo x >> tries; false", ":::", "1"}},
	{name: "--retries: only the last try's output", args: []string{"--retries", "3", "echo try; test -e ok || { touch ok; false; }", ":::", "1"}, joblog: "jl"},
	{name: "--retries 0 tries until success", args: []string{"--retries", "0", "echo {} >> tries; [ $(wc -l < tries) -ge 5 ]", ":::", "1"}},

	// Joblog and resume.
	{name: "--joblog file", args: []string{"-k", "--joblog", "jl", "echo {}; exit {}", ":::", "0", "1", "2"}, joblog: "jl"},
	{name: "--joblog -", args: []string{"-k", "--joblog", "-", "echo", ":::", "a", "b"}, joblog: "-"},
	{name: "--joblog /dev/null", args: []string{"--joblog", "/dev/null", "echo", ":::", "a"}},
	{name: "--joblog Receive counts stdout bytes", args: []string{"--joblog", "jl", "echo a; echo bb >&2", ":::", "1"}, joblog: "jl"},
	{name: "--joblog +file appends", args: []string{"--joblog", "+jl", "echo", ":::", "b"}, joblog: "jl",
		files: map[string]string{"jl": "Seq\tHost\tStarttime\tJobRuntime\tSend\tReceive\tExitval\tSignal\tCommand\n1\t:\t1.000\t0.500\t0\t2\t0\t0\techo a\n"}},
	{name: "--resume skips every logged job", args: []string{"-k", "--resume", "--joblog", "jl", "echo {}; exit {}", ":::", "0", "1", "0", "2", "9"}, joblog: "jl",
		files: map[string]string{"jl": "Seq\tHost\tStarttime\tJobRuntime\tSend\tReceive\tExitval\tSignal\tCommand\n" +
			"1\t:\t1.000\t0.500\t0\t2\t0\t0\techo 0; exit 0\n2\t:\t1.000\t0.500\t0\t2\t1\t0\techo 1; exit 1\n4\t:\t1.000\t0.500\t0\t2\t2\t0\techo 2; exit 2\n"}},
	{name: "--resume-failed reruns the failed", args: []string{"-k", "--resume-failed", "--joblog", "jl", "echo {}; exit {}", ":::", "0", "1", "0", "2", "9"}, joblog: "jl",
		files: map[string]string{"jl": "Seq\tHost\tStarttime\tJobRuntime\tSend\tReceive\tExitval\tSignal\tCommand\n" +
			"1\t:\t1.000\t0.500\t0\t2\t0\t0\techo 0; exit 0\n2\t:\t1.000\t0.500\t0\t2\t1\t0\techo 1; exit 1\n4\t:\t1.000\t0.500\t0\t2\t2\t0\techo 2; exit 2\n"}},
	{name: "--resume with no joblog yet runs all", args: []string{"-k", "--resume", "--joblog", "jl", "echo", ":::", "a", "b"}, joblog: "jl"},

	// Dry run.
	{name: "--dry-run quoting", args: []string{"--dry-run", "echo", "{}", ":::", "a b", "it's", "", "x$y", "-x", "a,b", "a=b", "~x", "é"}},
	{name: "--dry-run -q", args: []string{"--dry-run", "-q", "echo", "a  b", "{}", ":::", "x y"}},
	{name: "--dry-run command word", args: []string{"--dry-run", "{1}", "{2}", ":::", "a b", ":::", "c"}},
	{name: "--dry-run no command", args: []string{"--dry-run", ":::", "echo a", "b c"}},
	{name: "--dry-run with --joblog writes no rows", args: []string{"--dry-run", "--joblog", "jl", "echo", ":::", "a"}},
	{name: "--will-cite", args: []string{"--will-cite", "echo", ":::", "a"}},

	// Edges, in the manner of GNU parallel's own tests.
	{name: "bad -j", args: []string{"-j", "foo", "echo", ":::", "a"}, onlyStatus: true, refused: true},
	{name: "--timeout 0 is none", args: []string{"--timeout", "0", "echo", ":::", "a"}},
	{name: "bad --timeout", args: []string{"--timeout", "foo", "echo", ":::", "a"}, onlyStatus: true, refused: true},
	{name: "--colsep '' splits characters", args: []string{"-k", "--colsep", "", "echo", "{1}-{3}", ":::", "abc", "de"}},
	{name: "--colsep with a | in a regexp", args: []string{"-k", "--colsep", `\|`, "echo", "{2}", ":::", "a|b"}},
	{name: "--colsep unicode", args: []string{"-k", "--colsep", "→", "echo", "{2}{1}", ":::", "a→b"}},
	{name: "--colsep and {-1}", args: []string{"-k", "--colsep", ",", "echo", "{-1}", "{-2}", ":::", "a,b,c"}},
	{name: "--colsep and --link", args: []string{"-k", "--link", "--colsep", ",", "echo", "{1}{3}", ":::", "a,b", "c,d", ":::", "1"}},
	{name: "joblog in a missing directory", args: []string{"--joblog", "no/such/dir/jl", "echo", ":::", "a"}, onlyStatus: true, refused: true},
	{name: "empty :::: file: no jobs", args: []string{"echo", "::::", "empty"}, files: map[string]string{"empty": ""}},
	{name: "empty -a file: no jobs", args: []string{"-a", "empty", "echo"}, files: map[string]string{"empty": ""}},
	{name: "empty :::: file beside ::: is one empty value", args: []string{"-k", "echo", "[{1}]", "[{2}]", ":::", "a", "b", "::::", "empty"}, files: map[string]string{"empty": ""}},
	{name: "empty stdin: no jobs", args: []string{"echo"}},
	{name: "empty argument, no command", args: []string{":::", ""}},
	{name: "-q with no command", args: []string{"-q", ":::", "echo a"}, onlyStatus: true},
	{name: "{} twice", args: []string{"-k", "echo", "{}", "{}", ":::", "a b"}},
	{name: "an argument holding {}", args: []string{"-k", "echo", "{}", ":::", "a{}b", "{1}", "{#}"}},
	{name: "spaces kept without --colsep", args: []string{"-k", "echo", "[{}]"}, stdin: "  a  \n \t\n"},
	{name: "a line of spaces as a command", args: []string{"-k"}, stdin: "echo a\n   \necho b\n"},
	{name: "output without a final newline", args: []string{"-k", "printf", "%s", ":::", "a", "b"}},
	{name: "binary output", args: []string{"-k", "printf", `\000\001{}`, ":::", "a", "b"}},
	{name: "300 jobs in order", args: []string{"-k", "echo"}, stdin: seqLines(300)},
	{name: "path strings of -a lines", args: []string{"-k", "-a", "f1", "echo", "{/}", "{//}", "{.}", "{/.}"}, files: map[string]string{"f1": "a b/c d.e\n/x\nx.y/\n"}},
	{name: "--dry-run {#}", args: []string{"--dry-run", "echo", "{#}", "{}", ":::", "a", "b"}},
	{name: "--dry-run {%}", args: []string{"--dry-run", "-j1", "echo", "{%}", ":::", "a", "b"}},
	{name: "redirect to a file named by an argument", args: []string{"echo x > {}", ":::", "a b", "c"}},
	{name: "argument as a command keeps its quotes", args: []string{"-k", "{}", ":::", "echo 'a  b'", `printf '%s\n' "c  d"`}},
	{name: "--resume-failed with nothing failed", args: []string{"-k", "--resume-failed", "--joblog", "jl", "echo", ":::", "a", "b"}, joblog: "jl",
		files: map[string]string{"jl": "Seq\tHost\tStarttime\tJobRuntime\tSend\tReceive\tExitval\tSignal\tCommand\n1\t:\t1.000\t0.500\t0\t2\t0\t0\techo a\n"}},
	{name: "PARALLEL_SEQ of a retried job", args: []string{"-k", "--retries", "2", "echo $PARALLEL_SEQ; [ -e f{} ] || { touch f{}; false; }", ":::", "a", "b"}},
	{name: "one-word template with path strings", args: []string{"-k", "echo {//} {/} {/.} {.}", ":::", "/a/b.c", "d.e/f", "g"}},
	{name: "-q perl arguments", args: []string{"-k", "-q", "perl", "-e", `print "@ARGV|\n"`, ":::", "a b", "c"}},
	{name: "-q quotes in arguments", args: []string{"-k", "-q", "printf", "%s\n", "{}", ":::", `'`, `"`, `a'b"c`, `\`}},
	{name: "three sources with {#}", args: []string{"-k", "echo", "{#}", "{3}{2}{1}", ":::", "a", "b", ":::", "c", "d", ":::", "e", "f"}},
	{name: "{#} over two -a files", args: []string{"-k", "-a", "f1", "-a", "f2", "echo", "{#}", "{2}"}, files: map[string]string{"f1": "1\n2\n3\n", "f2": "a\nb\n"}},
	{name: "--timeout with a unit", args: []string{"--timeout", "5.5s", "echo", ":::", "a"}},
	{name: "bad -j fraction", args: []string{"-j", "1.5", "echo", ":::", "a"}, onlyStatus: true, refused: true},
	{name: "--retries with a flapping job and a joblog", args: []string{"-k", "--retries", "3", "--joblog", "jl", "n=$(cat c{} 2>/dev/null || echo 0); echo $((n+1)) > c{}; echo {}$n; [ $n -ge 1 ]", ":::", "a", "b"}, joblog: "jl"},
	{name: "--colsep with {} and -k", args: []string{"-k", "--colsep", ";", "echo", "{}", "{2}"}, stdin: "a;b c\nd;e\n"},
	{name: "{} in the middle of a word, two sources, -q", args: []string{"-k", "-q", "echo", "<{}>", ":::", "a", ":::", "b c"}},
	// Issue 22: input files whose last line has no newline.
	{name: "-a file without a final newline", args: []string{"-k", "-a", "f", "echo"}, files: map[string]string{"f": "a\nb"}},
	{name: ":::: file without a final newline", args: []string{"-k", "echo", "::::", "f"}, files: map[string]string{"f": "a\nb"}},
	{name: "-a <(printf) without a final newline", sh: `$P -k -a <(printf 'a\nb') echo`},
	{name: "two files without final newlines", args: []string{"-k", "echo", "::::", "f", "g"}, files: map[string]string{"f": "a\nb", "g": "1"}},

	// Issue 22: GNU parallel's options that scripts use, with the cases of
	// its man page, tutorial and testsuite.
	// -P, --max-procs, --jl.
	{name: "-P is -j", args: []string{"-P", "1", "echo", ":::", "c", "b", "a"}},
	{name: "--max-procs", args: []string{"-k", "--max-procs", "2", "echo", ":::", "a", "b"}},
	{name: "--jl is --joblog", args: []string{"-k", "--jl", "jl", "echo {}; exit {}", ":::", "0", "1"}, joblog: "jl"},

	// --halt: every form. One slot, or files each job waits for, make
	// the order certain (never sleeps: on a busy machine a shell may
	// start a second late, and GNU may see two jobs end in one look).
	// Job 1 fails once job 60 runs (s60); job 60 would run for a minute
	// unless killed; job 61 never starts.
	{name: "--halt now,fail=1 kills the running jobs, logs none of them", args: []string{"-j2", "--halt", "now,fail=1", "--joblog", "jl",
		"touch s{}; if [ {} = 1 ]; then for i in $(seq 1200); do [ -e s60 ] && break; sleep 0.05; done; fi; sleep {}; echo {}; exit {}", ":::", "1", "60", "61"}, joblog: "jl"},
	// Job 1 fails once job 2 runs (s2); job 2 ends once the program has
	// logged job 1 (its failure seen, so job 3 never starts): exit 1.
	{name: "--halt soon,fail=1 lets the running jobs finish", args: []string{"-j2", "--halt", "soon,fail=1", "--joblog", "jl",
		"touch s{}; if [ {} = 1 ]; then for i in $(seq 1200); do [ -e s2 ] && break; sleep 0.05; done; fi; " +
			"if [ {} = 2 ]; then for i in $(seq 1200); do grep -q '^1\t' jl && break; sleep 0.05; done; fi; echo {}; exit {}", ":::", "1", "2", "3"}, joblog: "jl"},
	{name: "--halt soon,fail=1, exit status of the failed job", args: []string{"-j1", "--halt", "soon,fail=1", "echo {}; exit {}", ":::", "0", "2", "0", "3"}},
	{name: "--halt now,fail=1 with -j1", args: []string{"-j1", "--halt", "now,fail=1", "echo {}; exit {}", ":::", "0", "0", "1", "2", "3"}},
	{name: "--halt soon,fail=3", args: []string{"-j1", "--halt", "soon,fail=3", "echo {}; exit {}", ":::", "1", "0", "2", "0", "3", "4"}},
	{name: "--halt soon,fail=20%", args: []string{"-j1", "--halt", "soon,fail=20%", "echo {}; exit {}", ":::", "0", "1", "2", "3", "4", "5", "6", "7", "8", "9"}},
	{name: "--halt soon,fail=20% not reached: exit is the failed percentage", args: []string{"-j1", "--halt", "soon,fail=20%", "echo {}; exit {}", ":::", "0", "1", "0", "0", "0", "0", "0", "0", "0", "0"}},
	{name: "--halt now,success=1", args: []string{"-j1", "--halt", "now,success=1", "echo {}; exit {}", ":::", "1", "2", "3", "0", "4", "5", "6"}},
	{name: "--halt soon,success=3%", args: []string{"-j1", "--halt", "soon,success=3%", "echo {}; exit {}", ":::", "1", "0", "0"}},
	{name: "--halt now,done=1", args: []string{"-j1", "--halt", "now,done=1", "echo {}; exit {}", ":::", "5", "0"}},
	{name: "--halt soon,done=3", args: []string{"-j1", "--halt", "soon,done=3", "echo {}; exit {}", ":::", "1", "0", "2", "0"}},
	{name: "--halt now,done=50%", args: []string{"-j1", "--halt", "now,done=50%", "echo {}; exit {}", ":::", "1", "0", "2", "0"}},
	{name: "--halt 0 is never", args: []string{"-j1", "--halt", "0", "echo {}; exit {}", ":::", "3", "0", "2"}},
	{name: "--halt 1 is soon,fail=1", args: []string{"-j1", "--halt", "1", "echo {}; exit {}", ":::", "0", "3", "2"}},
	{name: "--halt 2 is now,fail=1", args: []string{"-j1", "--halt", "2", "echo {}; exit {}", ":::", "0", "4", "0"}},
	{name: "--halt -1 is soon,success=1", args: []string{"-j1", "--halt", "-1", "echo {}; exit {}", ":::", "3", "0", "2"}},
	{name: "--halt -2 is now,success=1", args: []string{"-j1", "--halt", "-2", "echo {}; exit {}", ":::", "3", "0", "2"}},
	{name: "--halt 50% is soon,fail=50%", args: []string{"-j1", "--halt", "50%", "echo {}; exit {}", ":::", "3", "0", "2", "0"}},
	{name: "--halt-on-error", args: []string{"-j1", "--halt-on-error", "2", "echo {}; exit {}", ":::", "0", "4", "0"}},
	{name: "--halt now,fail=1 after a signal: 128+signal", args: []string{"-j1", "--halt", "now,fail=1", "kill -9 $$", ":::", "1", "2"}},
	{name: "--halt with --retries: only a failure after the last try", args: []string{"-j1", "--retries", "2", "--halt", "now,fail=1", "echo {}; exit {}", ":::", "1", "0"}},
	// The job of 3 waits until the program has logged the job of 1 (its
	// failure seen): the order is certain by construction, not by sleeps.
	{name: "--halt with -k", args: []string{"-k", "-j2", "--halt", "soon,fail=1", "--joblog", "jl",
		"if [ {} = 3 ]; then for i in $(seq 600); do grep -q '^2\t' jl && break; sleep 0.05; done; fi; echo {}; exit {}", ":::", "3", "1", "0"}, joblog: "jl"},
	{name: "bad --halt when", args: []string{"--halt", "later,fail=1", "echo", ":::", "a"}, onlyStatus: true, refused: true},
	{name: "bad --halt why", args: []string{"--halt", "now,foo=1", "echo", ":::", "a"}, onlyStatus: true, refused: true},
	{name: "bad --halt count", args: []string{"--halt", "now,fail=x", "echo", ":::", "a"}, onlyStatus: true, refused: true},

	// --tag, --tagstring.
	{name: "--tag", args: []string{"--tag", "echo", "foo-{}", ":::", "A", "B", "C"}},
	{name: "--tag with several sources", args: []string{"-k", "--tag", "echo", ":::", "a", "b", ":::", "1", "2 x"}},
	{name: "--tag tags stderr too", args: []string{"-k", "--tag", "echo out; echo err >&2", ":::", "a"}, stderr: true},
	{name: "--tag every line, the last without its newline", args: []string{"-k", "--tag", `printf "x\n\ny"`, ":::", "a"}},
	{name: "--tag with -n", args: []string{"-k", "--tag", "-n2", "echo", ":::", "a", "b", "c"}},
	{name: "--tag with no output", args: []string{"--tag", "true", ":::", "a"}},
	{name: "--tagstring", args: []string{"--tagstring", "{}-bar", "echo", "foo-{}", ":::", "A", "B", "C"}},
	{name: "--tagstring with positions and {#}", args: []string{"-k", "--tagstring", "{2}-{1}:{#}", "echo out; echo err >&2", ":::", "a", ":::", "b c"}, stderr: true},
	{name: "--tagstring without replacement strings", args: []string{"-k", "--tagstring", "foo", "echo", ":::", "a", "b"}},
	{name: "--tag is ignored under -u", args: []string{"-u", "--tag", "echo", ":::", "a", "b"}},

	// --results.
	{name: "--results DIR", args: []string{"--results", "outdir", "echo", ":::", "A", "B", "C"}},
	{name: "--results DIR, two sources", args: []string{"--results", "foo", "echo", "{1}", "{2}", ":::", "I", "II", ":::", "III", "IIII"}},
	{name: "--results DIR escapes / and \\ and tabs", args: []string{"--results", "res", "echo", ":::", "b/c", `a\b`, "t\tu", ""}},
	{name: "--results DIR with --header", args: []string{"--header", ":", "--results", "foo", "echo", "{a}", "{b}", ":::", "a", "I", "II", ":::", "b", "III", "IIII"}},
	{name: "--results DIR sorts --header names", args: []string{"--header", ":", "--results", "foo", "echo", "{b}", "{a}", ":::", "b", "I", ":::", "a", "III"}},
	{name: "--results DIR with -n2", args: []string{"--results", "res", "-n2", "echo", ":::", "a", "b", "c"}},
	{name: "--results DIR keeps stderr and failures", args: []string{"--results", "res", "echo out{}; echo err{} >&2; exit {}", ":::", "0", "1"}},
	{name: "--results name with a replacement string", args: []string{"--results", "my_{}", "echo", ":::", "foo", "bar", "baz"}},
	{name: "--results name ending in /", args: []string{"--results", "my_{}/", "echo", ":::", "foo", "bar"}},
	{name: "--results FILE.csv", args: []string{"-k", "--results", "res.csv", "echo {}; echo err{} >&2; exit {}", ":::", "0", "1", `a,b"c`}},
	{name: "--results FILE.csv with --header", args: []string{"-k", "--header", ":", "--results", "h.csv", "echo", "{b}", "{a}", ":::", "b", "I", "II", ":::", "a", "III"}},
	{name: "--results FILE.tsv", args: []string{"-k", "--results", "res.tsv", "echo", ":::", "0", "a\tb", "c d"}},
	{name: "--results FILE.json", args: []string{"-k", "--results", "res.json", "echo", ":::", "0", "a\tb\"", `back\slash`}},
	{name: "--results -.csv on stdout", args: []string{"-k", "--results", "-.csv", "echo {}; echo e >&2", ":::", "a", "b c"}, stderr: true},
	{name: "--results -.json on stdout", args: []string{"-k", "--results", "-.json", "echo", ":::", "a"}},
	{name: "--results with --joblog", args: []string{"-k", "--results", "r", "--joblog", "jl", "echo", ":::", "a"}, joblog: "jl"},

	// -0, -d.
	{name: "-0", args: []string{"-k", "-0", "echo", "[{}]"}, stdin: "a b\x00c\nd\x00e"},
	{name: "--null with -a", args: []string{"-k", "--null", "-a", "f", "echo", "[{}]"}, files: map[string]string{"f": "a\x00b\n\x00c"}},
	{name: "find -print0 | parallel -0", sh: "mkdir -p d && touch 'd/a b' 'd/c\nd' && find d -type f -print0 | $P -0 -k echo '[{/}]'"},
	{name: "-d ,", args: []string{"-k", "-d", ",", "echo", "[{}]"}, stdin: "a,b\n"},
	{name: "-d with a C escape", args: []string{"-k", "-d", `\t`, "echo", "[{}]"}, stdin: "a\tb\tc"},
	{name: "-d with an octal escape", args: []string{"-k", "-d", `\101`, "echo", "[{}]"}, stdin: "xAyAz"},
	{name: "-d '\\0' is -0", args: []string{"-k", "-d", `\0`, "echo", "[{}]"}, stdin: "a\x00b"},
	{name: "-d of several characters", args: []string{"-k", "--delimiter", "XX", "echo", "[{}]"}, stdin: "aXXbXXXc"},
	{name: "-d splits ::: values", args: []string{"-k", "-d", ",", "echo", "[{}]", ":::", "a,b", "c"}},
	{name: "-d wins over -0", args: []string{"-k", "-0", "-d", ",", "echo", "[{}]"}, stdin: "a,b"},
	{name: "-d '\\n' is the default", args: []string{"-k", "-d", `\n`, "echo", "[{}]"}, stdin: "a\nb\n"},

	// -n, -N, -X, -m, --xargs.
	{name: "-n2", args: []string{"-k", "-n2", "echo", ":::", "1", "2", "3", "4", "5"}},
	{name: "--max-args with {} in a word is not context replace", args: []string{"-k", "--max-args", "2", "echo", "x{}y", ":::", "a", "b", "c"}},
	{name: "-n0 runs once per argument, with none", args: []string{"-k", "-n0", "echo", "hi", ":::", "1", "2"}},
	{name: "-n2 over two sources counts rows", args: []string{"-k", "-n2", "echo", "{1}-{2}", ":::", "a", "b", "c", ":::", "1", "2"}},
	{name: "-N3 makes {1} {2} {3}", args: []string{"-k", "-N3", "echo", "{3}", "{2}", "{1}", ":::", "1", "2", "3", "4", "5", "6", "7"}},
	{name: "-N2 is context replace", args: []string{"-k", "-N2", "echo", "x{}y", ":::", "a", "b", "c"}},
	{name: "-N0", args: []string{"-k", "-N0", "echo", "foo", ":::", "1", "2", "3"}},
	{name: "-N2 positions run over the sources", args: []string{"-j1", "-k", "-N2", "echo", "{1}/{2}/{3}", ":::", "a", "b", ":::", "1", "2"}},
	{name: "-N with {#}", args: []string{"-k", "-N2", "echo", "{#}", ":::", "a", "b", "c", "d", "e"}},
	{name: "-X context replace", args: []string{"-j1", "-X", "echo", "pre-{}-post", ":::", "A", "B", "C", "D", "E"}},
	{name: "-m", args: []string{"-j1", "-m", "echo", "pre-{}-post", ":::", "A", "B", "C", "D", "E"}},
	{name: "--xargs", args: []string{"-j1", "--xargs", "echo", "pre-{}-post", ":::", "A", "B", "C", "D", "E"}},
	{name: "-X spreads over the slots", args: []string{"-k", "-j3", "-X", "echo", ":::", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10"}},
	{name: "-m spreads over the slots", args: []string{"-k", "-j2", "-m", "echo", "x{}y", ":::", "a", "b", "c", "d", "e"}},
	{name: "--xargs does not spread", args: []string{"-k", "-j2", "--xargs", "echo", ":::", "a", "b", "c", "d", "e"}},
	{name: "-X -n10 spreads the last ten", args: []string{"-k", "-j3", "-X", "-n", "10", "echo"}, stdin: seqLines(100)},
	{name: "-X with several sources", args: []string{"-j1", "-k", "-X", "echo", "x{}y", "{1}-{2}", ":::", "a", "b", ":::", "1", "2"}},
	{name: "-X with path strings", args: []string{"-j1", "-X", "echo", "{.}", "x{/}y", ":::", "a.b/c.d", "e.f"}},
	{name: "-X quotes each argument", args: []string{"-j1", "-X", "echo", ":::", "a b", "c'd", "$x"}},
	{name: "-X packs a long input into lines under the limit", sh: "seq 20000 | $P -j1 -X echo | awk '{ n += NF; if (length($0) > 64036) print \"too long\" } END { print n }'"},
	{name: "--dry-run -X", args: []string{"--dry-run", "-j1", "-X", "echo", "{#}", "x{#}y", "{%}", ":::", "a", "b"}},
	{name: "--dry-run -N0", args: []string{"--dry-run", "-N0", "echo", "hi", ":::", "1"}},
	{name: "-n with a unit", args: []string{"-k", "-n", "1k", "echo"}, stdin: seqLines(5)},

	// Output modes.
	{name: "--line-buffer", args: []string{"--line-buffer", "-j2", "echo a{}; sleep 0.{}; echo b{}", ":::", "1", "2"}},
	// A job's last line without a newline is glued to whatever comes
	// next, which depends on the order the jobs finish in: what GNU
	// guarantees is that every piece comes whole, tagged.
	{name: "--line-buffer --tag, last line without newline", args: []string{"--lb", "--tag", "-j2", "echo a{}; sleep 0.{}; printf b{}", ":::", "1", "2"},
		norm: pieces(`[12]\t[ab][12]`)},
	{name: "--line-buffer joins a line written in parts", args: []string{"--line-buffer", "-j2", "printf a{}; sleep 0.{}; echo b{}; printf c{}", ":::", "1", "2"},
		norm: pieces(`a1b1\n|a2b2\n|c[12]`)},
	{name: "--line-buffer -k", args: []string{"--line-buffer", "-k", "-j2", "sleep 0.{}; echo {}", ":::", "3", "1"}},
	{name: "-u", args: []string{"-u", "-j2", "echo a{}; sleep 0.{}; echo b{}", ":::", "1", "2"}},
	{name: "--ungroup with -j1 keeps order", args: []string{"--ungroup", "-j1", "printf {}; echo {}", ":::", "a", "b"}},
	{name: "--group", args: []string{"--group", "-k", "echo a{}; echo b{}", ":::", "1", "2"}},
	{name: "--line-buffer joblog Receive", args: []string{"--lb", "--joblog", "jl", "echo abc", ":::", "1"}, joblog: "jl"},

	// --eta, --delay, --shuf, --trim, --env.
	{name: "--eta leaves stdout alone", args: []string{"-k", "--eta", "echo", ":::", "a", "b"}},
	{name: "--delay", args: []string{"-k", "--delay", "0.2", "echo", ":::", "a", "b", "c"}},
	{name: "--delay with a unit", args: []string{"--delay", "0.1s", "echo", ":::", "a"}},
	{name: "--shuf runs every job", args: []string{"--shuf", "echo", ":::", "a", "b", "c", "d", "e"}},
	{name: "--shuf numbers the jobs in the shuffled order", args: []string{"-j1", "--shuf", "echo", "{#}", ":::", "a", "b", "c", "d"}},
	{name: "--trim lr", args: []string{"-k", "--trim", "lr", "echo", "[{}]", ":::", " a ", "b  "}},
	{name: "--trim l", args: []string{"-k", "--trim", "l", "echo", "[{}]", ":::", " a "}},
	{name: "--trim r", args: []string{"-k", "--trim", "r", "echo", "[{}]", ":::", " a "}},
	{name: "--trim rl", args: []string{"-k", "--trim", "rl", "echo", "[{}]"}, stdin: " \ta b\t \n"},
	{name: "--trim n keeps --colsep's spaces", args: []string{"-k", "--trim", "n", "--colsep", ",", "echo", "[{1}]", "[{2}]", ":::", " a , b"}},
	{name: "bad --trim", args: []string{"--trim", "x", "echo", ":::", "a"}, onlyStatus: true, refused: true},
	{name: "--env", args: []string{"--env", "MYVAR", "echo", "$MYVAR", ":::", "a"}, env: []string{"MYVAR=hello"}},

	// --header (not --pipe).
	{name: "--header : names the ::: sources", args: []string{"-k", "--header", ":", "echo", "{f1}", "{f2}", ":::", "f1", "A", "B", ":::", "f2", "C", "D"}},
	{name: "--header : with modifiers", args: []string{"-k", "--header", ":", "echo", "{a}{b.}", "{a/}", "{b//}", "{b/.}", ":::", "a", "I", "II", ":::", "b", "x/III.y"}},
	{name: "--header : --colsep names the columns", args: []string{"-k", "--header", ":", "--colsep", `\t`, "echo", "{y}-{x}", "{1}", "::::", "h.tsv"}, files: map[string]string{"h.tsv": "x\ty\n1\t2\n3\t4\n"}},
	{name: "--header : splits at tabs", args: []string{"-k", "--header", ":", "echo", "{y}-{x}", "::::", "h.tsv"}, files: map[string]string{"h.tsv": "x\ty\n1\t2\n3\t4\n"}},
	{name: "--header with a regexp", args: []string{"-k", "--header", `.*\n`, "--colsep", ",", "echo", "{b}", ":::", "a,b", "1,2"}},
	{name: "--header 0 names sources by file", args: []string{"-k", "--header", "0", "echo", "{h.tsv}", "::::", "h.tsv"}, files: map[string]string{"h.tsv": "x\ty\n1\t2\n"}},
	{name: "--header : {} is every value", args: []string{"-k", "--header", ":", "echo", ":::", "a", "I", ":::", "b", "III"}},

	// --plus.
	{name: "--plus path strings", args: []string{"-k", "--plus", "echo", "{+/}", "{+.}", "{+..}", "{+...}", "{..}", "{...}", "{/..}", "{/...}", ":::", "dir/sub/file.a.b.c.d", "noext", "a.b", "/x.y/z", ""}},
	{name: "--plus {} = {+/}/{/} = {.}.{+.}", args: []string{"-k", "--plus", "echo", "{+/}/{/}", "{.}.{+.}", "{+/}/{/..}.{+..}", ":::", "dir/sub/file.ext.gz"}},
	{name: "--plus {##} {0#}", args: []string{"-k", "--plus", "echo", "{0#}/{##}"}, stdin: seqLines(12)},
	{name: "--plus {0%}", args: []string{"-j1", "--plus", "echo", "{0%}", ":::", "a"}},
	{name: "--plus {:-str} {:n} {:n:m}", args: []string{"-k", "--plus", "echo", "{:-def}", "{:2}", "{:1:3}", ":::", "", "aaabbb", "0", "ab"}},
	{name: "--plus {#re} {##re} {%re} {%%re}", args: []string{"-k", "--plus", "echo", "{#z.*z.}", "{##z.*z.}", "{%.z.*z}", "{%%.z.*z}", ":::", "z.z.z.foo", "foo.z.z.z"}},
	{name: "--plus {/re/str} and kin", args: []string{"-k", "--plus", "echo", "{/a/X}", "{//a/X}", "{/#a/X}", "{/%a/X}", ":::", "aXa", "bab"}},
	{name: "--plus case changes", args: []string{"-k", "--plus", "echo", "{^a}", "{^^a}", "{,A}", "{,,A}", ":::", "AbA", "abab"}},
	{name: "--plus with positions", args: []string{"-k", "--plus", "echo", "{2/a/X}", "{1..}", "{-1^^b}", "{2+/}", ":::", "a.b.c", ":::", "bab", "d/e"}},
	{name: "without --plus its strings are text", args: []string{"-k", "echo", "{+/}", "{##}", "{:-x}", ":::", "a/b"}},

	{name: "timed-out jobs count as failed", args: []string{"--timeout", "5.5", "sleep", ":::", "0", "60", "61"}},
}

// seqLines is seq n.
func seqLines(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "%d\n", i)
	}
	return b.String()
}

// gnuConcurrency is how many cases run at once (each runs both programs
// side by side). The cases mostly wait on their jobs' sleeps and on
// process start-up, so more than the cores: go test's -parallel (the
// cores) would leave the machine idle behind two sleeping cases.
var gnuConcurrency = make(chan struct{}, max(8, 4*runtime.NumCPU()))

// runGNUCase runs c with GNU parallel and worksteal, in two fresh
// directories, at once.
//
// GNU parallel itself hangs now and then on a loaded machine: CI saw its
// --pipe --shard 1 -j3 (a second parallel, Perl sharders and parcat
// readers joined by fifos) print two of its three jobs' output and then
// wait until the case's deadline, 466 s later. So a GNU run still going
// hang after worksteal's ended (and at least gnuHangFactor times as long
// as worksteal's run took) is killed, with its process group, and run
// again in a clean directory, up to gnuTries in all; logf says so. No
// case's GNU run takes gnuHang when it does not hang (the longest wait
// on 6 s timeouts). This bounds only when GNU is run again, never what
// the comparison accepts. gnuPath is GNU parallel (gnuBin).
func runGNUCase(ctx context.Context, c gnuCase, gnuPath string, hang time.Duration, gnuDir, wsDir string, logf func(string, ...any)) (gnu, ws outcome, err error) {
	gnuConcurrency <- struct{}{}
	defer func() { <-gnuConcurrency }()
	var gnuErr error
	runGNU := func() (done chan struct{}, cancel context.CancelFunc) {
		gctx, cancel := context.WithCancel(ctx)
		done = make(chan struct{})
		go func() {
			defer close(done)
			gnu, gnuErr = c.run(gctx, gnuDir, gnuPath)
		}()
		return done, cancel
	}
	done, cancel := runGNU()
	began := time.Now()
	ws, wsErr := c.run(ctx, wsDir, wsBin, "run")
	took := time.Since(began)
	bound := max(hang, gnuHangFactor*took)
	for try := 1; try < gnuTries && ctx.Err() == nil && !closedWithin(done, bound); try++ {
		cancel()
		<-done
		logf("GNU parallel was still running %v after worksteal's run ended (run %d of at most %d; it hangs now and then under load): killed, and run again", bound, try, gnuTries)
		if err := emptyDir(gnuDir); err != nil {
			return gnu, ws, err
		}
		done, cancel = runGNU()
	}
	<-done // the last run, or one that ended within the bound
	cancel()
	if gnuErr != nil || wsErr != nil {
		return gnu, ws, fmt.Errorf("GNU parallel: %v; worksteal: %v", gnuErr, wsErr)
	}
	return gnu, ws, nil
}

// How long GNU parallel may run on after worksteal's run of a case has
// ended, before it is taken for hung: gnuHang, or gnuHangFactor times
// worksteal's run, whichever is longer; and how many runs it gets.
const (
	gnuHang       = 2 * time.Minute
	gnuHangFactor = 20
	gnuTries      = 3
)

// closedWithin reports whether done is closed within d.
func closedWithin(done <-chan struct{}, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-done:
		return true
	case <-t.C:
		return false
	}
}

// emptyDir removes what dir holds, leaving it.
func emptyDir(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
			return err
		}
	}
	return nil
}

// gnuFull says every case of TestGNUParallel runs: WORKSTEAL_GNU_FULL=1
// (CI runs the whole suite so, as a step of its own). Otherwise the cases
// of issue 29 run, and a fixed third of the others: GNU parallel starts a
// Perl interpreter per case (about 0.2 s of CPU), and the whole suite
// beside a CPU-bound load would take go test ./... near its timeout.
//
// WORKSTEAL_GNU_FULL=later skips the test: the caller runs every case in a
// run of its own afterwards (.ci/run does, without -race, after the
// README's test command). The sample would run the same cases on the same
// binary (built without -race whatever go test's flags) a second time:
// about 250 s of a 2-core machine, a Perl interpreter per case.
var gnuFull = os.Getenv("WORKSTEAL_GNU_FULL") == "1"

func TestGNUParallel(t *testing.T) {
	if os.Getenv("WORKSTEAL_GNU_FULL") == "later" {
		t.Skip("WORKSTEAL_GNU_FULL=later: every case runs in a later run of its own")
	}
	needGNU(t)
	var agree, ran atomic.Int64
	t.Cleanup(func() {
		t.Logf("%d of %d cases run (of %d) agree with GNU parallel", agree.Load(), ran.Load(), len(gnuCases))
		if !gnuFull {
			t.Logf("a sample of the cases ran: WORKSTEAL_GNU_FULL=1 runs them all")
		}
	})
	for i, c := range gnuCases {
		t.Run(c.name, func(t *testing.T) {
			if !gnuFull && !strings.HasPrefix(c.name, "29.") && i%3 != 0 {
				t.Skip("one case in three of the whole suite runs by default: WORKSTEAL_GNU_FULL=1 runs every case")
			}
			if !gnuCSV && slices.Contains(c.args, "--csv") {
				if os.Getenv("WORKSTEAL_CI") == "1" {
					t.Fatal("WORKSTEAL_CI=1 but Perl's Text::CSV_XS, the backend of Text::CSV that GNU parallel's --csv is compared with, is not installed (apt-get install libtext-csv-perl libtext-csv-xs-perl)")
				}
				t.Skip("skipping: GNU parallel's --csv is compared with Perl's Text::CSV_XS backend, which is not installed (apt-get install libtext-csv-perl libtext-csv-xs-perl)")
			}
			ran.Add(1)
			// The case starts now, beside up to cap(gnuConcurrency)
			// others; t.Parallel's limit (the cores) only gates the
			// comparisons.
			type result struct {
				gnu, ws outcome
				err     error
			}
			res := make(chan result, 1)
			gnuDir, wsDir := t.TempDir(), t.TempDir()
			ctx := caseContext(t)
			go func() {
				var r result
				r.gnu, r.ws, r.err = runGNUCase(ctx, c, gnuBin, gnuHang, gnuDir, wsDir, t.Logf)
				res <- r
			}()
			t.Parallel()
			r := <-res
			if r.err != nil {
				t.Fatal(r.err)
			}
			if compareGNU(t, c, r.gnu, r.ws) {
				agree.Add(1)
			}
		})
	}
}

// caseContext ends a little before the test's own deadline (none without
// one), so that a case that hangs fails with its name, not go test's
// dump: no fixed bound, which a busy machine may overrun.
func caseContext(t *testing.T) context.Context {
	deadline, ok := t.Deadline()
	if !ok {
		return t.Context()
	}
	ctx, cancel := context.WithDeadline(t.Context(), deadline.Add(-time.Until(deadline)/20))
	t.Cleanup(cancel)
	return ctx
}

// compareGNU reports where worksteal's outcome differs from GNU
// parallel's; true if nowhere.
func compareGNU(t *testing.T, c gnuCase, gnu, ws outcome) bool {
	t.Helper()
	ok := true
	fail := func(format string, args ...any) {
		ok = false
		cmdline := fmt.Sprintf("parallel %q", c.args)
		if c.sh != "" {
			cmdline = c.sh
		}
		t.Errorf("%s:\n"+format, append([]any{cmdline}, args...)...)
	}
	if c.wsRefuses {
		if gnu.code == 255 || ws.code != 255 || ws.stdout != "" {
			fail("want GNU parallel to run it and worksteal to refuse it: exit status GNU %d, worksteal %d; worksteal stdout %q", gnu.code, ws.code, ws.stdout)
		}
		return ok
	}
	if (gnu.code == 255) != c.refused {
		t.Fatalf("GNU parallel exit status %d, refused %v: the case is wrong\nGNU stdout: %s\nGNU stderr: %s", gnu.code, c.refused, gnu.stdout, gnu.stderr)
	}
	if ws.code != gnu.code {
		fail("exit status: worksteal %d, GNU parallel %d\nworksteal stderr: %s\nGNU stderr: %s", ws.code, gnu.code, ws.stderr, gnu.stderr)
	}
	if c.onlyStatus {
		return ok
	}
	gout, wout := gnu.stdout, ws.stdout
	if c.norm != nil {
		gout, wout = c.norm(gout), c.norm(wout)
	}
	if !c.keepsOrder() {
		gout, wout = sortedLines(gout), sortedLines(wout)
	}
	if wout != gout {
		fail("stdout:\nworksteal:\n%s\nGNU parallel:\n%s", wout, gout)
	}
	if c.stderr && sortedLines(ws.stderr) != sortedLines(gnu.stderr) {
		fail("stderr:\nworksteal:\n%s\nGNU parallel:\n%s", ws.stderr, gnu.stderr)
	}
	for name, g := range gnu.files {
		if w, found := ws.files[name]; !found {
			fail("GNU parallel left file %s (%q); worksteal did not", name, g)
		} else if w != g {
			fail("file %s:\nworksteal:\n%s\nGNU parallel:\n%s", name, w, g)
		}
	}
	for name, w := range ws.files {
		if _, found := gnu.files[name]; !found {
			fail("worksteal left file %s (%q); GNU parallel did not", name, w)
		}
	}
	return ok
}

// pieces keeps, of an output, the matches of re, sorted, and what is
// left besides them and newlines: for output whose pieces may be glued in
// any order (a job's last line without a newline, under --line-buffer).
func pieces(re string) func(string) string {
	rx := regexp.MustCompile(re)
	return func(s string) string {
		m := rx.FindAllString(s, -1)
		slices.Sort(m)
		rest := strings.ReplaceAll(rx.ReplaceAllString(s, ""), "\n", "")
		return fmt.Sprintf("%q\nleft over: %q\n", m, rest)
	}
}
