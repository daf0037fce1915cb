package gnutest

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// The differential cases of issue 29 for --latest-line (--ll), side by
// side with GNU parallel 20221122, off a terminal: there GNU has no
// cursor-up, so each paint of a job's row is a line of its own ("\r", the
// tag, the line cut to 80 columns, " " or ">" when cut, newlines), and how
// often a row is painted depends on timing (GNU repaints every running job
// at each turn of its loop). What it guarantees, and the cases compare, is
// each job's last paint (its final line, in --color-failed's colour if it
// failed) and the rest of a last line without a newline, written as it is
// after the tag when the job ends. TestGNULatestLineOnATerminal compares
// the screen itself on a pty.

func init() { gnuCases = append(gnuCases, gnuLatestCases...) }

// latestPaints splits --latest-line's output into its paints (what
// follows a "\r" up to the newlines after it) and the rest written as it
// is, in order.
func latestPaints(s string) (paints, raw []string) {
	for s != "" {
		if s[0] != '\r' {
			i := strings.IndexByte(s, '\r')
			if i < 0 {
				i = len(s)
			}
			// Newlines before a paint move the cursor down to a row
			// below (how far depends on the order of the paints); the
			// lines written as they are (--files' and --results' tag
			// lines) may come one after another.
			for r := range strings.SplitSeq(s[:i], "\n") {
				if r != "" {
					raw = append(raw, r)
				}
			}
			s = s[i:]
			continue
		}
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			i = len(s)
		}
		paints = append(paints, s[1:i])
		s = strings.TrimLeft(s[i:], "\n")
	}
	return paints, raw
}

// latestLast keeps, of --latest-line's output, each row's last paint (a
// row is known by the first key bytes of its paints: the tag) and the
// text written as it is, each sorted. A paint of nothing but spaces (a row
// without a tag painted before its job's output) is dropped: whether a
// job's first paint comes before its output depends on timing.
func latestLast(key int) func(string) string {
	return func(s string) string {
		paints, raw := latestPaints(s)
		last := map[string]string{}
		for _, p := range paints {
			if strings.TrimSpace(p) == "" {
				continue
			}
			last[p[:min(key, len(p))]] = p
		}
		rows := make([]string, 0, len(last))
		for _, p := range last {
			rows = append(rows, p)
		}
		slices.Sort(rows)
		slices.Sort(raw)
		return fmt.Sprintf("last paint of each row: %q\nwritten as is: %q\n", rows, raw)
	}
}

// latestSeq keeps, of --latest-line's output at -j1 with jobs of one line
// each, the paints that show a line, each run of the same paint once, in
// order: the first paint of a job (before its output) and the repaints
// of one depend on timing.
func latestSeq(s string) string {
	paints, raw := latestPaints(s)
	var seq []string
	for _, p := range paints {
		if strings.TrimSpace(sgr.ReplaceAllString(p, "")) == "" || (len(seq) > 0 && seq[len(seq)-1] == p) {
			continue
		}
		seq = append(seq, p)
	}
	return fmt.Sprintf("paints: %q\nwritten as is: %q\n", seq, raw)
}

// sgr matches the colour sequences of --color.
var sgr = regexp.MustCompile("\x1b\\[[0-9;]*[mK]")

var long100 = strings.Repeat("0123456789", 10)

