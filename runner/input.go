package runner

import (
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Job is one command of a batch.
type Job struct {
	// Seq is the job's 1-based position in the input. It names the job in
	// the joblog, orders the output under KeepOrder, and is what --resume
	// matches (as GNU parallel does).
	Seq int
	// Command is the shell command line, run as Shell -c Command. In a
	// command made from a template holding {%}, Command shows "{%}" where
	// the slot number goes when the job starts (see CommandIn).
	Command string
	// Weight is the job's estimated cost in any unit (bytes, seconds,
	// frames); 0 means unknown. Weights only order the jobs (longest first).
	Weight float64
	// Stdin is what the job reads on its standard input (a chunk of GNU
	// parallel's --pipe); nil: nothing, the job's stdin is empty.
	Stdin []byte

	slotParts []string  // the command cut at each {%} of its template; nil if none
	in        *jobInput // how the job gets its input when not Stdin (pipe.go); nil if so
}

// CommandIn returns the command as run in slot: Command with each {%} of
// the template filled in (an argument that reads "{%}" is left alone).
func (j Job) CommandIn(slot int) string {
	if j.slotParts == nil {
		return j.Command
	}
	return strings.Join(j.slotParts, strconv.Itoa(slot))
}

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
}

// Jobs reads the input and returns its jobs, numbered from 1 in input order.
// An error wraps ErrBadInput and names the source and line at fault.
func (in Input) Jobs() ([]Job, error) {
	if in.WeightCol < 0 {
		return nil, fmt.Errorf("%w: weight column %d: must be 1 or more", ErrInvalidConfig, in.WeightCol)
	}
	if len(in.Template) > 0 && strings.TrimSpace(strings.Join(in.Template, " ")) == "" {
		return nil, fmt.Errorf("%w: empty command template", ErrBadInput)
	}
	tmpl, err := compileTemplate(in.Template, in.Quote)
	if err != nil {
		return nil, err
	}
	var colsep *regexp.Regexp
	if in.ColSep != "" {
		if colsep, err = regexp.Compile(in.ColSep); err != nil {
			return nil, fmt.Errorf("%w: --colsep %q: %v", ErrBadInput, in.ColSep, err)
		}
	}
	sources := in.Sources
	if len(sources) == 0 {
		if in.Lines == nil {
			return nil, nil
		}
		sources = []Source{{Name: "input", Lines: in.Lines}}
	}
	if in.WeightCol > 0 {
		if len(sources) != 1 || sources[0].Args != nil {
			return nil, fmt.Errorf("%w: a weight column needs one source of input lines, not ::: arguments", ErrBadInput)
		}
		return in.weightedJobs(tmpl, colsep, sources[0])
	}
	// Each source's values, each value already split into its columns.
	vals := make([][][]string, len(sources))
	for i, src := range sources {
		var lines []string
		if src.Args == nil {
			if lines, err = readLines(src.Lines, src.Name); err != nil {
				return nil, err
			}
		} else {
			for _, a := range src.Args {
				if strings.IndexByte(a, 0) >= 0 {
					return nil, fmt.Errorf("%w: %s argument %q: %v", ErrBadInput, sourceName(src), a, errNUL)
				}
				lines = append(lines, strings.Split(a, "\n")...)
			}
		}
		vals[i] = make([][]string, len(lines))
		for k, l := range lines {
			vals[i][k] = splitColumns(colsep, l)
		}
	}
	// GNU parallel: no values at all is no jobs; an empty source beside
	// others gives one empty value.
	if !slices.ContainsFunc(vals, func(v [][]string) bool { return len(v) > 0 }) {
		return nil, nil
	}
	for i, v := range vals {
		if len(v) == 0 {
			vals[i] = [][]string{splitColumns(colsep, "")}
		}
	}
	var jobs []Job
	for _, row := range rows(sources, vals, in.Link) {
		jobs = append(jobs, tmpl.job(row, len(jobs)+1))
	}
	return jobs, nil
}

func sourceName(s Source) string {
	if s.Name != "" {
		return s.Name
	}
	return ":::"
}

// splitColumns splits a value at colsep (nil: no split) into columns,
// trimmed as GNU parallel trims them (--trim lr, implied by --colsep).
func splitColumns(colsep *regexp.Regexp, v string) []string {
	if colsep == nil {
		return []string{v}
	}
	if v == "" {
		return []string{""}
	}
	cols := colsep.Split(v, -1)
	for i, c := range cols {
		cols[i] = strings.Trim(c, " \t\n\r\f\v")
	}
	return cols
}

// rows combines the sources' values into argument rows: linked sources
// side by side (cut to the shortest, or, with link, every source wrapped
// to the longest), the groups so formed in every combination, the first
// varying slowest.
func rows(sources []Source, vals [][][]string, link bool) [][]string {
	type group [][]string // rows of one group of linked sources
	var groups []group
	zip := func(members [][][]string, wrap bool) group {
		n := len(members[0])
		for _, m := range members {
			if wrap {
				n = max(n, len(m))
			} else {
				n = min(n, len(m))
			}
		}
		g := make(group, n)
		for i := range g {
			for _, m := range members {
				g[i] = append(g[i], m[i%len(m)]...)
			}
		}
		return g
	}
	if link {
		groups = append(groups, zip(vals, true))
	} else {
		for i := 0; i < len(sources); {
			j := i + 1
			for j < len(sources) && sources[j].Linked {
				j++
			}
			groups = append(groups, zip(vals[i:j], false))
			i = j
		}
	}
	var out [][]string
	idx := make([]int, len(groups))
	for {
		var row []string
		for g, k := range idx {
			row = append(row, groups[g][k]...)
		}
		out = append(out, row)
		g := len(groups) - 1
		for ; g >= 0; g-- {
			idx[g]++
			if idx[g] < len(groups[g]) {
				break
			}
			idx[g] = 0
		}
		if g < 0 {
			return out
		}
	}
}

// weightedJobs reads one source of lines with a weight column.
func (in Input) weightedJobs(tmpl *template, colsep *regexp.Regexp, src Source) ([]Job, error) {
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
	var jobs []Job
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
		j := tmpl.job(row, len(jobs)+1)
		j.Weight = w
		jobs = append(jobs, j)
	}
	return jobs, nil
}
