package gnutest

// Generated differential cases: command lines drawn at random (from a
// fixed seed each, so the same cases every run) out of GNU parallel's
// argument-mode and pipe-mode options, awkward values and every kind of
// input source, each run beside GNU parallel by TestGNUParallel as the
// hand-written cases are. A run of this generator with fresh seeds found
// the -r, -N 0, -L, -I, --tag and -v differences fixed in stop 55
// (docs/gnu-compat.md, "The differential test").
//
// The generator leaves out what GNU parallel does not do the same twice
// or does by a quirk docs/gnu-compat.md lists: {%}, --halt and {#} in
// --tagstring with more than one slot (GNU evaluates the tag late, racing
// with the next job), :::+ after -a (GNU links one source to the left),
// -s (GNU runs the jobs before a command line too long), malformed
// --csv, --cat and --fifo (their file names are random), --dry-run with
// --results or --halt (GNU's dry run saves its lines as results, all but
// stdout, and its jobs "succeed"), --line-buffer beside a --results
// table (GNU writes the output on stdout too), a glob beside --results
// (GNU makes its directory as the job starts).

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
)

func init() { gnuCases = append(gnuCases, randomCases(1, 150)...) }

// randomValues are the values the generated sources draw from: spaces,
// quotes, shell syntax, paths, extensions, a CR, non-ASCII, a {}.
var randomValues = []string{"a", "b c", "x.tar.gz", "dir/sub/file.txt", "/abs/p.q", "it's", `q"d`, "$SHELL",
	"*", "", " lead", "trail ", "a\tb", `back\slash`, "ünï", "-n", "a,b,c", "1,2", ".hidden", "dir/",
	"noext", "a b  c", "x;y", "a|b", "~", "100", "7", "e.f.g", "=eq", "{}", "--", "a b,c;d", "'", `"`}

// randomCommands are the commands; {%} only where one slot runs.
var randomCommands = []string{"echo", "echo {}", "echo {.} {/} {//} {/.}", "echo {#} {}", "echo {1} {2}",
	"printf '%s|' {}", "echo pre{}post", "echo {1.} {2/}", `echo "{}"`, "echo '{}'", "echo {} {}", "echo {-1}",
	"echo x", `printf '[%s]\n'`, "echo {1//} {1/.}", "echo {3}", "sh -c 'echo $0-$1' {} z",
	"echo {} >&2; echo ok", "sh -c 'exit $(( {#} % 3 ))'", "test {#} -ne 2 && echo {}"}

var randomPlusCommands = []string{"echo {+/} {+.} {..} {...} {/..}", "echo {:2} {:1:2}", "echo {#a} {%c}",
	"echo {/a/X} {//b/Y}", "echo {^a} {,c}", "echo {:-def}", "echo {+..} {+...}"}

// randomOptions are argument mode's options, each drawn whole.
var randomOptions = [][]string{{"--tag"}, {"--tagstring", "T{}"}, {"-q"}, {"-n", "2"}, {"-N", "2"}, {"-X"},
	{"-m"}, {"--xargs"}, {"--colsep", ","}, {"--trim", "lr"}, {"--trim", "l"}, {"-r"}, {"-E", "7"}, {"--link"},
	{"--dry-run"}, {"-v"}, {"-I", "%"}, {"-N", "0"}, {"-n", "0"}, {"--plus"}, {"--header", ":"},
	{"--retries", "2"}, {"-d", ","}, {"--shell-quote"}, {"--skip-first-line"}, {"--rpl", "{xx} s/a/Z/"},
	{"--extensionreplace", "{E}"}, {"--seqreplace", "{S}"}, {"-C", " +"}, {"-L", "2"}, {"-l", "2"},
	{"-e", "7"}, {"-I", "{x}"}, {"--colsep", "[,;]"}, {"-d", `\t`}, {"--line-buffer"}, {"-n", "2", "-X"},
	{"-q", "-X"}, {"--dry-run", "-v"}, {"--basenamereplace", "{B}"}, {"--dirnamereplace", "{D}"},
	{"--results", "res"}, {"--results", "r2/"}, {"--header", ":", "--colsep", ","}, {"-0"},
	{"--halt", "now,fail=1"}, {"--halt", "soon,fail=2"}, {"--halt", "now,success=1"}, {"--halt", "2"},
	{"--joblog", "jl"}, {"--arg-sep", "ZZ"}, {"--header", "0"}, {"--slotreplace", "{P}"},
	{"--plus", "--total-jobs", "9"}, {"--resume", "--joblog", "jl2"}, {"--results", "res.tsv"}, {"-t"},
	{"--keep-order"}, {"--tagstring", "{#}"}, {"--plus", "--tag"}}

