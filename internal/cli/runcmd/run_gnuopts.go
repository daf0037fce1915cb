package runcmd

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/spf13/pflag"
)

// gnuConfig is what the GNU parallel options of "worksteal run" beyond its
// first set fill in (issue 22, part A). Pipe mode, throttling and the
// semaphore are in run_pipe_flags.go.
type gnuConfig struct {
	halt           string    // --halt, --halt-on-error
	tag            bool      // --tag
	tagString      string    // --tagstring, --tag-string
	color          bool      // --color, and --ctag, --ctagstring
	colorFailed    bool      // --color-failed
	results        string    // --results, --result, --res
	null           bool      // -0, --null
	delimiter      string    // -d, --delimiter
	maxArgs        string    // -n, --max-args (a count; gnuCount reads it)
	maxReplaceArgs string    // -N, --max-replace-args (also the records of a --pipe block)
	maxLines       string    // -L, -l, --max-lines: records of lines (xargs' -L)
	contextReplace bool      // -X
	multiArgs      bool      // -m
	xargs          bool      // --xargs
	lineBuffer     bool      // --line-buffer, --lb
	latestLine     bool      // --latest-line, --ll
	interactive    bool      // --interactive, -p
	warnings       []string  // GNU's warnings about the options, written before the jobs run
	ungroup        bool      // -u, --ungroup
	group          bool      // --group
	eta            bool      // --eta
	delay          string    // --delay
	header         string    // --header (also the header of a --pipe block)
	csv            bool      // --csv: each input line (record) is CSV
	shuf           bool      // --shuf
	trim           string    // --trim
	plus           bool      // --plus
	env            []string  // --env
	replace        string    // -I, --replace: the replacement string instead of {}
	argSep         string    // --arg-sep, --argsep: instead of :::
	eof            string    // -E: the input ends at a line that reads so
	maxChars       int       // -s, --max-chars: the longest command line
	tmpDir         string    // --tmpdir, --tempdir: where --cat and --fifo files go
	noNotice       bool      // --no-notice: accepted (worksteal asks for no citation)
	verbose        bool      // -v: each command on stdout, with its output
	trace          bool      // -t, --verbose: each command on stderr as it starts
	files          bool      // --files, --output-as-files: each job's output to a file, its name printed
	rpl            []string  // --rpl: 'TAG BODY' replacement string definitions
	parens         string    // --parens: the delimiters of a perl expression
	templates      []string  // --template, --tmpl: FILE=NAME, filled in as each job starts
	tty            bool      // --tty: --open-tty, -j1 and -u unless given
	openTTY        bool      // --open-tty, -o: the jobs read the terminal
	termSeq        string    // --term-seq: the signals and waits that stop a job
	shellQuote     int       // --shell-quote: print each command line quoted, run nothing
	compress       bool      // --compress: the buffered output through the first compressor found
	compressPrg    string    // --compress-program
	decompressPrg  string    // --decompress-program
	noRunIfEmpty   bool      // -r, --no-run-if-empty: skip values of white space
	noKeepOrder    bool      // --no-keep-order: undo -k
	noop           bool      // --plain, --gnu, --silent: GNU's defaults, nothing to do
	argFileSep     string    // --arg-file-sep: instead of ::::
	renames        [6]string // --er, --bnr, --dnr, --bner, --seqreplace, --slotreplace: instead of {.} {/} {//} {/.} {#} {%}
	skipFirstLine  bool      // --skip-first-line: the input's first line is not used
	totalJobs      string    // --total-jobs, --total: the number {##} gives
	slotVar        string    // --process-slot-var: the variable that gets the slot number - 1
}

// gnuRenames are GNU's options that rename a replacement string, in the
// order of gnuConfig.renames, with the string each renames.
var gnuRenames = [6][3]string{
	{"extensionreplace", "er", "{.}"},
	{"basenamereplace", "bnr", "{/}"},
	{"dirnamereplace", "dnr", "{//}"},
	{"basenameextensionreplace", "bner", "{/.}"},
	{"seqreplace", "", "{#}"},
	{"slotreplace", "", "{%}"},
}

