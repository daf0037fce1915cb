package gnuinput

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/worksteal/worksteal/internal/jobio"
	"github.com/worksteal/worksteal/runner"
)

func commands(jobs []runner.Job) []string {
	var c []string
	for _, j := range jobs {
		c = append(c, j.Command)
	}
	return c
}

func args(vals ...string) Source { return Source{Name: ":::", Args: vals} }

// The expected commands below are what GNU parallel 20221122 runs (its
// --dry-run output); the differential test in internal/cli checks the
// same rules against the real program.
func TestInputJobs(t *testing.T) {
	cases := []struct {
		name string
		in   Input
		want []string
	}{
		{"one command per line, empty lines run, \\r kept", Input{Lines: strings.NewReader("echo a\n\necho b\r\n")}, []string{"echo a", "", "echo b\r"}},
		{"template from lines", Input{Template: []string{"gzip", "-9", "{}"}, Lines: strings.NewReader("a.txt\nmy file\n")},
			[]string{"gzip -9 a.txt", "gzip -9 'my file'"}},
		{"template without placeholder appends {}", Input{Template: []string{"echo"}, Lines: strings.NewReader("x\n")}, []string{"echo x"}},
		{"{#} alone: no argument appended", Input{Template: []string{"touch", "job{#}.done"}, Sources: []Source{args("x", "y")}}, []string{"touch job1.done", "touch job2.done"}},
		{"{%} alone: no argument appended", Input{Template: []string{"echo", "{%}"}, Sources: []Source{args("x")}}, []string{"echo {%}"}},
		{"quote in value", Input{Template: []string{"echo {}"}, Sources: []Source{args("it's")}}, []string{`echo 'it'"'"'s'`}},
		{"GNU quoting", Input{Template: []string{"echo"}, Sources: []Source{args("a b", "", "x$y", "-x", "a,b", "~x")}},
			[]string{"echo 'a b'", "echo ''", "echo 'x$y'", "echo -x", "echo 'a,b'", "echo '~x'"}},
		{"cartesian product, first slowest", Input{Template: []string{"echo", "{1}-{2}"}, Sources: []Source{args("a", "b"), args("1", "2")}},
			[]string{"echo a-1", "echo a-2", "echo b-1", "echo b-2"}},
		{"{} is every argument, each quoted", Input{Template: []string{"echo", "x{}y", "{.}"}, Sources: []Source{args("a.x"), args("b c")}},
			[]string{"echo xa.x 'b c'y a 'b c'"}},
		{"linked :::+ cut to the shorter", Input{Template: []string{"echo"}, Sources: []Source{args("a", "b", "c"), {Args: []string{"1", "2"}, Linked: true}}},
			[]string{"echo a 1", "echo b 2"}},
		{"linked then product", Input{Template: []string{"echo"}, Sources: []Source{args("a", "b"), {Args: []string{"1", "2", "3"}, Linked: true}, args("x", "y")}},
			[]string{"echo a 1 x", "echo a 1 y", "echo b 2 x", "echo b 2 y"}},
		{"--link wraps the shorter", Input{Template: []string{"echo"}, Link: true, Sources: []Source{args("a", "b", "c"), args("1", "2")}},
			[]string{"echo a 1", "echo b 2", "echo c 1"}},
		{"no template: the arguments are the command, unquoted", Input{Sources: []Source{args("echo a"), args("b c")}}, []string{"echo a b c"}},
		{"replacement string in the command word: nothing quoted", Input{Template: []string{"l{}"}, Sources: []Source{args("s /bin/ls")}}, []string{"ls /bin/ls"}},
		{"= ends the command word", Input{Template: []string{"V={}", "echo"}, Sources: []Source{args("a b")}}, []string{"V='a b' echo"}},
		{"-q quotes each word whole", Input{Template: []string{"echo", "a  b", "{}"}, Quote: true, Sources: []Source{args("x y")}}, []string{"echo 'a  b' 'x y'"}},
		{"a ::: value with newlines is several values", Input{Template: []string{"echo", "[{}]"}, Sources: []Source{args("a\n", "b")}}, []string{"echo [a]", "echo ['']", "echo [b]"}},
		{"modifiers", Input{Template: []string{"echo {.} {/} {//} {/.} {#}"}, Sources: []Source{args("d/x.tar.gz")}},
			[]string{"echo d/x.tar x.tar.gz d x.tar 1"}},
		{"path modifiers as GNU", Input{Template: []string{"echo", "{//}", "{/}", "{/.}", "{.}"}, Sources: []Source{args("./d/e", "dir/", "/x/y/", ".x", "/")}},
			[]string{"echo ./d e e ./d/e", "echo . '' '' dir/", "echo /x '' '' /x/y/", "echo . .x '' ''", "echo / '' '' /"}},
		{"positions", Input{Template: []string{"echo", "{0}", "{01}", "{-1}", "{-3}", "{5}", "{1//}", "{-1/.}"}, Sources: []Source{args("a.b"), args("c/d.e")}},
			[]string{"echo a.b c/d.e a.b c/d.e c/d.e  . d"}},
		{"not placeholders are kept", Input{Template: []string{"awk '{print $1}' {} ${HOME} {= {{}} { } {1 }"}, Sources: []Source{args("f")}},
			[]string{"awk '{print $1}' f ${HOME} {= {f} { } f"}},
		{"columns of every source, trimmed, missing ones empty", Input{Template: []string{"echo {1} {3} {2} {4}"}, ColSep: "%+", Sources: []Source{args(" a %% c%b")}},
			[]string{"echo a b c "}},
		{"columns as a regexp", Input{Template: []string{"cp {2} {1}"}, ColSep: `\t`, Lines: strings.NewReader("a\tb\nc\td\n")}, []string{"cp b a", "cp d c"}},
		{"an empty source beside others is one empty value", Input{Template: []string{"echo"}, Sources: []Source{args("a"), {Name: "empty.txt", Lines: strings.NewReader("")}}}, []string{"echo a ''"}},
		{"only empty sources: no jobs", Input{Template: []string{"echo"}, Sources: []Source{{Name: "empty.txt", Lines: strings.NewReader("")}}}, nil},
		{"empty --colsep splits characters", Input{Template: []string{"echo", "{1}-{3}"}, ColSep: "(?:)", Sources: []Source{args("abc")}}, []string{"echo a-c"}},
		{"weight column removed from command", Input{WeightCol: 1, Lines: strings.NewReader("3\tsleep 3\n1\tsleep 1\n")}, []string{"sleep 3", "sleep 1"}},
		{"weight column with template", Input{Template: []string{"gzip {}"}, WeightCol: 2, Lines: strings.NewReader("big\t900\nsmall\t10\n")},
			[]string{"gzip big", "gzip small"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			jobs, err := tc.in.Jobs()
			if err != nil {
				t.Fatalf("Jobs() error %v", err)
			}
			if got := commands(jobs); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Jobs() = %q; want %q", got, tc.want)
			}
			for i, j := range jobs {
				if j.Seq != i+1 {
					t.Errorf("job %d has Seq %d", i, j.Seq)
				}
			}
		})
	}
}

