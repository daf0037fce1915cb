package gnuinput

import (
	"cmp"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/worksteal/worksteal/internal/jobio"
	"github.com/worksteal/worksteal/runner"
)

// Source is one input source of GNU parallel: the arguments after a
// ":::", or the lines of a file (":::: FILE", -a FILE, or stdin).
type Source struct {
	// Name names the source in errors: a file name, "stdin", ":::".
	Name string
	// Args are the values of a ":::" group. A value holding newlines is
	// several values, one per line (GNU parallel passes them through a
	// file).
	Args []string
	// Lines, when Args is nil, gives one value per line. A line ends at
	// "\n"; a "\r" before it is kept, an empty line is a value.
	Lines io.Reader
	// Linked pairs this source with the previous one (":::+", "::::+"):
	// value i goes with value i, and the longer source is cut to the
	// shorter.
	Linked bool
	// File is the name given to -a or :::: ("-" for stdin); "" for :::
	// values and for stdin read when no source is given.
	File string
}

// Input says where the jobs of a batch come from, as GNU parallel reads
// them.
//
// The arguments of a job form a row: one value from each source, the rows
// being every combination of the sources (the first varying slowest), or,
// for linked sources, their values side by side. With ColSep each value is
// split further into columns. The command is Template filled from the row
// (see template.go for GNU parallel's replacement strings and quoting
// rules: {} {.} {/} {//} {/.} {n} {n.} {n/} {n//} {n/.} {#} {%}); with no
// Template, the row itself is the command.
type Input struct {
	Template []string // command words, joined by spaces; nil: the arguments are the command
	Sources  []Source // input sources, in order
	// Lines is the only source when Sources is empty (named "input").
	Lines io.Reader
	// Link pairs all sources (GNU parallel --link): the shorter ones
	// wrap around to the length of the longest.
	Link bool
	// Quote quotes each word of the filled template whole (GNU parallel
	// -q), instead of each value.
	Quote bool
	// ColSep, a regular expression, splits each value into columns (GNU
	// parallel --colsep); the columns are trimmed of white space at both
	// ends, as GNU parallel does.
	ColSep string
	// WeightCol, if positive, is the 1-based column of each input line that
	// holds the job's weight (a non-negative number); lines are split at
	// ColSep, or at tabs. The column is removed from the line, and the rest
	// is the argument. Only with a single source of lines; blank lines are
	// skipped.
	WeightCol int
	// CSV reads each value as a CSV record (GNU parallel's --csv): its
	// fields, split at ColSep taken literally (default ","), are the
	// columns; a quoted field may hold the separator, "" and newlines
	// (lines are joined while a field is open). The columns are trimmed
	// only when ColSep is given, as GNU's.
	CSV bool

	// Delimiter ends each value read from a source of lines, and splits
	// the ::: values (GNU parallel -d; -0 is "\x00"); "" means "\n".
	Delimiter string
	// EOF, if set, ends each source at its first value that reads so
	// (GNU parallel -E): that value and the rest are not read.
	EOF *string
	// Trim trims white space off each value (GNU parallel --trim): "n"
	// none, "l" left, "r" right, "lr" or "rl" both; "" is GNU's default,
	// "lr" for the columns of ColSep and "n" otherwise.
	Trim string
	// Header takes the first value of each source as its header (GNU
	// parallel --header :): split at ColSep (or at tabs), its columns
	// name replacement strings ({name} {name.} {name/} {name//}
	// {name/.}). The values are split at tabs too when ColSep is "".
	Header bool
	// HeaderFiles names each source read from a file by the file's name
	// ({foo/bar} for ":::: foo/bar", GNU parallel --header 0).
	HeaderFiles bool
	// Plus turns on GNU parallel's --plus replacement strings (plus.go).
	Plus bool
	// TotalJobs, if > 0, is the number of jobs {##} gives (GNU parallel's
	// --total-jobs) instead of the number counted.
	TotalJobs int
	// SkipFirstLine drops the first value of the first source (GNU
	// parallel's --skip-first-line).
	SkipFirstLine bool
	// NoRunIfEmpty drops each source's values of white space as they are
	// read, before the sources are combined or linked (GNU parallel's -r,
	// --no-run-if-empty: Perl's /^\s*$/ on the value before --colsep).
	NoRunIfEmpty bool
	// Continue joins a value that ends in white space with the source's
	// next value, as xargs -L does (GNU parallel's -L, -l and
	// --max-lines: "trailing space => continued on next line").
	Continue bool
	// Rpl are GNU parallel's --rpl 'TAG BODY' definitions, as rpl.go reads
	// them: TAG ({name}) another name of a replacement string, or a
	// series of s/regexp/replacement/ statements on each value.
	Rpl []string
	// Parens are GNU parallel's --parens: the left and right delimiters
	// of a perl expression, the string's halves ("" is {==}). Perl is not
	// supported: a command holding the pair is refused as {= =} is, and
	// {= =} is then text.
	Parens string
	// Templates are GNU parallel's --template files, written as each job
	// starts.
	Templates []TemplateFile

	// MaxArgs puts up to MaxArgs records (one value of each source) in one
	// job (GNU parallel -n, -N); Fill puts as many as fit in MaxLen bytes
	// (-m, -X, --xargs), and MaxArgs, if set, caps them. {} is all of
	// them, {n} the n-th value over the records. NoArgs reads one record
	// per job and puts none in it (-n 0, -N 0).
	MaxArgs int
	Fill    bool
	NoArgs  bool
	// ContextReplace repeats a word holding {} for each value (-X, -N):
	// pic{}.jpg becomes pica.jpg picb.jpg.
	ContextReplace bool
	// Spread, when above 1, spreads the last records over that many jobs
	// (GNU parallel's -m and -X: when the input ends, the records of the
	// job being filled are shared out over the slots, once).
	Spread int
	// MaxLen is the longest command (bytes, as GNU parallel counts them)
	// that a job of several records is filled to; 0 means MaxLenOf's.
	MaxLen int
	// MaxLenOf, when MaxLen is 0, gives the limit the first time one is
	// needed: GNU parallel's usable share of the machine's longest
	// command line, which takes a probe of a few processes to find. Nil
	// means DefaultMaxLen. It may be called more than once.
	MaxLenOf func() int

	// Shuffle runs the jobs in a random order (GNU parallel --shuf),
	// numbered in that order.
	Shuffle bool
	// Slots is the number of slots, for the width of {0%}.
	Slots int
	// Tag, if set, is the template of each job's Tag (GNU parallel's
	// --tagstring; --tag is "{}"): values unquoted, nothing appended.
	Tag *string
	// Renames gives replacement strings another text, by that text: the
	// old name ("{}", "{.}", "{/}", "{//}", "{/.}", "{#}", "{%}") is then
	// text, as GNU parallel's -I, --extensionreplace, --basenamereplace,
	// --dirnamereplace, --basenameextensionreplace, --seqreplace and
	// --slotreplace have it.
	Renames map[string]string
	// Bar says GNU parallel's --bar is given: its length of a command
	// counts {} as --tag's does (the bar shows each job's arguments).
	Bar bool
	// Results, if set and holding a replacement string, is the template of
	// each job's Results path (GNU parallel's --results NAME).
	Results *string
}