// addGNUFlags registers GNU parallel's options of gnuConfig, and GNU's other
// names of run's own flags (-P and --max-procs for -j, --jl for --joblog).
func addGNUFlags(f *pflag.FlagSet, g *gnuConfig) {
	gnuAlias(f, "jobs", "max-procs", "maxprocs", "P")
	gnuAlias(f, "joblog", "jl")
	f.StringVar(&g.halt, "halt", "", "stop the batch early: when,why=N[%] (now,fail=1; soon,fail=20%; now,success=1; soon,done=3) or 0, 1, 2, -1, -2, N% (GNU parallel's)")
	gnuAlias(f, "halt", "halt-on-error")
	f.CountVar(&g.shellQuote, "shell-quote", "run no command: print each command line quoted for the shell (again for each time given)")
	gnuAlias(f, "shell-quote", "shellquote", "shell_quote")
	f.BoolVar(&g.tag, "tag", false, "prefix each output line with the job's arguments and a tab")
	f.StringVar(&g.tagString, "tagstring", "", "prefix each output line with this string (replacement strings allowed) and a tab")
	gnuAlias(f, "tagstring", "tag-string")
	f.StringVar(&g.results, "results", "", "save each job's output: DIR (DIR/1/ARG/.../stdout, stderr, seq), a name with replacement strings, or FILE.csv, .tsv, .json (- for stdout)")
	gnuAlias(f, "results", "result", "res")
	f.BoolVarP(&g.null, "null", "0", false, "input items end with NUL, not newline (-d '\\0')")
	f.StringVarP(&g.delimiter, "delimiter", "d", "", "input items end with this string (\\n \\t \\r \\0 and octal \\101 understood)")
	f.StringVarP(&g.maxArgs, "max-args", "n", "", "at most N rows of arguments per job, {} all of them; 0: once per row, with none (K, M, G suffixes)")
	gnuAlias(f, "max-args", "maxargs")
	f.StringVarP(&g.maxReplaceArgs, "max-replace-args", "N", "", "as -n, with {1} .. {N} the job's values and a word holding {} repeated for each")
	f.StringVar(&g.maxLines, "max-lines", "", "-l N, -L N: N values a job (unless -n or -N says), a value ending in white space going on with the next (-L: replaced as -N, unless -m or --xargs); with --pipe, a record of N lines")
	gnuAlias(f, "max-replace-args", "maxreplaceargs")
	f.BoolVarP(&g.contextReplace, "X", "X", false, "as many arguments per command line as fit, spread over the slots; a word holding {} is repeated for each")
	f.BoolVarP(&g.multiArgs, "m", "m", false, "as many arguments per command line as fit, spread over the slots; {} is all of them")
	f.BoolVar(&g.xargs, "xargs", false, "as many arguments per command line as fit (not spread over the slots)")
	f.BoolVar(&g.lineBuffer, "line-buffer", false, "write the jobs' output a whole line at a time as it comes (lines of jobs may mix)")
	gnuAlias(f, "line-buffer", "line-buffered", "linebuffer", "linebuffered", "lb")
	f.BoolVar(&g.latestLine, "latest-line", false, "show each running job's latest output line on a row of its own (GNU's terminal repaints; stdout and stderr together)")
	gnuAlias(f, "latest-line", "latestline", "ll")
	f.BoolVarP(&g.ungroup, "ungroup", "u", false, "write the jobs' output as it comes (parts of lines may mix)")
	f.BoolVar(&g.group, "group", false, "write each job's output whole when it finishes (the default)")
	f.BoolVar(&g.eta, "eta", false, "show the estimated time left on stderr (implies --progress)")
	f.StringVar(&g.delay, "delay", "", "wait this long between job starts: seconds, or with units (1m30s)")
	f.BoolVar(&g.csv, "csv", false, "read each input record as CSV (quotes, \"\", quoted newlines); its fields are {1} {2} ... (--colsep: the separator, default ,); with --pipe, a block ends only after a whole record")
	f.StringVar(&g.header, "header", "", "the first value of each input source names its columns: --header : gives {name}; --header 0 gives {FILE} for a file's source (with --pipe: the header given to each job)")
	f.BoolVar(&g.shuf, "shuf", false, "run the jobs in random order")
	f.StringVar(&g.trim, "trim", "n", "trim white space of the arguments: n, l, r, lr or rl")
	f.BoolVar(&g.plus, "plus", false, "more replacement strings: {+/} {+.} {+..} {+...} {..} {...} {/..} {/...} {##} {0#} {0%} {:-s} {:n} {:n:m} {#re} {%re} {/re/s} {^s} {,s} ...")
	f.StringArrayVar(&g.env, "env", nil, "copy this environment variable to the jobs (with --nats: to the workers' jobs); repeatable")
	f.StringVarP(&g.replace, "replace", "I", "", "use this string as the replacement string instead of {}")
	f.StringVar(&g.argSep, "arg-sep", ":::", "use this string instead of ::: (and STRING+ instead of :::+)")
	gnuAlias(f, "arg-sep", "argsep")
	f.StringVarP(&g.eof, "eof", "E", "", "the input ends at a line that reads this string")
	gnuAlias(f, "eof", "e")
	f.IntVarP(&g.maxChars, "max-chars", "s", 0, "a command line of several arguments (-X, -m, --xargs, -n) is at most this many bytes")
	gnuAlias(f, "max-chars", "maxchars")
	// GNU parallel 20221122 reads -x and does nothing more with it: a
	// command line over -s is an error there ("Command line too long",
	// exit 255, nothing run) with or without it, as here.
	f.BoolP("exit", "x", false, "accepted for GNU parallel's sake: a command line over the size (-s) is always an error (exit 255, nothing run)")
	f.StringVar(&g.tmpDir, "tmpdir", "", "directory of the --cat and --fifo files (default $TMPDIR)")
	gnuAlias(f, "tmpdir", "tempdir")
	f.BoolVarP(&g.verbose, "v", "v", false, "write each job's command line on stdout, before its output")
	f.BoolVarP(&g.trace, "verbose", "t", false, "write each job's command line on stderr as it starts")
	f.BoolVarP(&g.interactive, "interactive", "p", false, "ask on the terminal before each job starts (COMMAND ?...); run it only if the answer begins with y")
	f.StringArrayVar(&g.templates, "template", nil, "FILE=NAME: as each job starts, write FILE's text to NAME, the replacement strings of both filled in (values unquoted); repeatable")
	gnuAlias(f, "template", "tmpl", "templates")
	f.BoolVar(&g.tty, "tty", false, "give the jobs the terminal as stdin (--open-tty), one at a time (-j1 unless -j is given), their output as it comes (-u unless --group is given)")
	f.BoolVarP(&g.openTTY, "open-tty", "o", false, "give each job the terminal (/dev/tty) as its stdin, in the terminal's process group, so that it may read it; a stop then reaches only the job's shell")
	f.StringVar(&g.termSeq, "term-seq", "", "stop a job (--timeout, --halt now, an interrupt) with these signals and the milliseconds to wait after each, as TERM,200,KILL,25 (by default TERM, then KILL after --grace)")
	gnuAlias(f, "term-seq", "termseq")
	f.BoolVar(&g.compress, "compress", false, "pass each job's output through a compressor and back (GNU's list: pzstd, lbzip2, pbzip2, zstd, pixz, lz4, pigz, lzop, plzip, lzip, gzip, lrz, pxz, bzip2, lzma, xz, clzip; else cat)")
	f.StringVar(&g.compressPrg, "compress-program", "", "pass each job's output through this shell command and back through --decompress-program (implies --compress)")
	gnuAlias(f, "compress-program", "use-compress-program")
	f.StringVar(&g.decompressPrg, "decompress-program", "", "with --compress: the command that gives the output back (default: the compressor's -dc)")
	gnuAlias(f, "decompress-program", "use-decompress-program")
	f.StringVar(&g.parens, "parens", "", "the left and right delimiters of a perl expression, as the string's halves ({==} by default): perl is not supported, so a command holding them is refused")
	f.StringArrayVar(&g.rpl, "rpl", nil, "define a replacement string: '{tag} s/regexp/replacement/' (Go regexps; ';' and '||' join them) or GNU's own definition of one; repeatable")
	f.BoolVarP(&g.noRunIfEmpty, "no-run-if-empty", "r", false, "skip the input values that are only white space (in each source, before the sources are combined or linked)")
	gnuAlias(f, "no-run-if-empty", "norunifempty")
	f.BoolVar(&g.noKeepOrder, "no-keep-order", false, "undo -k (output in the order the jobs finish)")
	gnuAlias(f, "no-keep-order", "nokeeporder", "nok", "no-k")
	f.BoolVar(&g.noop, "plain", false, "read no --profile, $PARALLEL or config file (~/.parallel/config, ~/.parallelrc)")
	gnuAlias(f, "plain", "gnu", "silent")
	f.StringVar(&g.argFileSep, "arg-file-sep", "", "use this string instead of :::: (and STRING+ instead of ::::+)")
	gnuAlias(f, "arg-file-sep", "argfilesep")
	for i, r := range gnuRenames {
		f.StringVar(&g.renames[i], r[0], "", "use this string instead of "+r[2])
		if r[1] != "" {
			gnuAlias(f, r[0], r[1])
		}
	}
	f.BoolVar(&g.skipFirstLine, "skip-first-line", false, "do not use the first line of the input")
	gnuAlias(f, "skip-first-line", "skipfirstline")
	f.StringVar(&g.totalJobs, "total-jobs", "", "the number of jobs {##} gives (GNU parallel's, for a stream it cannot count)")
	gnuAlias(f, "total-jobs", "totaljobs", "total")
	f.StringVar(&g.slotVar, "process-slot-var", "", "give each job this environment variable set to its slot number - 1 (as $PARALLEL_JOBSLOT0)")
	gnuAlias(f, "process-slot-var", "processslotvar")
	f.BoolVar(&g.files, "files", false, "save each job's stdout in a file of --tmpdir and print the file's name instead (stderr is dropped)")
	gnuAlias(f, "files", "output-as-files", "outputasfiles")
	f.BoolVar(&g.noNotice, "no-notice", false, "accepted for GNU parallel's sake: worksteal asks for no citation")
	gnuAlias(f, "max-lines", "maxlines", "l", "L")
	gnuAlias(f, "link", "xapply")
	gnuAlias(f, "keep-order", "keeporder")
	gnuAlias(f, "dry-run", "dryrun", "dr")
}