func TestInputWeights(t *testing.T) {
	jobs, err := Input{WeightCol: 1, Lines: strings.NewReader("3.5\ta\n0\tb\n")}.Jobs()
	if err != nil {
		t.Fatal(err)
	}
	if jobs[0].Weight != 3.5 || jobs[1].Weight != 0 {
		t.Errorf("weights %v, %v; want 3.5, 0", jobs[0].Weight, jobs[1].Weight)
	}
}

func TestInputSlotPlaceholder(t *testing.T) {
	// An argument that reads "{%}" is not a slot.
	jobs, err := Input{Template: []string{"echo {%} {}"}, Sources: []Source{args("{%}")}}.Jobs()
	if err != nil {
		t.Fatal(err)
	}
	if got := jobio.Of(jobs[0]).CommandIn(jobs[0].Command, 3); got != "echo 3 '{%}'" {
		t.Errorf("CommandIn(3) = %q; want echo 3 '{%%}'", got)
	}
	jobs, _ = Input{Template: []string{"echo", "a{%}", "{}"}, Quote: true, Sources: []Source{args("x")}}.Jobs()
	if got := jobio.Of(jobs[0]).CommandIn(jobs[0].Command, 2); got != "echo a2 x" {
		t.Errorf("-q: CommandIn(2) = %q; want echo a2 x", got)
	}
}

func TestInputErrorsNameTheProblem(t *testing.T) {
	long := strings.Repeat("x", jobio.MaxLineBytes+1)
	cases := []struct {
		name string
		in   Input
		want string
	}{
		{"malformed weight", Input{WeightCol: 1, Sources: []Source{{Name: "w.tsv", Lines: strings.NewReader("1\ta\nheavy\tb\n")}}}, `w.tsv: line 2: weight column 1: "heavy"`},
		{"negative weight", Input{WeightCol: 1, Lines: strings.NewReader("-1\ta\n")}, `line 1: weight column 1`},
		{"missing weight column", Input{WeightCol: 3, Lines: strings.NewReader("1\ta\n")}, "line 1: no weight column 3"},
		{"only a weight", Input{WeightCol: 1, Lines: strings.NewReader("1\n")}, "line 1: only a weight"},
		{"line too long", Input{Sources: []Source{{Name: "big.txt", Lines: strings.NewReader("echo\n" + long + "\n")}}}, "big.txt: line 2: longer than 16 MiB"},
		{"NUL byte in a line", Input{Sources: []Source{{Name: "stdin", Lines: strings.NewReader("a\nb\x00c\n")}}}, "stdin: line 2: holds a NUL byte"},
		{"NUL byte in an argument", Input{Template: []string{"echo"}, Sources: []Source{args("a\x00")}}, "holds a NUL byte"},
		{"bad --colsep", Input{ColSep: "(", Sources: []Source{args("a")}}, `--colsep "("`},
		{"perl replacement string", Input{Template: []string{"echo", "{= s/a/b/ =}"}, Sources: []Source{args("a")}}, "{= s/a/b/ =}: perl expression"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.in.Jobs()
			if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, ErrBadInput) {
				t.Errorf("Jobs() error %v; want ErrBadInput mentioning %q", err, tc.want)
			}
		})
	}
}

// GNU parallel pads {0#} and {0%} to 1+int(log(n)/log(10)) digits, one
// short at 1000 and 1000000 (Perl's doubles, as Go's).
func TestPlusPaddingWidths(t *testing.T) {
	for n, want := range map[int]int{1: 1, 9: 1, 10: 2, 99: 2, 100: 3, 999: 3, 1000: 3, 1001: 4, 9999: 4, 10000: 5, 1000000: 6, 1000001: 7} {
		if got := digits(n); got != want {
			t.Errorf("digits(%d) = %d; want %d (GNU parallel's)", n, got, want)
		}
	}
	jobs, err := Input{Template: []string{"echo", "{0#}"}, Plus: true, Lines: strings.NewReader(strings.Repeat("x\n", 1000))}.Jobs()
	if err != nil {
		t.Fatal(err)
	}
	if jobs[0].Command != "echo 001" || jobs[999].Command != "echo 1000" {
		t.Errorf("{0#} of 1000 jobs: %q ... %q; want echo 001 ... echo 1000", jobs[0].Command, jobs[999].Command)
	}
}
