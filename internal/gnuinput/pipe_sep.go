package gnuinput

import (
	"bytes"
	"fmt"
	"regexp"

	"github.com/worksteal/worksteal/runner"
)

// This file finds where a --pipe stream is cut into records, by literal
// separators or, with Pipe.Regexp, by regular expressions (GNU parallel's
// --regexp), and removes the separators from a chunk (--remove-rec-sep).
// The regular expressions follow GNU's (20221122) Perl ones: each is
// named beside its Go form.

// cutter finds the cuts between records. Its regular expressions are nil
// unless Pipe.Regexp.
type cutter struct {
	sep    []byte // recend + recstart (literal)
	endLen int    // len(recend) (literal)
	// bound matches recend followed by recstart, group 1 the recend;
	// start matches recstart at the start; last is GNU's pass_regexp
	// /^((?s:.)*$recend)$recstart/m.
	bound, start, last *regexp.Regexp
}

// cutter returns the cutter of p's separators.
func (p Pipe) cutter() (cutter, error) {
	rs, re := p.seps()
	if !p.Regexp {
		return cutter{sep: []byte(re + rs), endLen: len(re)}, nil
	}
	rs, re = p.regexpSeps()
	var c cutter
	var err error
	for _, x := range []struct {
		dst  **regexp.Regexp
		expr string
	}{
		{&c.bound, `(?m)(` + re + `)` + rs},
		{&c.start, `(?m)\A` + rs},
		{&c.last, `(?m)\A((?s:.)*` + re + `)` + rs},
	} {
		if *x.dst, err = regexp.Compile(x.expr); err != nil {
			return c, fmt.Errorf("%w: --recstart %q, --recend %q: %v", runner.ErrInvalidConfig, p.RecStart, p.RecEnd, err)
		}
	}
	return c, nil
}

// regexpSeps returns the separators as GNU's --regexp takes them: each a
// group of its own; an empty --recend alone is any one character.
func (p Pipe) regexpSeps() (rs, re string) {
	rs, re = p.seps()
	if p.Binary || (re == "" && rs == "") {
		re = `(?s:.)`
	}
	return `(?:` + rs + `)`, `(?:` + re + `)`
}

// lastCut is where the chunk of buf ends when more input follows: after
// the last recend that recstart follows; -1 if none (or at 0).
func (c cutter) lastCut(buf []byte) int {
	if c.last == nil {
		i := bytes.LastIndex(buf, c.sep)
		if i < 0 || i+c.endLen == 0 {
			return -1
		}
		return i + c.endLen
	}
	m := c.last.FindSubmatchIndex(buf)
	if m == nil || m[3] == 0 {
		return -1
	}
	return m[3]
}

// nthCut is where n records of buf end: -1 if buf holds fewer (the n-th
// must be followed by recstart). GNU's pass_n, and pass_n_regexps'
// /^((?:$recstart(?:(?!$recend$recstart).)*?$recend){n})(?=$recstart)/m.
func (c cutter) nthCut(buf []byte, n int) int {
	if c.bound == nil {
		i := nthIndex(buf, c.sep, n)
		if i < 0 {
			return -1
		}
		return i + c.endLen
	}
	p := 0
	for range n {
		s := c.start.FindIndex(buf[p:])
		if s == nil {
			return -1
		}
		q := p + s[1]
		m := c.bound.FindSubmatchIndex(buf[q:])
		if m == nil {
			return -1
		}
		p = q + m[3]
	}
	if p == 0 {
		return -1
	}
	return p
}

// garbageCut is, under --regexp with -N, where what comes before the
// first record ends when the input does not start with recstart (GNU
// passes it as a chunk of its own); -1 if nothing does.
func (c cutter) garbageCut(buf []byte) int {
	if c.bound == nil || c.start.Match(buf) {
		return -1
	}
	m := c.bound.FindSubmatchIndex(buf)
	if m == nil || m[3] == 0 {
		return -1
	}
	return m[3]
}

// recRemover removes the record separators of a chunk, as GNU's
// remove_rec_sep: every recend+recstart (s/$recend$recstart//gm), a
// recstart at the start (s/^$recstart//s) and the first recend at the end
// or before a last newline (s/$recend$//s: Perl's $).
type recRemover struct {
	both, start, end *regexp.Regexp
}

func (p Pipe) recRemover() (*recRemover, error) {
	if !p.RemoveRecSep {
		return nil, nil
	}
	rs, re := p.seps()
	if p.Regexp {
		rs, re = p.regexpSeps()
	} else {
		rs, re = `(?:`+regexp.QuoteMeta(rs)+`)`, `(?:`+regexp.QuoteMeta(re)+`)`
	}
	var r recRemover
	var err error
	for _, x := range []struct {
		dst  **regexp.Regexp
		expr string
	}{
		{&r.both, `(?m)` + re + rs},
		{&r.start, `(?s)\A` + rs},
		{&r.end, `(?s)(` + re + `)\n?\z`},
	} {
		if *x.dst, err = regexp.Compile(x.expr); err != nil {
			return nil, fmt.Errorf("%w: --recstart %q, --recend %q: %v", runner.ErrInvalidConfig, p.RecStart, p.RecEnd, err)
		}
	}
	return &r, nil
}

// remove returns b without its separators (b itself when there are none).
func (r *recRemover) remove(b []byte) []byte {
	if r == nil {
		return b
	}
	b = r.both.ReplaceAll(b, nil)
	if loc := r.start.FindIndex(b); loc != nil && loc[1] > 0 {
		b = b[loc[1]:]
	}
	if m := r.end.FindSubmatchIndex(b); m != nil && m[3] > m[2] {
		b = append(b[:m[2]:m[2]], b[m[3]:]...)
	}
	return b
}