// DefaultMaxLen is the longest command Input fills with records by
// default: GNU parallel's reckoning, (max − 3000) / 2, with Linux's
// limit on one argument (sh -c COMMAND), 128 KiB, as the max.
const DefaultMaxLen = (128<<10 - 1 - 3000) / 2

// maxLen is the longest command a job is filled to (MaxLen, MaxLenOf,
// DefaultMaxLen).
func (in Input) maxLen() int {
	if in.MaxLen > 0 {
		return in.MaxLen
	}
	if in.MaxLenOf != nil {
		return in.MaxLenOf()
	}
	return DefaultMaxLen
}

// maxLenBound is a length below which no command is too long: the
// limit, or a quarter of DefaultMaxLen while MaxLenOf is not asked.
func (in Input) maxLenBound() int {
	if in.MaxLen > 0 || in.MaxLenOf == nil {
		return in.maxLen()
	}
	return DefaultMaxLen / 4
}

// value is one value of a source: its columns, and the value as read
// (only kept for --tag and --results).
type value struct {
	cols []string
	orig *string
}

// record is one row of values, one of each source (or group of linked
// sources): the columns side by side, and the values.
type record struct {
	cols  []string
	origs []string
}

// Jobs reads the input and returns its jobs, numbered from 1 in input order.
// An error wraps ErrBadInput and names the source and line at fault.
func (in Input) Jobs() ([]runner.Job, error) {
	colsep, colTrim, valTrim, err := in.splitter()
	if err != nil {
		return nil, err
	}
	sources := in.Sources
	if len(sources) == 0 {
		if in.Lines == nil {
			return nil, nil
		}
		sources = []Source{{Name: "input", Lines: in.Lines}}
	}
	syn, err := rplSyntax{plus: in.Plus}.withParens(in.Parens)
	if err != nil {
		return nil, err
	}
	syn = syn.withRenames(in.Renames)
	if len(in.Rpl) > 0 {
		user, err := userRpls(in.Rpl)
		if err != nil {
			return nil, err
		}
		syn.user = user
	}
	if in.WeightCol > 0 {
		if len(sources) != 1 || sources[0].Args != nil {
			return nil, fmt.Errorf("%w: a weight column needs one source of input lines, not ::: arguments", ErrBadInput)
		}
		tmpl, err := compileTemplate(in.Template, in.Quote, syn)
		if err != nil {
			return nil, err
		}
		return in.weightedJobs(tmpl, colsep, sources[0])
	}
	// Each source's values, each value already split into its columns.
	keepArgs := in.Tag != nil || in.Results != nil // only --tag and --results use the values as read
	vals, err := in.values(sources, colsep, colTrim, valTrim, keepArgs, &syn)
	if err != nil {
		return nil, err
	}
	tmpl, tag, res, err := in.templates(syn)
	if err != nil {
		return nil, err
	}
	return in.expand(sources, vals, syn, colsep, colTrim, keepArgs, tmpl, tag, res)
}

