package gnuinput

import (
	"cmp"
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/worksteal/worksteal/internal/jobio"
)

// columnsBefore is the number of columns the sources before one give a
// row: those of each one's first value.
func columnsBefore(vals [][]value) int {
	n := 0
	for _, v := range vals {
		if len(v) > 0 {
			n += len(v[0].cols)
		} else {
			n++
		}
	}
	return n
}

// trimSpace trims Perl's white space off v: "l" left, "r" right, "lr" or
// "rl" both, else none.
func trimSpace(v, mode string) string {
	const ws = " \t\n\r\f\v"
	switch mode {
	case "l":
		return strings.TrimLeft(v, ws)
	case "r":
		return strings.TrimRight(v, ws)
	case "lr", "rl":
		return strings.Trim(v, ws)
	}
	return v
}

func sourceName(s Source) string {
	if s.Name != "" {
		return s.Name
	}
	return ":::"
}

// headerNames splits the --header line into the columns' names: at
// colsep, or under CSV at --colsep (by default ",") as the regular
// expression it is, as GNU splits its header whatever --csv says.
func (in Input) headerNames(colsep *byteRegexp, line, trim string) ([]string, error) {
	if !in.CSV {
		return in.columns(colsep, line, trim)
	}
	re, err := compileBytes(cmp.Or(in.ColSep, ","))
	if err != nil {
		return nil, fmt.Errorf("%w: --colsep %q: %v", ErrBadInput, in.ColSep, err)
	}
	return splitColumns(re, line, trim), nil
}

// columns splits a value into its columns: as CSV (in.CSV), or at colsep.
func (in Input) columns(colsep *byteRegexp, v, trim string) ([]string, error) {
	if !in.CSV {
		return splitColumns(colsep, v, trim), nil
	}
	// GNU gives --colsep to Text::CSV as its sep_char, which separates
	// at the string's first byte ('::' is ':', '→' its first byte).
	sep := ","
	if in.ColSep != "" {
		sep = in.ColSep[:1]
	}
	cols, err := splitCSV(v, sep)
	for i, c := range cols {
		cols[i] = trimSpace(c, trim)
	}
	return cols, err
}

// splitColumns splits a value at colsep (nil: no split) into columns,
// trimmed as GNU parallel trims them (--trim lr, implied by --colsep,
// unless --trim says otherwise).
func splitColumns(colsep *byteRegexp, v, trim string) []string {
	if colsep == nil {
		return []string{v}
	}
	if v == "" {
		return []string{""}
	}
	cols := colsep.Split(v, -1)
	for i, c := range cols {
		cols[i] = trimSpace(c, trim)
	}
	return cols
}

// rows combines the sources' values into records: linked sources side by
// side (cut to the shortest, or, with link, every source wrapped to the
// longest), the groups so formed in every combination, the first varying
// slowest.
func rows(sources []Source, vals [][]value, link, origs bool) []record {
	type group []record // records of one group of linked sources
	var groups []group
	zip := func(members [][]value, wrap bool) group {
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
				v := m[i%len(m)]
				if len(members) == 1 {
					g[i].cols = v.cols // shared: never appended to in place
				} else {
					g[i].cols = append(g[i].cols, v.cols...)
				}
				if origs {
					orig := ""
					if v.orig != nil {
						orig = *v.orig
					}
					g[i].origs = append(g[i].origs, orig)
				}
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
	var out []record
	idx := make([]int, len(groups))
	for {
		var r record
		if len(groups) == 1 {
			r = groups[0][idx[0]]
		} else {
			for g, k := range idx {
				r.cols = append(r.cols, groups[g][k].cols...)
				r.origs = append(r.origs, groups[g][k].origs...)
			}
		}
		out = append(out, r)
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

// byteRegexp is a regular expression over bytes, as Perl's (GNU
// parallel's, which reads its input as bytes) for --colsep: \xff and a raw
// 0xFF byte both match the byte 0xFF, and UTF-8 text matches as the bytes
// it is. Pattern and value are read as Latin-1 (a byte, a rune) when
// either holds a byte above 0x7F; pure ASCII needs no translation.
type byteRegexp struct {
	re *regexp.Regexp
}

func compileBytes(pattern string) (*byteRegexp, error) {
	re, err := regexp.Compile(latin1(pattern))
	if err != nil {
		return nil, err
	}
	return &byteRegexp{re: re}, nil
}

// Split is regexp.Regexp.Split over the bytes of s.
func (b *byteRegexp) Split(s string, n int) []string {
	if isASCII(s) {
		return b.re.Split(s, n)
	}
	parts := b.re.Split(latin1(s), n)
	for i, p := range parts {
		parts[i] = fromLatin1(p)
	}
	return parts
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// latin1 reads each byte of s as the rune of its value.
func latin1(s string) string {
	if isASCII(s) {
		return s
	}
	r := make([]rune, len(s))
	for i := 0; i < len(s); i++ {
		r[i] = rune(s[i])
	}
	return string(r)
}

// fromLatin1 undoes latin1.
func fromLatin1(s string) string {
	b := make([]byte, 0, len(s))
	for _, r := range s {
		b = append(b, byte(r))
	}
	return string(b)
}

// readLines returns the lines of r, each without its "\n" (a "\r" before
// it is kept, as GNU parallel keeps it). An error names the source and the
// line.
func readLines(r io.Reader, name string) ([]string, error) {
	return readItems(r, name, "")
}

// readItems returns the items of r that end with delim ("": "\n"), each
// without its delimiter. An error names the source and the item.
func readItems(r io.Reader, name, delim string) ([]string, error) {
	lr := jobio.NewDelimReader(r, delim)
	var lines []string
	for {
		line, _, err := lr.Next()
		if err == io.EOF {
			return lines, nil
		}
		if err != nil {
			if lr.N == 0 {
				return nil, fmt.Errorf("%w: %s: %v", ErrBadInput, name, err)
			}
			return nil, fmt.Errorf("%w: %s: line %d: %v", ErrBadInput, name, lr.N, err)
		}
		lines = append(lines, string(line))
	}
}