// gnuAbbrev lets a long option be given by any unique prefix of its
// names, as GNU parallel's Getopt::Long takes it (--line-buf, --keep): a
// prefix that several names share is taken when they all name one option.
// GNU's options that run refuses count, so that a prefix means what it
// means to GNU parallel. Call it once every flag is defined.
func gnuAbbrev(f *pflag.FlagSet) {
	owner := map[string]string{"help": "help"} // a name → the option it names
	f.VisitAll(func(fl *pflag.Flag) {
		main := fl.Name
		if a := fl.Annotations[gnuAliasOf]; len(a) > 0 {
			main = a[0]
		}
		owner[fl.Name] = main
	})
	for n, canon := range gnuOptions {
		if _, ok := owner[n]; !ok && len(n) > 1 {
			owner[n] = canon
		}
	}
	names := slices.Sorted(maps.Keys(owner))
	f.SetNormalizeFunc(func(_ *pflag.FlagSet, name string) pflag.NormalizedName {
		if _, ok := owner[name]; ok || len(name) < 2 {
			return pflag.NormalizedName(name)
		}
		i, _ := slices.BinarySearch(names, name)
		found := ""
		for ; i < len(names) && strings.HasPrefix(names[i], name); i++ {
			switch {
			case found == "":
				found = names[i]
			case owner[names[i]] != owner[found]:
				return pflag.NormalizedName(name) // ambiguous: unknown
			}
		}
		if found == "" {
			return pflag.NormalizedName(name)
		}
		return pflag.NormalizedName(found)
	})
}

