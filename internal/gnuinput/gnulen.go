package gnuinput

import (
	"fmt"
	"strconv"
	"strings"
)

// This file is GNU parallel's reckoning of a command line's length
// (CommandLine::len, 20221122), which decides where -X, -m, -N, -n and
// -L cut the records into jobs under -s (--max-chars), and when a
// command line is too long. It is a model, not the length of the filled
// command, and GNU packs by it, so worksteal counts the same way:
//
//   - The command's words are cut into context groups: each run of
//     non-white-space holding a replacement string (Perl's \S*\000\S*,
//     taken out of the word one after the other), whatever the word.
//     The text outside them, plus one for each space between the words
//     (the number of words less one), is counted once.
//   - Each replacement string adds, for each record in the job, the
//     length of what it gives (quoted as it will be): {} of each value of
//     the record, {n} of the n-th.
//   - Under context replace (-X, -N, -L), the context groups' own text
//     counts once per value, and one space per group for each value after
//     the first. Otherwise the groups' text counts once, and each
//     replacement string one space for each value after the first.
//   - Values are the records' columns: a job of k records of c columns
//     has k·c values, c taken from its first record.
//   - The replacement strings of --tagstring (--tag is {}) and of
//     --results count too, once each, when the command does not hold the
//     same string; when the command holds none, the {} appended to it
//     counts beside them (so --tag with a plain command counts {} twice).
//   - -q triples the total.

// cmdLen is the part of GNU's reckoning that the template fixes.
type cmdLen struct {
	t       *template
	fixed   int     // the text outside context groups, and a space between words
	context int     // the text of the context groups, without their replacement strings
	groups  int     // the number of context groups
	rpls    []piece // the replacement strings counted, as often as GNU counts them
}

// newCmdLen reads t (and the --tagstring and --results templates, nil
// when not given) as GNU counts them.
func newCmdLen(t *template, extra ...*template) *cmdLen {
	m := &cmdLen{t: t, fixed: len(t.words) - 1}
	seen := map[string]bool{}
	for i, w := range t.words {
		text := make([]byte, 0, 16)
		for _, p := range w {
			if p.kind == 0 {
				text = append(text, p.lit...)
				continue
			}
			text = append(text, 0)
			m.rpls = append(m.rpls, p)
			if !(t.appended && i == len(t.words)-1) {
				seen[p.key()] = true
			}
		}
		// GNU: while($c =~ s/(\S*\000\S*)//s) — each group taken out,
		// the rest is outside the groups.
		for {
			nul := indexByte(text, 0)
			if nul < 0 {
				break
			}
			start, end := nul, nul+1
			for start > 0 && !perlSpace(text[start-1]) {
				start--
			}
			for end < len(text) && !perlSpace(text[end]) {
				end++
			}
			for _, c := range text[start:end] {
				if c != 0 {
					m.context++
				}
			}
			m.groups++
			text = append(text[:start], text[end:]...)
		}
		m.fixed += len(text)
	}
	for _, x := range extra {
		if x == nil {
			continue
		}
		for _, w := range x.words {
			for _, p := range w {
				if p.kind != 0 && !seen[p.key()] {
					seen[p.key()] = true
					m.rpls = append(m.rpls, p)
				}
			}
		}
	}
	return m
}

func indexByte(b []byte, c byte) int {
	for i, x := range b {
		if x == c {
			return i
		}
	}
	return -1
}

// valueLen is the length GNU counts for value v of a command line: the
// length value gives, but GNU's "\0noarg" (-N 0) counts its own bytes,
// quoted as the values are, though it vanishes from the command.
func (t *template) valueLen(v string, p piece) int {
	s := t.value(v, p)
	if v == noArg && s == "" {
		if t.quoteArgs {
			return len(noArg) + 2 // '\0noarg'
		}
		return len(noArg)
	}
	return len(s)
}

// perlSpace is Perl's \s over bytes.
func perlSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

// blank is Perl's /^\s*$/ over bytes: a value of white space only.
func blank(s string) bool {
	for i := range len(s) {
		if !perlSpace(s[i]) {
			return false
		}
	}
	return true
}

// key names what a replacement string gives: two strings of the same key
// are the same string to GNU (its %replacecount).
func (p piece) key() string {
	return fmt.Sprintf("%c %d %s %c %s", p.kind, p.pos, p.mod, p.skip, p.expr)
}

// jobLen is GNU's length of one job being filled with records.
type jobLen struct {
	m      *cmdLen
	seq    int   // the job's number, for {#}
	total  int   // the jobs in all, as far as known, for {##} and {0#}
	recs   int   // records so far
	values int   // values per record (the first record's columns)
	rpl    []int // per replacement string, the length of what it gives so far
}

func (m *cmdLen) job(seq, total int) *jobLen {
	return &jobLen{m: m, seq: seq, total: total, rpl: make([]int, len(m.rpls))}
}

// with returns the job's length with r added: n, the lengths of its
// replacement strings, and the record's value count.
func (j *jobLen) with(r record) (n int, add []int) {
	add = make([]int, len(j.rpl))
	t := j.m.t
	for i, p := range j.m.rpls {
		add[i] = j.rpl[i]
		if len(r.cols) == 0 {
			continue
		}
		switch p.kind {
		case 'a':
			if p.pos == 0 {
				for _, v := range r.cols {
					add[i] += t.valueLen(v, p)
				}
			} else if k := perlIndex(len(r.cols), p.pos); k >= 0 {
				add[i] += t.valueLen(r.cols[k], p)
			}
		case '#':
			add[i] += len(strconv.Itoa(j.seq))
		case '%':
			add[i]++ // the slot: a digit while the slots are under ten
		case 'T':
			add[i] += len(strconv.Itoa(j.total))
		case 'S':
			add[i] += digits(j.total)
		case 'P':
			add[i] += t.slotWidth
		}
	}
	values := j.values
	if j.recs == 0 {
		values = len(r.cols)
	}
	k := (j.recs + 1) * values // GNU's number_of_recargs
	m := j.m
	if t.context {
		n = m.fixed + k*m.context + (k-1)*m.groups
		for _, l := range add {
			n += l
		}
	} else {
		n = m.fixed + m.context
		for _, l := range add {
			n += k - 1 + l
		}
	}
	if t.quoteWords {
		n *= 3 // GNU: "pessimistic length if -q is set"
	}
	return n, add
}

// push adds r, with the lengths with returned.
func (j *jobLen) push(r record, add []int) {
	if j.recs == 0 {
		j.values = len(r.cols)
	}
	j.recs++
	j.rpl = add
}

// perlIndex is Perl's $record->[pos-1] (pos > 0) or $record->[pos]: the
// index, or -1 past either end.
func perlIndex(n, pos int) int {
	i := pos - 1
	if pos < 0 {
		i = n + pos
	}
	if i < 0 || i >= n {
		return -1
	}
	return i
}

// mayReach says a one-record job of row, filled as command, may be
// reckoned maxLen or more: GNU's reckoning is at most three times the
// command and, per replacement string, each value quoted (at most four
// times its length and two) and a space. Only such a job is reckoned.
func (m *cmdLen) mayReach(command string, row []string, maxLen int) bool {
	bound := 0
	for _, v := range row {
		bound += 4*len(v) + 3
	}
	return 3*(len(command)+len(m.rpls)*bound) >= maxLen
}

// tooLong is GNU's error for a record that alone makes the command too
// long.
func tooLong(n, maxLen, input int, r record) error {
	return fmt.Errorf("%w: command line too long (%d >= %d bytes) at input %d: %.50q", ErrBadInput, n, maxLen, input, strings.Join(r.cols, " "))
}