// splitter checks the input's settings and returns how a value splits into
// columns: the compiled --colsep (nil: one column, or CSV) and the trimming
// of the columns and of the whole value.
func (in Input) splitter() (colsep *byteRegexp, colTrim, valTrim string, err error) {
	if in.WeightCol < 0 {
		return nil, "", "", fmt.Errorf("%w: weight column %d: must be 1 or more", runner.ErrInvalidConfig, in.WeightCol)
	}
	if in.MaxArgs < 0 || in.MaxLen < 0 {
		return nil, "", "", fmt.Errorf("%w: max args %d, max length %d: must be 0 or more", runner.ErrInvalidConfig, in.MaxArgs, in.MaxLen)
	}
	switch in.Trim {
	case "", "n", "l", "r", "lr", "rl":
	default:
		return nil, "", "", fmt.Errorf("%w: --trim %q: want n, l, r, lr or rl", runner.ErrInvalidConfig, in.Trim)
	}
	if len(in.Template) > 0 && strings.TrimSpace(strings.Join(in.Template, " ")) == "" {
		return nil, "", "", fmt.Errorf("%w: empty command template", ErrBadInput)
	}
	colsepStr := in.ColSep
	if colsepStr == "" && (in.Header || in.HeaderFiles) {
		colsepStr = "\t" // GNU: --header splits at --colsep, by default a tab
	}
	if in.CSV {
		if in.WeightCol > 0 {
			return nil, "", "", fmt.Errorf("%w: --csv with a weight column: give one", runner.ErrInvalidConfig)
		}
		colsepStr = ""
	}
	if colsepStr != "" {
		if colsep, err = compileBytes(colsepStr); err != nil {
			return nil, "", "", fmt.Errorf("%w: --colsep %q: %v", ErrBadInput, in.ColSep, err)
		}
	}
	colTrim, valTrim = in.Trim, in.Trim
	if colTrim == "" {
		colTrim, valTrim = "lr", "n"
		if in.ColSep == "" {
			colTrim = "n" // a colsep implied by --header does not trim
		}
	} else if in.ColSep != "" && !in.CSV {
		valTrim = "n" // GNU splits first, then trims each column
	}
	return colsep, colTrim, valTrim, nil
}