// gnuAliasOf is the annotation that names the flag an alias stands for.
const gnuAliasOf = "gnu-alias-of"

// gnuAlias registers GNU parallel's other names of flag main: hidden
// flags sharing its value. A one-letter name is a shorthand.
func gnuAlias(f *pflag.FlagSet, main string, names ...string) {
	m := f.Lookup(main)
	for _, n := range names {
		a := &pflag.Flag{Name: n, Usage: "GNU parallel's name of --" + main, Value: m.Value, DefValue: m.DefValue,
			NoOptDefVal: m.NoOptDefVal, Hidden: true, Annotations: map[string][]string{gnuAliasOf: {main}}}
		if len(n) == 1 {
			a.Shorthand = n
		}
		f.AddFlag(a)
	}
}

// gnuChanged says whether flag main was given, by any of its names, and
// how (the name as given, for errors).
func gnuChanged(f *pflag.FlagSet, main string) (given string, ok bool) {
	f.Visit(func(fl *pflag.Flag) {
		if ok {
			return
		}
		if fl.Name == main || (len(fl.Annotations[gnuAliasOf]) > 0 && fl.Annotations[gnuAliasOf][0] == main) {
			ok = true
			given = "--" + fl.Name
			if len(fl.Name) == 1 {
				given = "-" + fl.Name
			}
		}
	})
	return given, ok
}

