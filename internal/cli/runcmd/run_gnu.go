package runcmd

import (
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/pflag"

	"github.com/worksteal/worksteal/internal/gnuinput"
	"github.com/worksteal/worksteal/internal/runopts"
	"github.com/worksteal/worksteal/runner"
)

// This file turns the GNU parallel options of gnuConfig into the runner's
// Input and Config, with GNU parallel's (20221122) rules.

// input fills in the parts of in that gnuConfig sets. slots is the
// number of slots the jobs will run on (for -m and -X, which spread the
// last arguments over them, and {0%}).
func (g *gnuConfig) input(f *pflag.FlagSet, in *gnuinput.Input, slots int) error {
	if g.null {
		in.Delimiter = "\x00"
	}
	if _, ok := gnuChanged(f, "delimiter"); ok {
		d := unquotePrintf(g.delimiter)
		if d == "" {
			return errors.New("-d '': want a delimiter of at least one character (\\n, \\t, \\0, \\123 allowed)")
		}
		in.Delimiter = d // GNU: -d wins over -0
	}
	if g.csv {
		if err := csvSep(f, in.ColSep); err != nil {
			return err
		}
		in.CSV = true
	}
	n, nGiven, err := gnuCount(f, "max-args", g.maxArgs)
	if err != nil {
		return err
	}
	bigN, bigNGiven, err := gnuCount(f, "max-replace-args", g.maxReplaceArgs)
	if err != nil {
		return err
	}
	lines, linesGiven, err := gnuCount(f, "max-lines", g.maxLines)
	if err != nil {
		return err
	}
	// GNU, in this order: -n sets the values a job; -l (0 is 1) and -L
	// set it too unless it is set (Perl's ||=, so -n 0 is not), and make
	// a value ending in white space go on with the next; -N sets it and
	// replaces in context, -m and --xargs or not; -L replaces in context
	// unless -m or --xargs.
	if linesGiven {
		given, _ := gnuChanged(f, "max-lines")
		if given != "-L" && lines == 0 {
			lines = 1
		}
		if n == 0 {
			n, nGiven = lines, true // -L 0: 0, so -N 0's vanishing values
		}
		in.Continue = lines > 0
		if given == "-L" && !g.multiArgs && !g.xargs {
			in.ContextReplace = true
		}
	}
	if bigNGiven {
		n, nGiven = bigN, true
		in.ContextReplace = true
	}
	if nGiven {
		in.MaxArgs = n
		in.NoArgs = n == 0
	}
	if g.contextReplace {
		in.ContextReplace = true
	}
	in.Fill = g.contextReplace || g.multiArgs || g.xargs
	if g.contextReplace || g.multiArgs {
		in.Spread = slots
	}
	switch g.trim {
	case "n", "l", "r", "lr", "rl":
		if _, ok := gnuChanged(f, "trim"); ok {
			in.Trim = g.trim
		}
	default:
		return fmt.Errorf("--trim %q: want n (none), l (left), r (right), lr or rl (both)", g.trim)
	}
	if _, ok := gnuChanged(f, "header"); ok {
		switch {
		case g.header == "0":
			in.HeaderFiles = true
		case g.header == "":
			return errors.New("--header '': want : (the first line), a regular expression, or 0 (file names)")
		default:
			if _, err := regexp.Compile(g.header); err != nil && g.header != ":" {
				return fmt.Errorf("--header %q: %v", g.header, err)
			}
			in.Header = true // GNU: the first line, whatever the regexp
		}
	}
	if given, ok := gnuChanged(f, "replace"); ok && (g.replace != "" || given == "-I") {
		// GNU: --replace and -i without a value (or with '') change
		// nothing; -I '' is refused here.
		if g.replace == "" {
			return errors.New("-I '': want the string that stands for the arguments")
		}
		addRename(in, g.replace, "{}")
	}
	for i, r := range gnuRenames {
		if given, ok := gnuChanged(f, r[0]); ok {
			if g.renames[i] == "" {
				return fmt.Errorf("%s '': want the string that stands for %s", given, r[2])
			}
			addRename(in, g.renames[i], r[2])
		}
	}
	if given, ok := gnuChanged(f, "total-jobs"); ok {
		n, err := strconv.Atoi(strings.TrimSpace(g.totalJobs))
		if err != nil || n < 1 {
			return fmt.Errorf("%s %q: want the number of jobs, 1 or more", given, g.totalJobs)
		}
		in.TotalJobs = n
	}
	in.SkipFirstLine = g.skipFirstLine
	in.MaxLenOf = usableLineLength
	if given, ok := gnuChanged(f, "max-chars"); ok {
		if g.maxChars < 1 {
			return fmt.Errorf("%s %d: want a length of 1 or more", given, g.maxChars)
		}
		in.MaxLen = g.maxChars
		// GNU: -s over the usable length is that length, with a warning.
		if usable := usableLineLength(); g.maxChars > usable {
			in.MaxLen = usable
			g.warnings = append(g.warnings, fmt.Sprintf("Value for option -s should be < %d.", usable))
		}
	}
	if _, ok := gnuChanged(f, "eof"); ok {
		in.EOF = &g.eof
	}
	in.Shuffle = g.shuf
	in.Plus = g.plus
	in.Rpl = g.rpl
	in.Parens = g.parens
	byFile := map[string]int{} // GNU keeps one NAME per FILE: the last
	for _, t := range g.templates {
		file, name, ok := strings.Cut(t, "=")
		if !ok {
			return fmt.Errorf("--template %q: want FILE=NAME", t)
		}
		content, err := os.ReadFile(file)
		if err != nil {
			return fmt.Errorf("--template: cannot open '%s': %v", file, err)
		}
		tf := gnuinput.TemplateFile{Name: name, Content: string(content)}
		if i, seen := byFile[file]; seen {
			in.Templates[i] = tf
			continue
		}
		byFile[file] = len(in.Templates)
		in.Templates = append(in.Templates, tf)
	}
	in.NoRunIfEmpty = g.noRunIfEmpty
	in.Slots = slots
	if _, ok := gnuChanged(f, "tagstring"); ok {
		tag := unquotePrintf(g.tagString) // GNU: \t, \n, \r, \NNN
		in.Tag = &tag
	} else if g.tag {
		tag := "{}"
		for text, old := range in.Renames {
			if old == "{}" {
				tag = text // GNU: --tag is {} by whatever text stands for it
			}
		}
		in.Tag = &tag
	}
	return nil
}