// values reads each source's values (its lines, or its ::: arguments),
// skips and ends them as --skip-first-line and --eof say, takes the column
// names of --header and --header-files into syn, and splits each value into
// its columns. keepArgs keeps the values as read, for --tag and --results.
func (in Input) values(sources []Source, colsep *byteRegexp, colTrim, valTrim string, keepArgs bool, syn *rplSyntax) ([][]value, error) {
	vals := make([][]value, len(sources))
	var err error
	for i, src := range sources {
		var lines []string
		if src.Args == nil {
			if lines, err = readItems(src.Lines, src.Name, in.Delimiter); err != nil {
				return nil, err
			}
		} else {
			sep := in.Delimiter
			if sep == "" {
				sep = "\n"
			}
			for _, a := range src.Args {
				if strings.IndexByte(a, 0) >= 0 && !strings.Contains(sep, "\x00") {
					return nil, fmt.Errorf("%w: %s argument %q: %v", ErrBadInput, sourceName(src), a, jobio.ErrNUL)
				}
				lines = append(lines, strings.Split(a, sep)...)
			}
		}
		if in.CSV {
			if lines, err = joinCSVRecords(lines, sourceName(src)); err != nil {
				return nil, err
			}
		}
		if in.SkipFirstLine && i == 0 && len(lines) > 0 {
			lines = lines[1:]
		}
		if in.EOF != nil {
			if k := slices.Index(lines, *in.EOF); k >= 0 {
				lines = lines[:k]
			}
		}
		if in.Header && len(lines) > 0 {
			names, err := in.headerNames(colsep, lines[0], colTrim)
			if err != nil {
				return nil, err
			}
			if syn.names == nil {
				syn.names = map[string]int{}
			}
			for k, n := range names {
				if _, dup := syn.names[n]; !dup {
					syn.names[n] = columnsBefore(vals[:i]) + k + 1
				}
			}
			lines = lines[1:]
		}
		if in.HeaderFiles && src.Args == nil && src.Name != "stdin" {
			if syn.names == nil {
				syn.names = map[string]int{}
			}
			syn.names[src.Name] = columnsBefore(vals[:i]) + 1
		}
		if in.NoRunIfEmpty || in.Continue {
			lines = in.readAsGNU(lines)
		}
		vals[i] = make([]value, len(lines))
		for k, l := range lines {
			l = trimSpace(l, valTrim) // lines[k] stays as read: --results names the value unmodified
			cols, err := in.columns(colsep, l, colTrim)
			if err != nil {
				return nil, err
			}
			vals[i][k] = value{cols: cols}
			if keepArgs {
				vals[i][k].orig = &lines[k]
			}
		}
	}
	return vals, nil
}

// readAsGNU is GNU parallel's read_arg_from_fh on one source's values:
// with -r a value of white space is skipped as it is read, before the
// sources are combined or linked (so a linked source pairs with its next
// value); with Continue a value ending in white space is joined with the
// next one (the join checked by -r again), and one left at the end is
// a value of its own.
func (in Input) readAsGNU(lines []string) []string {
	out := lines[:0:0]
	prepend, held := "", false
	for _, l := range lines {
		if held {
			l, held = prepend+l, false
		}
		if in.NoRunIfEmpty && blank(l) {
			continue
		}
		if in.Continue && l != "" && perlSpace(l[len(l)-1]) {
			prepend, held = l, true
			continue
		}
		out = append(out, l)
	}
	if held {
		out = append(out, prepend)
	}
	return out
}

// templates compiles the command template and the --tag and --results
// templates (nil when not given; res nil too for a plain directory name).
func (in Input) templates(syn rplSyntax) (tmpl, tag, res *template, err error) {
	tmpl, err = compileTemplate(in.Template, in.Quote, syn)
	if err != nil {
		return nil, nil, nil, err
	}
	tmpl.context = in.ContextReplace
	tmpl.slotWidth = digits(in.Slots)
	if in.Tag != nil {
		if tag, err = compileTemplate([]string{*in.Tag}, false, syn); err != nil {
			return nil, nil, nil, err
		}
		tag.quoteArgs = false
		tag.context = in.ContextReplace // GNU: -X, -N, -L repeat the tag's words too
		if tag.appended {
			tag.words = tag.words[:len(tag.words)-1] // a tag without replacement strings is itself
		}
		tag.slotWidth = tmpl.slotWidth
	}
	if in.Results != nil {
		if res, err = compileTemplate([]string{*in.Results}, false, syn); err != nil {
			return nil, nil, nil, err
		}
		res.quoteArgs = false
		res.slotWidth = tmpl.slotWidth
		if res.appended {
			res = nil // a plain name: a directory of the arguments
		}
	}
	return tmpl, tag, res, nil
}

