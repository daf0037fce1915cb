package runner

import (
	"bufio"
	"fmt"
	"io"
	"path"
	"regexp"
	"strconv"
	"strings"
)

// Job is one command of a batch.
type Job struct {
	// Seq is the job's 1-based position in the input. It names the job in
	// the joblog and orders the output under KeepOrder.
	Seq int
	// Command is the shell command line, run as Shell -c Command. A "{%}"
	// in a command made from a template is replaced by the slot number when
	// the job starts; the joblog keeps the unreplaced command, so that
	// --resume recognises the job whichever slot ran it.
	Command string
	// Weight is the job's estimated cost in any unit (bytes, seconds,
	// frames); 0 means unknown. Weights only order the jobs (longest first).
	Weight float64

	slotVar bool // Command holds a "{%}" to replace at start
}

// Input says where the jobs of a batch come from, the way GNU parallel and
// xargs read them.
//
//   - No Template: every line of Lines is one shell command.
//   - A Template: the command is Template with its placeholders filled from
//     one argument row per job. The rows are the cartesian product of
//     Sources (the ":::" groups of the command line, the first varying
//     slowest) or, with no Sources, the lines of Lines. With ColSep, a line
//     is split into columns, which fill {1}, {2}, ...
//
// Placeholders (GNU parallel's replacement strings): {} the argument (all
// values of the row, space-separated), {.} without its extension, {/} its
// base name, {//} its directory, {/.} base name without extension, {n} and
// {n.} {n/} {n//} {n/.} the n-th value of the row (1-based), {#} the job's
// sequence number, {%} the slot it runs in. Values are shell-quoted when they
// need it. A template with no argument placeholder gets " {}" appended, as
// in xargs. Braces that are not a placeholder ({print $1}, ${HOME}) are kept
// as they are.
//
// Blank lines are skipped; a trailing "\r" is removed.
type Input struct {
	Template []string   // command words, joined by spaces; nil: one command per line
	Sources  [][]string // argument groups (":::" or "::::" file lines)
	Lines    io.Reader  // input lines, when there are no Sources
	// ColSep splits each input line into columns (GNU parallel --colsep).
	// Empty means no split, except that WeightCol splits on a tab.
	ColSep string
	// WeightCol, if positive, is the 1-based column of each input line that
	// holds the job's weight (a non-negative number). The column is removed
	// from the line: the rest is the command (without Template) or the
	// argument row (with one).
	WeightCol int
}

// placeholder matches one replacement string: {}, {.}, {/}, {//}, {/.},
// {#}, {%}, {n}, {n.}, {n/}, {n//}, {n/.}.
var placeholder = regexp.MustCompile(`\{([0-9]*)(\.|/|//|/\.|#|%)?\}`)

// Jobs reads the input and returns its jobs, numbered from 1 in input order.
// An error wraps ErrBadInput and names the line (or argument) at fault.
func (in Input) Jobs() ([]Job, error) {
	if in.WeightCol < 0 {
		return nil, fmt.Errorf("%w: weight column %d: must be 1 or more", ErrInvalidConfig, in.WeightCol)
	}
	tmpl := strings.TrimSpace(strings.Join(in.Template, " "))
	if len(in.Template) > 0 && tmpl == "" {
		return nil, fmt.Errorf("%w: empty command template", ErrBadInput)
	}
	if tmpl != "" && !hasArgPlaceholder(tmpl) {
		tmpl += " {}"
	}
	if len(in.Sources) > 0 {
		if tmpl == "" {
			return nil, fmt.Errorf("%w: arguments after ::: need a command template", ErrBadInput)
		}
		if in.WeightCol > 0 {
			return nil, fmt.Errorf("%w: a weight column needs input lines, not ::: arguments", ErrBadInput)
		}
		var jobs []Job
		err := product(in.Sources, func(row []string) error {
			j, err := expand(tmpl, row, len(jobs)+1)
			if err != nil {
				return fmt.Errorf("%w: arguments %q: %v", ErrBadInput, row, err)
			}
			jobs = append(jobs, j)
			return nil
		})
		return jobs, err
	}
	if in.Lines == nil {
		return nil, nil
	}
	sep := in.ColSep
	if sep == "" && in.WeightCol > 0 {
		sep = "\t"
	}
	var jobs []Job
	sc := bufio.NewScanner(in.Lines)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSuffix(sc.Text(), "\r")
		if strings.TrimSpace(line) == "" {
			continue
		}
		row := []string{line}
		if sep != "" {
			row = strings.Split(line, sep)
		}
		var weight float64
		if k := in.WeightCol; k > 0 {
			if k > len(row) {
				return nil, fmt.Errorf("%w: line %d: no weight column %d (the line has %d columns split by %q)", ErrBadInput, n, k, len(row), sep)
			}
			w, err := strconv.ParseFloat(strings.TrimSpace(row[k-1]), 64)
			if err != nil || w < 0 || w != w || w > 1e300 {
				return nil, fmt.Errorf("%w: line %d: weight column %d: %q is not a non-negative number", ErrBadInput, n, k, row[k-1])
			}
			weight = w
			row = append(row[:k-1:k-1], row[k:]...)
			if len(row) == 0 {
				return nil, fmt.Errorf("%w: line %d: only a weight, no command", ErrBadInput, n)
			}
		}
		var j Job
		if tmpl == "" {
			j = Job{Seq: len(jobs) + 1, Command: strings.Join(row, sep)}
			if strings.TrimSpace(j.Command) == "" {
				return nil, fmt.Errorf("%w: line %d: empty command", ErrBadInput, n)
			}
		} else {
			var err error
			if j, err = expand(tmpl, row, len(jobs)+1); err != nil {
				return nil, fmt.Errorf("%w: line %d: %v", ErrBadInput, n, err)
			}
		}
		j.Weight = weight
		jobs = append(jobs, j)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%w: reading input: %v", ErrBadInput, err)
	}
	return jobs, nil
}

