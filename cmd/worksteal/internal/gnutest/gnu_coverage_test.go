package gnutest

// TestGNUCoverage keeps docs/gnu-coverage.md true: a row for every option
// heading of GNU parallel's man page (testdata/gnu-man-options.txt), the
// cases it names in gnuCases and giving that option, and the options it
// marks refused refused by name by the worksteal binary.

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// coverageRow is one row of docs/gnu-coverage.md.
type coverageRow struct {
	headings []string // the man page's headings, as `--jobs N`
	cases    []string // the cases named; nil when refused
	refused  bool
}

func readCoverage(t *testing.T) []coverageRow {
	t.Helper()
	data, err := os.ReadFile("../../../../docs/gnu-coverage.md")
	if err != nil {
		t.Fatal(err)
	}
	var rows []coverageRow
	for _, line := range strings.Split(string(data), "\n") {
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		// Cells are cut at the | that is not escaped (\|).
		cells := regexp.MustCompile(`[^\\]\|`).Split(strings.TrimSuffix(strings.TrimPrefix(line, "| "), " |"), -1)
		if len(cells) != 2 {
			t.Fatalf("docs/gnu-coverage.md: a row of %d cells: %q", len(cells), line)
		}
		// The split ate the character before each |: the first cell ends
		// in a backtick, which is put back.
		first := cells[0] + "`"
		var r coverageRow
		for _, m := range regexp.MustCompile("`((?:[^`])+)`").FindAllStringSubmatch(first, -1) {
			r.headings = append(r.headings, strings.ReplaceAll(m[1], `\|`, "|"))
		}
		second := strings.TrimSpace(cells[1])
		if strings.HasPrefix(second, "refused:") {
			r.refused = true
		} else {
			for _, name := range strings.Split(second, " · ") {
				r.cases = append(r.cases, strings.ReplaceAll(strings.TrimSpace(name), `\|`, "|"))
			}
		}
		rows = append(rows, r)
	}
	return rows
}

// headingName is the option or string a heading gives: "--jobs N" is
// --jobs, "-l[recsize]" is -l, "{n.}" is itself.
func headingName(h string) string {
	if strings.HasPrefix(h, "{") || strings.HasPrefix(h, ":::") {
		name, _, _ := strings.Cut(h, " ")
		return name
	}
	name, _, _ := strings.Cut(h, " ")
	name, _, _ = strings.Cut(name, "[")
	if !strings.HasPrefix(name, "--") && len(name) > 2 {
		name = name[:2] // -e[eof-str]
	}
	return name
}

// caseGives says c's command line gives name: the option (-j2, --halt=x
// and -j 2 alike) before the input sources (of any of a script's command
// lines), or the replacement string or separator anywhere.
func caseGives(c gnuCase, name string) bool {
	words := c.args
	if c.sh != "" {
		words = strings.FieldsFunc(c.sh, func(r rune) bool { return r == ' ' || r == '\'' || r == '"' || r == ';' })
	}
	var rx *regexp.Regexp
	if strings.HasPrefix(name, "{") {
		switch {
		case strings.HasPrefix(name, "{=n"):
			rx = regexp.MustCompile(`\{=[0-9]`)
		case strings.HasPrefix(name, "{="):
			rx = regexp.MustCompile(`\{=.*=\}`)
		default:
			rx = regexp.MustCompile(strings.ReplaceAll(regexp.QuoteMeta(name), "n", `-?[0-9]+`))
		}
	}
	sources := false // past the options: a script's "$P" begins another command line
	for _, w := range words {
		switch {
		case rx != nil:
			if rx.MatchString(w) {
				return true
			}
			continue
		case strings.HasPrefix(name, ":::"):
			if w == name {
				return true
			}
			continue
		case w == "$P":
			sources = false
		case sources:
		case w == ":::" || w == "::::":
			sources = true
		case w == name, strings.HasPrefix(name, "--") && strings.HasPrefix(w, name+"="),
			!strings.HasPrefix(name, "--") && !strings.HasPrefix(w, "--") && strings.HasPrefix(w, name):
			return true
		}
	}
	return false
}

func TestGNUCoverage(t *testing.T) {
	rows := readCoverage(t)
	data, err := os.ReadFile("testdata/gnu-man-options.txt")
	if err != nil {
		t.Fatal(err)
	}
	byHeadings := map[string]coverageRow{}
	for _, r := range rows {
		byHeadings[strings.Join(r.headings, " | ")] = r
	}
	cases := map[string]gnuCase{}
	for _, c := range gnuCases {
		cases[c.name] = c
	}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if strings.HasPrefix(line, "#") {
			continue
		}
		r, ok := byHeadings[line]
		if !ok {
			t.Errorf("docs/gnu-coverage.md has no row for the man page's %q", line)
			continue
		}
		var names []string
		for _, h := range r.headings {
			names = append(names, headingName(h))
		}
		if r.refused {
			for _, n := range names {
				if strings.HasPrefix(n, "-") {
					checkRefused(t, n)
				}
			}
			continue
		}
		// Every form of the row (each name the man page gives it) has a
		// case among those named.
		for _, n := range names {
			gives := false
			for _, name := range r.cases {
				c, ok := cases[name]
				if !ok {
					continue
				}
				gives = gives || caseGives(c, n)
			}
			if !gives {
				t.Errorf("docs/gnu-coverage.md, row %q: none of its cases %q gives %s", line, r.cases, n)
			}
		}
		for _, name := range r.cases {
			if _, ok := cases[name]; !ok {
				t.Errorf("docs/gnu-coverage.md, row %q: no case named %q", line, name)
			}
		}
	}
}

// checkRefused runs worksteal run with option name and wants it refused
// by name: exit 255, "… is not supported".
func checkRefused(t *testing.T, name string) {
	t.Helper()
	cmd := exec.CommandContext(context.Background(), wsBin, "run", name, "x", "echo", ":::", "a")
	cmd.Env = gnuEnv(nil)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	ee, ok := err.(*exec.ExitError)
	if !ok || ee.ExitCode() != 255 || !strings.Contains(stderr.String(), "is not supported") {
		t.Errorf("docs/gnu-coverage.md marks %s refused; worksteal run %s: %v, stderr %q", name, name, err, stderr.String())
	}
}
