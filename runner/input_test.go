package runner

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func commands(jobs []Job) []string {
	var c []string
	for _, j := range jobs {
		c = append(c, j.Command)
	}
	return c
}

func TestInputJobs(t *testing.T) {
	cases := []struct {
		name string
		in   Input
		want []string
	}{
		{"one command per line", Input{Lines: strings.NewReader("echo a\n\n  \necho b\r\n")}, []string{"echo a", "echo b"}},
		{"template from lines", Input{Template: []string{"gzip", "-9", "{}"}, Lines: strings.NewReader("a.txt\nmy file\n")},
			[]string{"gzip -9 a.txt", "gzip -9 'my file'"}},
		{"template without placeholder appends {}", Input{Template: []string{"echo"}, Lines: strings.NewReader("x\n")}, []string{"echo x"}},
		{"quote in value", Input{Template: []string{"echo {}"}, Sources: [][]string{{"it's"}}}, []string{`echo 'it'\''s'`}},
		{"cartesian product, first slowest", Input{Template: []string{"echo", "{1}-{2}"}, Sources: [][]string{{"a", "b"}, {"1", "2"}}},
			[]string{"echo a-1", "echo a-2", "echo b-1", "echo b-2"}},
		{"modifiers", Input{Template: []string{"echo {.} {/} {//} {/.} {#}"}, Sources: [][]string{{"d/x.tar.gz"}}},
			[]string{"echo d/x.tar x.tar.gz d x.tar 1"}},
		{"not placeholders are kept", Input{Template: []string{"awk '{print $1}' {} ${HOME}"}, Sources: [][]string{{"f"}}},
			[]string{"awk '{print $1}' f ${HOME}"}},
		{"columns", Input{Template: []string{"cp {1} {2}"}, ColSep: ",", Lines: strings.NewReader("a,b\nc,d\n")}, []string{"cp a b", "cp c d"}},
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
	jobs, err := Input{Template: []string{"echo {%} {}"}, Sources: [][]string{{"a"}}}.Jobs()
	if err != nil {
		t.Fatal(err)
	}
	if jobs[0].Command != "echo {%} a" || !jobs[0].slotVar {
		t.Errorf("job %+v; want {%%} kept for the start", jobs[0])
	}
}

func TestInputErrorsNameTheProblem(t *testing.T) {
	cases := []struct {
		name string
		in   Input
		want string
	}{
		{"malformed weight", Input{WeightCol: 1, Lines: strings.NewReader("1\ta\nheavy\tb\n")}, `line 2: weight column 1: "heavy"`},
		{"negative weight", Input{WeightCol: 1, Lines: strings.NewReader("-1\ta\n")}, `line 1: weight column 1`},
		{"missing weight column", Input{WeightCol: 3, Lines: strings.NewReader("1\ta\n")}, "line 1: no weight column 3"},
		{"only a weight", Input{WeightCol: 1, Lines: strings.NewReader("1\n")}, "line 1: only a weight"},
		{"placeholder beyond the row", Input{Template: []string{"echo {3}"}, ColSep: ",", Lines: strings.NewReader("a,b\n")}, "line 1: placeholder {3}"},
		{"arguments without template", Input{Sources: [][]string{{"a"}}}, "need a command template"},
		{"empty argument group", Input{Template: []string{"echo"}, Sources: [][]string{{"a"}, {}}}, "argument group 2 is empty"},
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

func TestShellQuote(t *testing.T) {
	for in, want := range map[string]string{"a.txt": "a.txt", "": "''", "a b": "'a b'", "$x": "'$x'", "it's": `'it'\''s'`} {
		if got := ShellQuote(in); got != want {
			t.Errorf("ShellQuote(%q) = %s; want %s", in, got, want)
		}
	}
}
