package gnuinput

import (
	"errors"
	"strings"
	"testing"

	"github.com/worksteal/worksteal/internal/jobio"
)

// FuzzInputJobs feeds a template, input lines, ::: arguments and a column
// separator to Jobs, seeded with issue 15's cases. Whatever the input,
// Jobs returns jobs numbered 1..n or an error wrapping ErrBadInput, never
// panics; a template without replacement strings starts every command.
func FuzzInputJobs(f *testing.F) {
	seeds := []struct {
		tmpl, lines, args, colsep string
		quote, link               bool
	}{
		{"touch job{#}.done", "", "x\ny", "", false, false},
		{"echo {#}", "1\n2\n3\n", "", "", false, false},
		{"echo", "", "a\nb", "", false, false},
		{"echo {1} {3} {2}", "", "a%c%b", "%", false, false},
		{"echo {2}{1}", "a\tb\n", "", `\t`, false, false},
		{"echo {2}{1}", "a%%b\n", "", "%+", false, false},
		{"", "", "echo cmd1\necho cmd2", "", false, false},
		{"l{}", "s /bin/ls\n", "", "", false, false},
		{"echo {//} {/} {/.} {.}", "", "./d/e\ndir/\n/x/y/", "", false, false},
		{"echo {} {%}", "\n\nx\n", "", "", true, false},
		{"echo {= s/a/b/ =}", "a\n", "", "", false, false},
		{"echo {-3} {0} {01} {1 } {2 .}", "", "a.b", ",", false, true},
		{"printf %s\\n {}", "a\x00b\n", "", "", false, false},
		{"echo {}", "a\r\n", "a'b\n", "(", false, true},
	}
	for _, s := range seeds {
		f.Add(s.tmpl, s.lines, s.args, s.colsep, s.quote, s.link)
	}
	f.Fuzz(func(t *testing.T, tmpl, lines, args, colsep string, quote, link bool) {
		in := Input{Quote: quote, Link: link, ColSep: colsep}
		if tmpl != "" {
			in.Template = strings.Split(tmpl, " ")
		}
		// Bounded: at most 20 values per source, so that the combinations
		// stay small.
		if strings.Count(lines, "\n") > 20 || strings.Count(args, "\n") > 20 {
			return
		}
		in.Sources = []Source{{Name: "stdin", Lines: strings.NewReader(lines)}}
		if args != "" {
			in.Sources = append(in.Sources, Source{Name: ":::", Args: []string{args}, Linked: link})
		}
		jobs, err := in.Jobs()
		if err != nil {
			if !errors.Is(err, ErrBadInput) {
				t.Fatalf("error %v does not wrap ErrBadInput", err)
			}
			return
		}
		for i, j := range jobs {
			if j.Seq != i+1 {
				t.Fatalf("job %d has Seq %d", i, j.Seq)
			}
			if c := jobio.Of(j).CommandIn(j.Command, 7); strings.IndexByte(c, 0) >= 0 {
				t.Fatalf("command %q holds a NUL byte", c)
			}
		}
		if len(jobs) > 0 && tmpl != "" && !quote && !hasRpl(tmpl) && !strings.HasPrefix(jobs[0].Command, tmpl) {
			t.Fatalf("template %q without replacement strings: command %q does not start with it", tmpl, jobs[0].Command)
		}
	})
}

// hasRpl says the template holds a replacement string.
func hasRpl(tmpl string) bool {
	t, err := compileTemplate([]string{tmpl}, false, rplSyntax{})
	return err != nil || !t.appended
}