// expand makes the jobs of the sources' values: their records (combined or
// linked), grouped for -n, -m, -X or -N 0, each expanded in the template
// (and --tag's and --results', when keepArgs) as a job numbered from 1.
func (in Input) expand(sources []Source, vals [][]value, syn rplSyntax, colsep *byteRegexp, colTrim string, keepArgs bool, tmpl, tag, res *template) ([]runner.Job, error) {
	var err error
	// GNU parallel: no values at all is no jobs; an empty source beside
	// others gives one empty value.
	if !slices.ContainsFunc(vals, func(v []value) bool { return len(v) > 0 }) {
		return nil, nil
	}
	for i, v := range vals {
		if len(v) == 0 {
			vals[i] = []value{{cols: splitColumns(colsep, "", colTrim)}}
		}
	}
	recs := rows(sources, vals, in.Link, keepArgs)
	if in.NoArgs {
		// GNU: each value read becomes "\0noarg", a word that vanishes
		// from the command unless a replacement string changes it ({//}
		// gives "."), and counts nothing in its length here.
		for i, r := range recs {
			cols := make([]string, len(r.cols))
			for k := range cols {
				cols[k] = noArg
			}
			recs[i].cols = cols
		}
	}
	if in.Shuffle {
		rand.Shuffle(len(recs), func(i, j int) { recs[i], recs[j] = recs[j], recs[i] })
	}
	var files [][2]*template // each template file's name and content
	for _, tf := range in.Templates {
		name, err := compileText(tf.Name, syn, tmpl.slotWidth)
		if err != nil {
			return nil, err
		}
		content, err := compileText(tf.Content, syn, tmpl.slotWidth)
		if err != nil {
			return nil, err
		}
		files = append(files, [2]*template{name, content})
	}
	extra := []*template{tag, res}
	if in.Bar {
		// GNU: $replacecount{""} ||= 1, a {} of its own.
		extra = append(extra, &template{words: [][]piece{{{kind: 'a'}}}})
	}
	for _, f := range files {
		extra = append(extra, f[0], f[1])
	}
	lm := newCmdLen(tmpl, extra...)
	var groups [][]record
	if in.NoArgs || in.MaxArgs > 1 || in.Fill {
		if groups, err = in.group(lm, recs); err != nil {
			return nil, err
		}
	}
	total := len(recs)
	if groups != nil {
		total = len(groups)
	}
	ids := in.headerIDs(sources, syn)
	names := in.argNames(sources, vals, ids)
	jobs := make([]runner.Job, 0, total)
	for n := range total {
		g := recs[n : n+1]
		if groups != nil {
			g = groups[n]
		}
		row := g[0].cols
		if len(g) > 1 {
			row = nil
			for _, r := range g {
				row = append(row, r.cols...)
			}
		}
		j := tmpl.job(row, len(jobs)+1, cmp.Or(in.TotalJobs, total))
		if groups == nil && len(g) == 1 && lm.mayReach(j.Command, row, in.maxLenBound()) {
			// GNU: "Command line too long", and nothing is run.
			if n, _ := lm.job(j.Seq, total).with(g[0]); n >= in.maxLen() {
				return nil, tooLong(n, in.maxLen(), j.Seq, g[0])
			}
		}
		st := jobio.Of(j)
		if keepArgs {
			x := st.GNU
			if x == nil {
				x = &jobio.GNU{}
			}
			for _, r := range g {
				if colsep != nil || in.CSV || in.NoArgs {
					// GNU: --results names and saves the columns, each
					// by its number or --header name, as read (not
					// trimmed; -N 0: GNU's "\0noarg" for each).
					cols := r.cols
					if !in.NoArgs {
						cols = nil
						for _, o := range r.origs {
							c, _ := in.columns(colsep, o, "n") // split once already
							cols = append(cols, c...)
						}
					}
					x.Args = append(x.Args, cols...)
					for k := range cols {
						x.ArgNames = append(x.ArgNames, cmp.Or(ids[k+1], strconv.Itoa(k+1)))
					}
					continue
				}
				x.Args = append(x.Args, r.origs...)
				for i := range r.origs {
					x.ArgNames = append(x.ArgNames, names[i%len(names)])
				}
			}
			if tag != nil {
				x.Tag, x.TagParts, x.TagWidths = slotted(tag.expand(row, j.Seq, total))
			}
			if res != nil {
				x.Results, x.ResParts, x.ResWidths = slotted(res.expand(row, j.Seq, total))
			}
			st.GNU = x
		}
		if len(files) > 0 {
			if st.GNU == nil {
				st.GNU = &jobio.GNU{}
			}
			for _, f := range files {
				var ff jobio.FilledFile
				ff.NameParts, ff.NameWidths = f[0].expand(row, j.Seq, total)
				ff.ContentParts, ff.ContentWidths = f[1].expand(row, j.Seq, total)
				st.GNU.Templates = append(st.GNU.Templates, ff)
			}
		}
		jobs = append(jobs, with(j, st))
	}
	return jobs, nil
}