// gnuOptions are GNU parallel's options (20221122) that "worksteal run"
// does not support, by every name GNU parallel accepts: a user who gives
// one gets an error that names it as GNU parallel's, never a misreading.
// The options run does support are its own flags.
var gnuOptions = gnuOptionSet(
	// Input and arguments.
	"U",
	"linkinputsource|xapplyinputsource",
	"context-replace", "a-sep",
	// Output.
	"g",
	"tmux", "tmux-pane|tmuxpane", "total-jobs|totaljobs|total",
	// Scheduling and limits.
	"threads",
	"T", "ctrl-c|ctrlc", "no-ctrl-c|noctrlc",
	// Remote execution.
	"sshlogin|S", "sshloginfile|slf", "sshdelay|ssh-delay", "ssh", "controlmaster|M", "transfer",
	"transferfile|transfer-file|tf", "return", "trc", "cleanup", "basefile|bf", "workdir|work-dir|wd",
	"W", "rsync-opts|rsyncopts", "onall", "nonall", "filter-hosts|filterhosts", "record-env|recordenv",
	"hostgroups|hgrp|hostgroup", "B", "sql", "sqlmaster|sql-master", "sqlworker|sql-worker",
	"sqlandworker|sql-and-worker",
	// Pipe mode.
	// Other programs' modes.
	"sem", "shebang|hashbang", "shebang-wrap", "embed", "filter", "citation", "bibtex",
	"tollef",
	"D|debug", "Y", "H", "shell-completion|shellcompletion", "_parset", "session",
)

func gnuOptionSet(specs ...string) map[string]string {
	m := map[string]string{}
	for _, spec := range specs {
		names := strings.Split(spec, "|")
		canon := names[0]
		if len(canon) == 1 {
			canon = "-" + canon
		} else {
			canon = "--" + canon
		}
		for _, n := range names {
			m[n] = canon
		}
	}
	return m
}

var (
	unknownLongRE  = regexp.MustCompile(`^unknown flag: --([^= ]+)`)
	unknownShortRE = regexp.MustCompile(`^unknown shorthand flag: '(.)'`)
)

// gnuFlagError turns pflag's "unknown flag" into an error that names a GNU
// parallel option as such.
func gnuFlagError(err error) error {
	name := ""
	if m := unknownLongRE.FindStringSubmatch(err.Error()); m != nil {
		name = m[1]
	} else if m := unknownShortRE.FindStringSubmatch(err.Error()); m != nil {
		name = m[1]
	}
	canon, ok := gnuOptions[name]
	if !ok {
		return err
	}
	given := "--" + name
	if len(name) == 1 {
		given = "-" + name
	}
	if given != canon {
		given += " (" + canon + ")"
	}
	if canon == "--filter" {
		// GNU evaluates the filter as Perl, its replacement strings
		// filled in: no part of it is other than Perl.
		return fmt.Errorf("GNU parallel's option %s is not supported by worksteal run: its filter is a Perl expression, and perl expressions (as {= =}) are not supported (drop the jobs from the input instead)", given)
	}
	if canon == "--sshlogin" || canon == "--sshloginfile" {
		return fmt.Errorf("GNU parallel's option %s is not supported by worksteal run: to run jobs on many machines, start worksteal worker on each and use worksteal run --nats URL", given)
	}
	return fmt.Errorf("GNU parallel's option %s is not supported by worksteal run (see worksteal run --help for the options it supports)", given)
}