var gnuLatestCases = []gnuCase{
	{name: "29.15 --latest-line -j1: each job's line", args: []string{"-j1", "--latest-line", "echo", ":::", "a", "b", "c"}, norm: latestSeq},
	{name: "29.15 --ll -j1: a line in colour, the exit status", args: []string{"-j1", "--ll", "--color", "echo {}; exit {}", ":::", "0", "1", "2"}, norm: latestSeq},
	{name: "29.15 --ll --tag: the last line, stderr's too", args: []string{"-j3", "--ll", "--tag", "echo a{}; sleep 0.{}; echo b{} >&2", ":::", "1", "2", "3", "4", "5"}, norm: latestLast(8)},
	{name: "29.15 --latestline --tag: the rest of a last line without a newline", args: []string{"-j2", "--latestline", "--tag", `printf "x{}\ny{}"`, ":::", "1", "2", "3"}, norm: latestLast(8)},
	{name: "29.15 --ll --tagstring: lines cut at 80 columns, tabs as spaces, \\r ends a line", args: []string{"-j2", "--ll", "--tagstring", "<{}>", `printf "%s\n" "$(cat {})"`, ":::", "long", "tabs", "cr", "exact", "unicode"},
		files: map[string]string{"long": long100, "tabs": "a\tbc\tdef\t|", "cr": "one\rtwo", "exact": long100[:75], "unicode": strings.Repeat("é", 90)}, norm: latestLast(5)},
	{name: "29.15 --ll --tag --color-failed: the last paint of a failed job is red", args: []string{"-j2", "--ll", "--tag", "--color-failed", "echo {}; exit {}", ":::", "0", "1", "2"}, norm: latestLast(8)},
	{name: "29.15 --ll -k --tag over 30 jobs: rows past the screen", args: append([]string{"-k", "-j4", "--ll", "--tag", "echo line{}", ":::"}, seqArgs(30)...), norm: latestLast(8)},
	{name: "29.15 --ll -k: the first job last", args: []string{"-k", "-j3", "--ll", "--tagstring", "J{#}", `[ {} = 1 ] && sleep 1; echo {}`, ":::", "1", "2", "3", "4"}, norm: latestLast(3)},
	{name: "29.15 --ll --tagstring longer than the terminal", args: []string{"-j1", "--ll", "--tagstring", long100, "echo {}", ":::", "a"}, norm: latestLast(100)},
	{name: "29.15 --ll wins over --line-buffer and -u", args: []string{"-j1", "--ll", "--lb", "echo", ":::", "a", "b"}, norm: latestSeq},
	{name: "29.15 --ll -u", args: []string{"-j1", "--ll", "-u", "echo", ":::", "a", "b"}, norm: latestSeq},
	{name: "29.15 --ll -v: the command is the job's first line", args: []string{"-j2", "--ll", "-v", "--tag", "true", ":::", "a", "b", "c"}, norm: latestLast(8)},
	{name: "29.15 --ll with a joblog", args: []string{"-j2", "--ll", "--tag", "--joblog", "jl", "echo {}; exit {}", ":::", "0", "3"}, joblog: "jl", norm: latestLast(8)},
	// GNU's --dry-run under --ll runs "true" in each job's place with its
	// command written into the job's output (as -v), so each row's last
	// paint is the command; exit 0 whatever the commands would do; no
	// joblog is made.
	{name: "29.15 --ll --dry-run: each command painted on a job's row", args: []string{"-j2", "--ll", "--tag", "--dry-run", "--joblog", "jl", "echo {}; exit {}", ":::", "0", "1", "2"}, norm: latestLast(8)},
	// The same under --pipe and --pipepart: each chunk's job has a row
	// (no tag: worksteal refuses --tag in pipe mode, docs/run.md), its
	// last paint the job's line; under --dry-run its command.
	{name: "29.15 --ll --pipe -j1: each chunk's line, the exit status", args: []string{"--pipe", "-N3", "-j1", "--ll", "paste -sd,; exit {#}"}, stdin: seq10, norm: latestSeq},
	{name: "29.15 --ll --pipe -k -j2: each chunk's last line", args: []string{"--pipe", "-N2", "-k", "-j2", "--ll", "echo {#} $(paste -sd,) >&2"}, stdin: seq10, norm: latestLast(2)},
	{name: "29.15 --ll --pipepart -k -j2", args: []string{"--pipepart", "-a", "f", "--block", "5", "-k", "-j2", "--ll", "echo {#} $(wc -l)"}, files: map[string]string{"f": seq10}, norm: latestLast(2)},
	{name: "29.15 --ll --pipe --dry-run -j1: each chunk's command", args: []string{"--pipe", "-N3", "-j1", "--ll", "--dry-run", "echo {#}; exit 1"}, stdin: seq10, norm: latestSeq},
	{name: "29.15 --ll --pipe --dry-run -j2 with a joblog: none made", args: []string{"--pipe", "-N3", "-j2", "--ll", "--dry-run", "--joblog", "jl", "echo {#}"}, stdin: seq10, norm: latestLast(6)},
	{name: "29.15 --ll --pipepart --dry-run", args: []string{"--pipepart", "-a", "f", "--block", "5", "-j1", "--ll", "--dry-run", "echo {#} {%}"}, files: map[string]string{"f": seq10}, norm: latestSeq},
	// GNU's --ll reads the jobs' output from a pipe and saves no file; with
	// --results DIR or --files it never reads that pipe (the jobs still
	// run, their exit statuses count; stderr goes into the pipe too): a
	// line of the tag, an empty row, no DIR and nothing in --tmpdir. (GNU's
	// stderr holds only its "cannot open /dev/tty" off a terminal.)
	{name: "29.15 --ll --results: empty rows, no files", args: []string{"-j2", "--ll", "--tag", "--results", "res", "echo {}; echo e{} >&2; touch ran{}; exit {}", ":::", "0", "1", "2"}, norm: latestLast(8)},
	{name: "29.15 --ll --files: empty rows, no files", args: []string{"-j2", "--ll", "--tag", "--files", "--tmpdir", "t", "echo {}; echo e{} >&2; touch ran{}; exit {}", ":::", "0", "1", "2"},
		files: map[string]string{"t/keep": ""}, norm: latestLast(8)},
}

// seqArgs is "1" .. "n".
func seqArgs(n int) []string {
	s := make([]string, n)
	for i := range s {
		s[i] = fmt.Sprint(i + 1)
	}
	return s
}