// argNames names each source for the arguments --tag and --results keep:
// its number from 1, or its --header column's name.
func (in Input) argNames(sources []Source, vals [][]value, ids map[int]string) []string {
	names := make([]string, len(sources))
	for i := range names {
		names[i] = cmp.Or(ids[columnsBefore(vals[:i])+1], strconv.Itoa(i+1))
	}
	return names
}

// headerIDs is GNU parallel's input_source_header: the names --results
// gives the columns. With --header, each column's name in the first
// line; then (any --header) the sources read from files over columns 1,
// 2, ... in turn, by the name given to -a or ::::. GNU counts only those
// sources there, so a file source after ::: values names a column of
// another source: its quirk, kept.
func (in Input) headerIDs(sources []Source, syn rplSyntax) map[int]string {
	ids := map[int]string{}
	if !in.Header && !in.HeaderFiles {
		return ids
	}
	if in.Header {
		for n, pos := range syn.names {
			if old, dup := ids[pos]; !dup || n < old {
				ids[pos] = n
			}
		}
	}
	id := 1
	for _, src := range sources {
		if src.File != "" {
			ids[id] = src.File
			id++
		}
	}
	return ids
}

// group cuts the records into jobs: one record each, or as many as
// MaxArgs, Fill and MaxLen allow by GNU parallel's reckoning of the length
// (gnulen.go), spread at the end as GNU parallel's populate does for -m
// and -X.
func (in Input) group(lm *cmdLen, recs []record) ([][]record, error) {
	if (in.NoArgs || in.MaxArgs <= 1) && !in.Fill {
		// One record each (-N 0 with -m, -X or --xargs fills a job
		// with records as GNU does, each one a vanishing value).
		groups := make([][]record, len(recs))
		for i := range recs {
			groups[i] = recs[i : i+1]
		}
		return groups, nil
	}
	maxLen := in.maxLen()
	limit := in.MaxArgs // 0: no cap but the length
	var groups [][]record
	spread := false
	for i := 0; i < len(recs); {
		k := 0
		j := lm.job(len(groups)+1, len(recs))
		for i+k < len(recs) {
			n, add := j.with(recs[i+k])
			if n >= maxLen {
				if k > 0 {
					break
				}
				return nil, tooLong(n, maxLen, i+1, recs[i])
			}
			j.push(recs[i+k], add)
			k++
			if limit > 0 && k >= limit {
				break
			}
		}
		if in.Spread > 1 && !spread && i+k == len(recs) {
			spread = true
			if k > 1 {
				limit = (k + in.Spread - 1) / in.Spread
				k = limit
			}
		}
		groups = append(groups, recs[i:i+k])
		i += k
	}
	return groups, nil
}

// weightedJobs reads one source of lines with a weight column.
func (in Input) weightedJobs(tmpl *template, colsep *byteRegexp, src Source) ([]runner.Job, error) {
	lines := src.Args
	if lines == nil {
		var err error
		if lines, err = readLines(src.Lines, src.Name); err != nil {
			return nil, err
		}
	}
	split := func(l string) []string { return strings.Split(l, "\t") }
	sep := "tab"
	if colsep != nil {
		split = func(l string) []string { return colsep.Split(l, -1) }
		sep = fmt.Sprintf("%q", in.ColSep)
	}
	var jobs []runner.Job
	for n, line := range lines {
		if strings.TrimSpace(line) == "" {
			continue
		}
		cols := split(line)
		k := in.WeightCol
		if k > len(cols) {
			return nil, fmt.Errorf("%w: %s: line %d: no weight column %d (the line has %d columns split by %s)", ErrBadInput, src.Name, n+1, k, len(cols), sep)
		}
		w, err := strconv.ParseFloat(strings.TrimSpace(cols[k-1]), 64)
		if err != nil || w < 0 || w != w || w > 1e300 {
			return nil, fmt.Errorf("%w: %s: line %d: weight column %d: %q is not a non-negative number", ErrBadInput, src.Name, n+1, k, cols[k-1])
		}
		cols = append(cols[:k-1:k-1], cols[k:]...)
		if len(cols) == 0 {
			return nil, fmt.Errorf("%w: %s: line %d: only a weight, no command", ErrBadInput, src.Name, n+1)
		}
		row := []string{strings.Join(cols, "\t")}
		if colsep != nil {
			row = cols
			for i, c := range row {
				row[i] = strings.Trim(c, " \t\n\r\f\v")
			}
		}
		j := tmpl.job(row, len(jobs)+1, len(lines))
		j.Weight = w
		jobs = append(jobs, j)
	}
	return jobs, nil
}