// addColorFlags registers GNU parallel's --color, --ctag and --ctagstring
// (--tag and --tagstring, coloured).
func addColorFlags(f *pflag.FlagSet, g *gnuConfig) {
	f.BoolVar(&g.color, "color", false, "colour each job's output lines, a colour per job (GNU parallel's colours, by job number)")
	gnuAlias(f, "color", "colour")
	f.BoolVar(&g.colorFailed, "color-failed", false, "colour the output lines of a failed job white on red")
	gnuAlias(f, "color-failed", "colour-failed", "colorfailed", "colourfailed", "cf")
	f.Bool("ctag", false, "--tag --color")
	f.String("ctag-string", "", "--tagstring STR --color")
	gnuAlias(f, "ctag-string", "ctagstring")
}

// colorTags turns --ctag and --ctagstring into --tag, --tagstring and
// --color (GNU: --tagstring, when given too, wins over --ctagstring).
func colorTags(f *pflag.FlagSet, g *gnuConfig) error {
	if _, ok := gnuChanged(f, "ctag"); ok {
		g.tag, g.color = true, true
	}
	if _, ok := gnuChanged(f, "ctag-string"); ok {
		g.color = true
		if _, ok := gnuChanged(f, "tagstring"); !ok {
			// f.Set marks --tagstring given; g is run's copy of the
			// flags' values, set too.
			g.tagString = f.Lookup("ctag-string").Value.String()
			return f.Set("tagstring", g.tagString)
		}
	}
	return nil
}

// gnuColors are GNU parallel 20221122's colours (init_color): readable
// pairs of 256-colour background and black or white text, in the order
// that puts unlike colours next to each other; job seq gets
// gnuColors[seq % len].
var gnuColors = func() []string {
	var pairs [][2]string
	add := func(fg string, ranges ...[2]int) {
		for _, r := range ranges {
			for n := r[0]; n <= r[1]; n++ {
				pairs = append(pairs, [2]string{fmt.Sprintf("%03d", n), fg})
			}
		}
	}
	add("000", [2]int{6, 7}, [2]int{9, 11}, [2]int{13, 15}, [2]int{40, 51}, [2]int{75, 87}, [2]int{113, 123}, [2]int{147, 159},
		[2]int{171, 182}, [2]int{185, 231}, [2]int{249, 254})
	add("231", [2]int{1, 9}, [2]int{12, 13}, [2]int{16, 45}, [2]int{52, 81}, [2]int{88, 114}, [2]int{124, 149},
		[2]int{160, 178}, [2]int{180, 180}, [2]int{182, 184}, [2]int{196, 214}, [2]int{232, 250})
	idx := make([]int, len(pairs))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool {
		x, y := idx[a], idx[b]
		if x%23 != y%23 {
			return x%23 < y%23
		}
		return y%7 < x%7
	})
	out := make([]string, len(idx))
	for i, k := range idx {
		out[i] = "\033[48;5;" + pairs[k][0] + ";38;5;" + pairs[k][1] + "m"
	}
	return out
}()

// gnuColor is a job's colour as GNU parallel writes it off a terminal:
// its pair, then clear to the end of line; reset after. With
// --color-failed, a failed job is white on red, and without --color a
// job that did not fail has none.
func gnuColor(color, failed bool) func(seq int, jobFailed bool) (begin, end string) {
	return func(seq int, jobFailed bool) (begin, end string) {
		switch {
		case failed && jobFailed:
			return "\033[48;5;196;38;5;231m\033[K", "\033[m"
		case color:
			return gnuColors[seq%len(gnuColors)] + "\033[K", "\033[m"
		}
		return "", ""
	}
}