// config fills in the parts of rcfg that gnuConfig sets.
func (g *gnuConfig) config(f *pflag.FlagSet, rcfg *runner.Config) error {
	o := runopts.Of(rcfg)
	if g.tty && !g.group && !g.lineBuffer {
		g.ungroup = true // GNU: --tty is -u unless --group says otherwise
	}
	o.TTY = g.tty || g.openTTY
	modes := 0
	for _, b := range []bool{g.group, g.lineBuffer, g.ungroup} {
		if b {
			modes++
		}
	}
	if modes > 1 {
		return errors.New("--group, --line-buffer and -u (--ungroup) exclude each other: give one")
	}
	switch {
	case g.latestLine:
		// GNU: --latest-line is its own way of printing, whatever
		// --group, --line-buffer or -u say.
		o.LatestLine = true
		o.Screen, o.Resize = latestLineScreen(), watchResize()
	case g.lineBuffer:
		rcfg.Output = runner.OutputLineBuffer
	case g.ungroup:
		rcfg.Output = runner.OutputUngroup
	}
	o.Verbose, o.Trace = g.verbose, g.trace
	if g.interactive {
		tty, err := os.Open("/dev/tty")
		if err != nil {
			return fmt.Errorf("--interactive: no terminal to ask on: %v", err)
		}
		tty.Close()
		o.Ask = askOnTTY(rcfg)
	}
	o.ShellQuote = g.shellQuote
	if given, ok := gnuChanged(f, "process-slot-var"); ok {
		if !envNameRE.MatchString(g.slotVar) {
			return fmt.Errorf("%s %q: want the name of an environment variable", given, g.slotVar)
		}
		o.SlotVar = g.slotVar
	}
	if given, ok := gnuChanged(f, "term-seq"); ok {
		seq, err := parseTermSeq(g.termSeq)
		if err != nil {
			return fmt.Errorf("%s: %w", given, err)
		}
		o.TermSeq = seq
	}
	if g.compress || g.compressPrg != "" {
		// GNU: --compress-program implies --compress; --compress takes
		// the first of its compressors found, else cat.
		o.Compress, o.Decompress = g.compressPrg, g.decompressPrg
		if o.Compress == "" {
			o.Compress, o.Decompress = findCompressor()
			if g.decompressPrg != "" {
				o.Decompress = g.decompressPrg
			}
		}
	}
	// GNU: --tag is ignored under -u.
	o.Tag = (g.tag || flagGiven(f, "tagstring")) && !g.ungroup
	// GNU: --color-failed does nothing under --line-buffer (its lines go
	// out before the job's status is known).
	failed := g.colorFailed && (!g.lineBuffer || g.latestLine)
	if (g.color || failed) && !g.ungroup {
		o.Color = gnuColor(g.color, failed)
	}
	if _, ok := gnuChanged(f, "halt"); ok {
		h, err := gnuinput.ParseHalt(g.halt)
		if err != nil {
			return err
		}
		o.Halt = h
	}
	if strings.HasPrefix(strings.TrimSpace(g.delay), "-") {
		g.delay = "" // GNU: a negative delay is none
	}
	if g.delay != "" {
		d, factor, err := parseTimeout(g.delay)
		if err != nil || factor != 0 {
			return fmt.Errorf("--delay %q: want seconds (0.5, 2), or a duration with units s, m, h, d (1m30s)", g.delay)
		}
		rcfg.Delay = d
	}
	for _, name := range g.env {
		if !envNameRE.MatchString(name) && name != "_" {
			return fmt.Errorf("--env %q: want the name of an environment variable", name)
		}
	}
	// Local jobs inherit the environment anyway: --env matters with --nats.
	rcfg.Env = append(rcfg.Env, g.envOf()...)
	return nil
}

var envNameRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// envOf is the environment --env copies: NAME=value of each variable set
// ("_", GNU's "every exported variable", copies nothing: local jobs have
// them all).
func (g *gnuConfig) envOf() []string {
	var env []string
	for _, name := range g.env {
		if v, ok := os.LookupEnv(name); ok {
			env = append(env, name+"="+v)
		}
	}
	return env
}

func flagGiven(f *pflag.FlagSet, name string) bool {
	_, ok := gnuChanged(f, name)
	return ok
}

// gnuCount reads -n or -N: a count, with GNU parallel's unit prefixes
// (k, K: 1024; m, M: 1024²; g, G, t, T, p, P).
func gnuCount(f *pflag.FlagSet, name, s string) (n int, given bool, err error) {
	given = flagGiven(f, name)
	if !given {
		return 0, false, nil
	}
	short := map[string]string{"max-args": "-n", "max-replace-args": "-N", "max-lines": "-L"}[name]
	bad := fmt.Errorf("%s %q: want a count of 0 or more (k, M, G suffixes allowed)", short, s)
	mult := 1
	if k := len(s); k > 0 {
		if i := strings.IndexByte("kmgtp", s[k-1]|0x20); i >= 0 {
			mult = 1 << (10 * (i + 1))
			s = s[:k-1]
		}
	}
	v, err := strconv.Atoi(s)
	if err == nil && v < 0 && name == "max-args" {
		v = 1 // GNU: -n below 1 is one argument a job
	}
	// At most 2^31 (2^31-1 where int has 32 bits), in int64 so that the
	// bound compiles for 32-bit platforms too.
	limit := min(int64(1)<<31, int64(math.MaxInt))
	if err != nil || v < 0 || int64(v) > limit/int64(mult) {
		return 0, true, bad
	}
	return v * mult, true, nil
}

// unquotePrintf is GNU parallel's reading of -d: \t, \n, \r, \NNN (octal)
// and \N become the characters they stand for.
func unquotePrintf(s string) string {
	s = strings.NewReplacer(`\t`, "\t", `\n`, "\n", `\r`, "\r").Replace(s)
	return octalRE.ReplaceAllStringFunc(s, func(m string) string {
		v, _ := strconv.ParseUint(m[1:], 8, 16)
		return string([]byte{byte(v)})
	})
}

var octalRE = regexp.MustCompile(`\\[0-7]{3}|\\[0-7]`)

// findCompressor is GNU parallel's find_compression_program: the first of
// its compressors on $PATH, as "p -c -1" and "p -dc", else cat.
func findCompressor() (compress, decompress string) {
	for _, p := range []string{"pzstd", "lbzip2", "pbzip2", "zstd", "pixz", "lz4", "pigz", "lzop", "plzip", "lzip", "gzip",
		"lrz", "pxz", "bzip2", "lzma", "xz", "clzip"} {
		if _, err := exec.LookPath(p); err == nil {
			return p + " -c -1", p + " -dc"
		}
	}
	return "cat", "cat"
}

// parseTermSeq reads GNU parallel's --term-seq: signals and the
// milliseconds to wait after each, comma-separated (a last signal may
// lack its wait: none).
func parseTermSeq(s string) ([]runopts.TermStep, error) {
	parts := strings.Split(s, ",")
	var seq []runopts.TermStep
	for i := 0; i < len(parts); i += 2 {
		var st runopts.TermStep
		if n, err := strconv.Atoi(parts[i]); err == nil && n > 0 {
			st.Signal = syscall.Signal(n)
		} else if sig, ok := signalNamed(parts[i]); ok {
			st.Signal = sig
		} else {
			return nil, fmt.Errorf("%q: %q is not a signal (TERM, SIGTERM or a number)", s, parts[i])
		}
		if i+1 < len(parts) {
			ms, err := strconv.ParseFloat(parts[i+1], 64)
			if err != nil || ms < 0 {
				return nil, fmt.Errorf("%q: %q is not a number of milliseconds", s, parts[i+1])
			}
			st.Wait = time.Duration(ms * float64(time.Millisecond))
		}
		seq = append(seq, st)
	}
	return seq, nil
}

// csvSep checks --colsep for --csv: the runner separates the fields at
// its first byte, as GNU's Text::CSV (its sep_char) does; an empty one is
// refused (Text::CSV fails on it, "SEP undefined").
func csvSep(f *pflag.FlagSet, sep string) error {
	if !f.Changed("colsep") {
		return nil
	}
	if sep == "(?:)" || sep == "" {
		return errors.New("--csv --colsep '': the CSV separator is the first byte of --colsep, which is empty (a tab: --colsep $'\\t')")
	}
	return nil
}

// addRename gives the replacement string old the text new (GNU's rpl():
// old is then text, in the command and in --tagstring, --results and
// --template alike).
func addRename(in *gnuinput.Input, text, old string) {
	if in.Renames == nil {
		in.Renames = map[string]string{}
	}
	in.Renames[text] = old
}