// product calls f with every row of the cartesian product of groups, the
// first group varying slowest (GNU parallel's order).
func product(groups [][]string, f func(row []string) error) error {
	for i, g := range groups {
		if len(g) == 0 {
			return fmt.Errorf("%w: argument group %d is empty", ErrBadInput, i+1)
		}
	}
	idx := make([]int, len(groups))
	row := make([]string, len(groups))
	for {
		for i, g := range groups {
			row[i] = g[idx[i]]
		}
		if err := f(append([]string(nil), row...)); err != nil {
			return err
		}
		i := len(groups) - 1
		for ; i >= 0; i-- {
			idx[i]++
			if idx[i] < len(groups[i]) {
				break
			}
			idx[i] = 0
		}
		if i < 0 {
			return nil
		}
	}
}

func hasArgPlaceholder(tmpl string) bool {
	for _, m := range placeholder.FindAllStringSubmatch(tmpl, -1) {
		if m[2] != "#" && m[2] != "%" {
			return true
		}
	}
	return false
}

// expand fills tmpl's placeholders from row for job seq.
func expand(tmpl string, row []string, seq int) (Job, error) {
	j := Job{Seq: seq}
	var err error
	j.Command = placeholder.ReplaceAllStringFunc(tmpl, func(m string) string {
		sub := placeholder.FindStringSubmatch(m)
		num, mod := sub[1], sub[2]
		if mod == "#" || mod == "%" {
			if num != "" {
				return m // {1#} means nothing: keep it
			}
			if mod == "#" {
				return strconv.Itoa(seq)
			}
			j.slotVar = true
			return m
		}
		v := strings.Join(row, " ")
		if num != "" {
			n, _ := strconv.Atoi(num)
			if n < 1 || n > len(row) {
				if err == nil {
					err = fmt.Errorf("placeholder %s but the row has %d value(s)", m, len(row))
				}
				return m
			}
			v = row[n-1]
		}
		return ShellQuote(modify(v, mod))
	})
	return j, err
}

// modify applies a placeholder's modifier to a value.
func modify(v, mod string) string {
	switch mod {
	case ".":
		return noExt(v)
	case "/":
		return path.Base(v)
	case "//":
		return path.Dir(v)
	case "/.":
		return noExt(path.Base(v))
	}
	return v
}

// noExt removes the extension of the last path element: "a/b.tar.gz" →
// "a/b.tar", "a.b/c" → "a.b/c".
func noExt(v string) string {
	slash := strings.LastIndexByte(v, '/')
	dot := strings.LastIndexByte(v, '.')
	if dot > slash+1 {
		return v[:dot]
	}
	return v
}

// safeWord matches strings the shell takes literally.
var safeWord = regexp.MustCompile(`^[A-Za-z0-9_./:=@%+,-]+$`)

// ShellQuote quotes s for a POSIX shell when it needs it, in single
// quotes (a quote inside becomes quote, backslash, quote, quote): a.txt
// stays as it is, and my file becomes 'my file'.
func ShellQuote(s string) string {
	if safeWord.MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