// randomPipeOptions are pipe mode's.
var randomPipeOptions = [][]string{{"--block", "10"}, {"--block", "25"}, {"-N", "3"}, {"-N", "1"}, {"-L", "2"},
	{"--recstart", ">"}, {"--recend", `\n\n`}, {"--recstart", ">", "--recend", `\n`},
	{"--regexp", "--recend", `[;,]\n`}, {"--remove-rec-sep", "--recstart", ">"}, {"--header", "1"},
	{"--skip-first-line"}, {"-r"}, {"--block", "3", "-N", "2"}, {"--recend", "x"}, {"--recend", ""},
	{"--colsep", ",", "--group-by", "1"}, {"--remove-rec-sep", "--recend", ";"}, {"--tag"}, {"--tagstring", "T{}:"},
	{"--results", "pres"}, {"--results", "p.tsv"}, {"--results", "pr/{#}"}}

var randomPipeCommands = []string{"wc -l", "cat", "wc -c", "head -n 1", "sed s/^/X/", "sort -r", "cat; echo END", "echo {#}; cat"}

// randomCases makes n cases from seeds first, first+1, ...: about one in
// four in pipe mode.
func randomCases(first, n int) []gnuCase {
	cases := make([]gnuCase, 0, n)
	for seed := first; seed < first+n; seed++ {
		r := rand.New(rand.NewPCG(uint64(seed), 0x9e3779b97f4a7c15))
		var c gnuCase
		if r.IntN(4) == 0 {
			c = randomPipeCase(r)
		} else {
			c = randomArgCase(r)
		}
		c.name = fmt.Sprintf("random %d: %s", seed, strings.Join(c.args, " "))
		cases = append(cases, c)
	}
	return cases
}

func pick[T any](r *rand.Rand, s []T) T { return s[r.IntN(len(s))] }

