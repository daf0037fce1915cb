package gnuinput

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/worksteal/worksteal/internal/runopts"
	"github.com/worksteal/worksteal/internal/syncbuf"
	"github.com/worksteal/worksteal/runner"
)

// --line-buffer: each line is written whole as it comes, tagged; a line
// written in parts stays whole; the last line without a newline is written
// at the end. Run under -race: the jobs' streams and the runner's own lines
// share the writers.
func TestRunLineBufferWritesWholeTaggedLines(t *testing.T) {
	jobs, err := Input{Template: []string{"printf a{}; sleep 0.1; echo b{}; printf 'c{}\\nd{}'; echo e{} >&2"}, Tag: ptr("t{}"), Sources: []Source{args("1", "2", "3")}}.Jobs()
	if err != nil {
		t.Fatal(err)
	}
	var out, errs syncbuf.Buffer
	cfg := runner.Config{Slots: 3, Output: runner.OutputLineBuffer, Stdout: &out, Stderr: &errs}
	runopts.Of(&cfg).Tag = true
	s, err := runner.Run(context.Background(), cfg, jobs)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	// The last line of each job lacks its newline: the next job's first
	// line may follow it at once.
	for _, k := range []string{"1", "2", "3"} {
		if !strings.Contains(out.String(), "t"+k+"\ta"+k+"b"+k+"\n") || !strings.Contains(out.String(), "t"+k+"\tc"+k+"\n") {
			t.Errorf("stdout lacks the whole tagged lines of job %s:\n%s", k, out.String())
		}
		if !strings.Contains(errs.String(), "t"+k+"\te"+k+"\n") || !strings.Contains(out.String(), "t"+k+"\td"+k) {
			t.Errorf("job %s: stderr %q, stdout %q: want t%s<tab>e%s and the last line t%s<tab>d%s", k, errs.String(), out.String(), k, k, k, k)
		}
	}
	if s.Results[0].Received != int64(len("a1b1\nc1\nd1")) {
		t.Errorf("job 1 received %d bytes; want %d (what it wrote to stdout)", s.Results[0].Received, len("a1b1\nc1\nd1"))
	}
}

func ptr(s string) *string { return &s }

// Jobs of several records: -N2 positions, -X context replace and the
// spread of -X over the slots, as GNU parallel.
func TestInputRecordsPerJob(t *testing.T) {
	cases := []struct {
		name string
		in   Input
		want []string
	}{
		{"-N2", Input{Template: []string{"echo", "{2}-{1}"}, MaxArgs: 2, ContextReplace: true, Sources: []Source{args("a", "b", "c")}}, []string{"echo b-a", "echo -c"}},
		{"-X", Input{Template: []string{"echo", "x{}y"}, Fill: true, ContextReplace: true, Sources: []Source{args("a", "b")}}, []string{"echo xay xby"}},
		{"-m", Input{Template: []string{"echo", "x{}y"}, Fill: true, Sources: []Source{args("a", "b")}}, []string{"echo xa by"}},
		{"-X spread over 3", Input{Template: []string{"echo"}, Fill: true, Spread: 3, Sources: []Source{args("1", "2", "3", "4", "5", "6", "7")}}, []string{"echo 1 2 3", "echo 4 5 6", "echo 7"}},
		{"-N0", Input{Template: []string{"echo", "hi"}, NoArgs: true, MaxArgs: 0, Sources: []Source{args("1", "2")}}, []string{"echo hi ", "echo hi "}},
		{"MaxLen packs", Input{Template: []string{"echo"}, Fill: true, MaxLen: 12, Sources: []Source{args("aa", "bb", "cc", "dd")}}, []string{"echo aa bb", "echo cc dd"}},
		{"--header names", Input{Template: []string{"echo", "{b}{a.}"}, Header: true, Sources: []Source{args("a", "x.y"), args("b", "z")}}, []string{"echo zx"}},
		{"-d ,", Input{Template: []string{"echo"}, Delimiter: ",", Lines: strings.NewReader("a,b\n")}, []string{"echo a", "echo 'b\n'"}},
		{"--trim lr", Input{Template: []string{"echo", "[{}]"}, Trim: "lr", Sources: []Source{args(" a ")}}, []string{"echo [a]"}},
	}
	for _, tc := range cases {
		jobs, err := tc.in.Jobs()
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got := commands(jobs); !slices.Equal(got, tc.want) {
			t.Errorf("%s: %q; want %q", tc.name, got, tc.want)
		}
	}
}