func randomArgCase(r *rand.Rand) gnuCase {
	slots := pick(r, []string{"1", "1", "2", "3"})
	var opts [][]string
	for range pick(r, []int{0, 1, 1, 2, 2, 3}) {
		if o := pick(r, randomOptions); !slices.ContainsFunc(opts, func(p []string) bool { return p[0] == o[0] }) {
			opts = append(opts, o)
		}
	}
	plus := slices.ContainsFunc(opts, func(o []string) bool { return o[0] == "--plus" })
	cmd := pick(r, randomCommands)
	if plus && r.IntN(5) < 3 {
		cmd = pick(r, randomPlusCommands)
	}
	if slices.ContainsFunc(opts, func(o []string) bool {
		return o[0] == "--line-buffer" || o[0] == "--halt" || o[0] == "--slotreplace" || o[0] == "--tagstring"
	}) ||
		strings.Contains(cmd, "exit") || strings.Contains(cmd, "test ") {
		slots = "1" // the order of a failing job's lines is the slots'
	}
	if slices.ContainsFunc(opts, func(o []string) bool { return o[0] == "--dry-run" }) {
		// Listed differences: GNU's dry run saves its lines as --results
		// and stops at a --halt success (its jobs run "true").
		opts = slices.DeleteFunc(opts, func(o []string) bool { return o[0] == "--results" || o[0] == "--halt" })
	}
	if slices.ContainsFunc(opts, func(o []string) bool { return o[0] == "--line-buffer" }) {
		// A listed difference: GNU writes --line-buffer's output on
		// stdout besides a --results table.
		opts = slices.DeleteFunc(opts, func(o []string) bool { return o[0] == "--results" })
	}
	args := []string{"-k", "-j", slots}
	for _, o := range opts {
		args = append(args, o...)
	}
	c := gnuCase{files: map[string]string{}}
	var pre, tail []string
	sep := "\n"
	switch {
	case slices.Contains(args, "-0"):
		sep = "\x00"
	case slices.Contains(args, "-d") && args[slices.Index(args, "-d")+1] == ",":
		sep = ","
	case slices.Contains(args, "-d"):
		sep = "\t"
	}
	for i := range pick(r, []int{1, 1, 2, 2, 3}) {
		var vals []string
		for _, k := range r.Perm(len(randomValues))[:1+r.IntN(4)] {
			vals = append(vals, randomValues[k])
		}
		kind := pick(r, []string{":::", ":::", "::::", "-a", ":::+", "::::+", "stdin"})
		if kind == "stdin" && i > 0 {
			kind = ":::"
		}
		if (kind == ":::+" || kind == "::::+") && (len(tail) == 0 || len(pre) > 0) {
			kind = strings.TrimSuffix(kind, "+") // links only to a source of its own kind of list
		}
		switch kind {
		case "stdin":
			c.stdin = strings.Join(vals, sep) + sep
		case "::::", "::::+", "-a":
			name := fmt.Sprintf("f%d", i)
			c.files[name] = strings.Join(vals, "\n") + "\n"
			if kind == "-a" {
				if len(tail) > 0 {
					tail = append(tail, "::::", name) // -a after ::: would reorder the sources
				} else {
					pre = append(pre, "-a", name)
				}
			} else {
				tail = append(tail, kind, name)
			}
		default:
			tail = append(append(tail, kind), vals...)
		}
	}
	if len(pre) > 0 && c.stdin != "" {
		c.stdin = ""
	}
	if len(tail) > 0 && (tail[0] == ":::+" || tail[0] == "::::+") {
		tail[0] = strings.TrimSuffix(tail[0], "+")
	}
	if slices.Contains(args, "--results") {
		// A glob sees --results' directory, which GNU makes as the job
		// starts and worksteal as it ends (a listed difference).
		for k, w := range tail {
			tail[k] = strings.ReplaceAll(w, "*", "star")
		}
		for name, text := range c.files {
			c.files[name] = strings.ReplaceAll(text, "*", "star")
		}
		c.stdin = strings.ReplaceAll(c.stdin, "*", "star")
	}
	if i := slices.Index(args, "--arg-sep"); i >= 0 {
		for k, w := range tail {
			if w == ":::" || w == ":::+" {
				tail[k] = "ZZ" + w[3:]
			}
		}
	}
	if i := slices.Index(args, "--joblog"); i >= 0 {
		c.joblog = args[i+1]
	}
	c.args = append(append(append(args, pre...), cmd), tail...)
	return c
}

func randomPipeCase(r *rand.Rand) gnuCase {
	args := []string{"-k", "--pipe", "-j", pick(r, []string{"1", "2", "3"})}
	var used []string
	for range pick(r, []int{0, 1, 2, 2, 3}) {
		o := pick(r, randomPipeOptions)
		if slices.Contains(used, o[0]) {
			continue
		}
		used = append(used, o[0])
		args = append(args, o...)
	}
	if slices.Contains(args, "--group-by") && slices.Contains(args, "--header") {
		i := slices.Index(args, "--header")
		args = slices.Delete(args, i, i+2) // GNU 20221122 writes garbage for the header
	}
	if i := slices.Index(args, "--group-by"); i >= 0 && slices.ContainsFunc(args, func(a string) bool {
		return a == "--recstart" || a == "--recend" || a == "--remove-rec-sep"
	}) {
		args = slices.Delete(args, i-2, i+2) // refused by both: a case of its own (with its --colsep)
	}
	var lines []string
	for range r.IntN(26) {
		lines = append(lines, pick(r, []string{"a", "b b", ">rec", "", "x;", "y,", "1,a", "1,b", "2,c", "hdr",
			"  sp", "\t", strings.Repeat("z", 1+r.IntN(40)), `"q,1"`}))
	}
	data := strings.Join(lines, "\n")
	if len(lines) > 0 && r.IntN(5) < 4 {
		data += "\n"
	}
	if i := slices.Index(args, "--results"); i >= 0 {
		if data == "" {
			// A listed difference: GNU leaves its slots' results files
			// for an empty input.
			args = slices.Delete(args, i, i+2)
		} else {
			args[3] = "1" // one slot: the last job's files stay in a directory
		}
	}
	return gnuCase{args: append(args, pick(r, randomPipeCommands)), stdin: data}
}
