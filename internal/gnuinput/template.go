package gnuinput

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/worksteal/worksteal/internal/jobio"
	"github.com/worksteal/worksteal/runner"
)

// This file turns a command template and one row of arguments into a
// command line, as GNU parallel (20221122) does. The rules, from its
// source, that a user can see:
//
//   - Replacement strings: {} {.} {/} {//} {/.} take every argument of the
//     row, each modified and quoted on its own, joined by spaces; {n} {n.}
//     {n/} {n//} {n/.} take the n-th (from 1; -1 is the last); {#} is the
//     job's sequence number, {%} its slot. A position past the row gives
//     nothing (not even quotes), and {0} is {} (Perl's truth of "0" in
//     GNU's "if($1)"; {00} and {-0} are past the row).
//   - A template with no replacement string gets " {}" appended; an empty
//     template is "{}" (the arguments are the command).
//   - Values are shell-quoted, unless a replacement string is part of the
//     first word of the command (the text before the first space, tab,
//     newline or "="): then nothing is quoted, so that "{}" or "l{}" run
//     the argument as a command.
//   - With Quote (GNU's -q) each word of the template is quoted whole once
//     filled, and the values are not quoted on their own.

// candRE matches the text that may be a replacement string: braces around
// anything but braces. What is inside decides (parseRpl); braces that are
// not a replacement string are text.
var candRE = regexp.MustCompile(`\{[^{}]*\}`)

// coreRE is the inside of GNU's own replacement strings: an optional
// position (which may be followed by white space: {1 }, {2 .}, as GNU's
// /\{(-?\d+)\s*.../x) and an optional modifier.
var coreRE = regexp.MustCompile(`^(?:(-?[0-9]+)[ \t\n\r\f\v]*)?(\.|/|//|/\.)?$`)

// perlRplRE matches GNU's {= perl expression =}, which is not supported.
var perlRplRE = regexp.MustCompile(`\{=.*?=\}`)

// piece is literal text or one replacement string of a template word.
type piece struct {
	lit  string
	kind byte // 0: literal, 'a': argument(s), '#': sequence, '%': slot, 'T': total jobs ({##}), 'S': padded sequence ({0#}), 'P': padded slot ({0%})
	pos  int  // 'a': 1-based position, negative from the end; 0 every argument
	mod  string
	fn   func(string) string // 'a': a --plus expression applied after mod; nil if none
	expr string              // the text of fn's expression (piece.key)
	skip byte                // 'a': 'u' {uniq}, 'c' {choose_k}: the job may be skipped (template.skips)
}

// context says p stands for every argument (no position): the word that
// holds it is repeated for each argument under context replace (-X).
func (p piece) context() bool { return p.kind == 'a' && p.pos == 0 }

// template is a compiled command template.
type template struct {
	words      [][]piece // the template's words, each a list of pieces
	quoteArgs  bool      // values are shell-quoted
	quoteWords bool      // -q: each filled word is quoted whole
	context    bool      // -X: a word holding {} is repeated for each argument
	slot       bool      // the template holds {%} or {0%}
	slotWidth  int       // digits of {0%}
	appended   bool      // the template had no replacement string: {} was appended
	uniq       bool      // --plus {uniq}: skip a job whose values repeat
	chooseK    bool      // --plus {choose_k}: skip a job whose values do not rise strictly
	bare       bool      // {}'s values are joined with nothing (--template's text, as GNU fills it)
	tag        *template // pipe mode's --tag or --tagstring, filled as the command is
	res        *template // pipe mode's --results NAME with replacement strings
}

// rplSyntax says which replacement strings a template knows beyond GNU's
// own: --plus's, and the column names of --header.
type rplSyntax struct {
	// renamed maps the text that stands for a replacement string (GNU's
	// -I, --er, ...) to the inside of that string's own name, which is
	// then text (GNU's rpl() moves the definition); renamedRE finds
	// either kind of text, the names first.
	renamed   map[string]string
	renamedRE *regexp.Regexp
	plus      bool
	names     map[string]int   // column name → 1-based position
	user      map[string]piece // --rpl tags without their braces (rpl.go)
	perl      *regexp.Regexp   // a perl expression between --parens' delimiters; nil: {= =}
}

// withParens sets the delimiters of perl expressions to GNU's --parens
// parens: its halves (Perl's substr($p, 0, 0.5*length $p) and the rest).
func (syn rplSyntax) withParens(parens string) (rplSyntax, error) {
	if parens == "" {
		return syn, nil
	}
	if len(parens) < 2 {
		return syn, fmt.Errorf("%w: --parens %q: want the left and right delimiters of a perl expression, as {==}", ErrBadInput, parens)
	}
	l, r := parens[:len(parens)/2], parens[len(parens)/2:]
	// GNU matches the shortest pair: text that holds no delimiter
	// between them.
	syn.perl = regexp.MustCompile(regexp.QuoteMeta(l) + `(?s:.*?)` + regexp.QuoteMeta(r))
	return syn, nil
}

// compileTemplate parses the words of a command template. quote is GNU's
// -q.
func compileTemplate(words []string, quote bool, syn rplSyntax) (*template, error) {
	t := &template{quoteWords: quote}
	if len(words) == 0 {
		// GNU: no command is the arguments, by whatever text -I gave {}.
		words = []string{"{}"}
		for text, old := range syn.renamed {
			if old == "" {
				words = []string{text}
			}
		}
	}
	perl := perlRplRE
	if syn.perl != nil {
		perl = syn.perl
	}
	// GNU joins words while one holds a left delimiter without its right
	// (merge_rpl_parts): a perl expression may span words.
	if m := perl.FindString(strings.Join(words, " ")); m != "" {
		return nil, fmt.Errorf("%w: %s: perl expression replacement strings ({= ... =}) are not supported", ErrBadInput, m)
	}
	any := false
	for _, w := range words {
		if strings.IndexByte(w, 0) >= 0 {
			return nil, fmt.Errorf("%w: command template %q: %v", ErrBadInput, w, jobio.ErrNUL)
		}
		var ps []piece
		last := 0
		cands := candRE
		if syn.renamedRE != nil {
			cands = syn.renamedRE
		}
		for _, loc := range cands.FindAllStringIndex(w, -1) {
			p, ok, err := syn.parseCand(w[loc[0]:loc[1]])
			if err != nil {
				return nil, err
			}
			if !ok {
				continue
			}
			if loc[0] > last {
				ps = append(ps, piece{lit: w[last:loc[0]]})
			}
			last = loc[1]
			any = true
			if p.kind == '%' || p.kind == 'P' {
				t.slot = true
			}
			t.uniq = t.uniq || p.skip == 'u'
			t.chooseK = t.chooseK || p.skip == 'c'
			ps = append(ps, p)
		}
		if last < len(w) || len(ps) == 0 {
			ps = append(ps, piece{lit: w[last:]})
		}
		t.words = append(t.words, ps)
	}
	if !any {
		t.words = append(t.words, []piece{{kind: 'a'}})
		t.appended = true
	}
	t.quoteArgs = !quote && !rplInCommandWord(t.words)
	return t, nil
}

// withRenames gives the replacement strings named in renames (each the
// old name, as "{}" or "{.}", by its new text) their new text, as GNU's
// -I, --extensionreplace and the like: the old name is then text.
func (syn rplSyntax) withRenames(renames map[string]string) rplSyntax {
	if len(renames) == 0 {
		return syn
	}
	syn.renamed = map[string]string{}
	var keys []string
	for text, old := range renames {
		if text == old || text == "" {
			continue
		}
		syn.renamed[text] = old[1 : len(old)-1]
		keys = append(keys, regexp.QuoteMeta(text))
	}
	if len(keys) == 0 {
		return syn
	}
	slices.SortFunc(keys, func(a, b string) int { return len(b) - len(a) }) // the longest first
	syn.renamedRE = regexp.MustCompile(strings.Join(keys, "|") + "|" + candRE.String())
	return syn
}

// parseCand reads a candidate: a renamed replacement string's text, or
// braces, whose inside parse reads (text if it is a renamed string's old
// name).
//
// GNU makes the positional forms of each replacement string from its
// current text, after the renames: {n} from {}, {n.} from {.}, {nx} from
// -I {x}. So a renamed string's old positional forms are text too ({1}
// after -I {x}), and a new text without braces (-I %) has none.
func (syn rplSyntax) parseCand(c string) (piece, bool, error) {
	if old, ok := syn.renamed[c]; ok {
		return syn.parse(old)
	}
	in := c[1 : len(c)-1]
	if m := posRE.FindStringSubmatch(in); m != nil {
		if old, ok := syn.renamed["{"+m[2]+"}"]; ok {
			return syn.parse(m[1] + old)
		}
	}
	for _, old := range syn.renamed {
		if in == old {
			return piece{}, false, nil
		}
		if m := coreRE.FindStringSubmatch(in); m != nil && m[1] != "" && m[2] == old {
			return piece{}, false, nil
		}
	}
	return syn.parse(in)
}

// posRE cuts the inside of a positional replacement string: the position
// (with GNU's white space after it) and the rest.
var posRE = regexp.MustCompile(`^(-?[0-9]+[ \t\n\r\f\v]*)(.*)$`)

// parse reads the inside of a pair of braces: a replacement string, or
// false for text.
func (syn rplSyntax) parse(in string) (piece, bool, error) {
	if p, ok := syn.user[in]; ok {
		return p, true, nil
	}
	if m := plusPosRE.FindStringSubmatch(in); m != nil && m[2] != "" {
		if p, ok := syn.user[m[2]]; ok && p.kind == 'a' {
			p.pos = parsePos(m[1])
			return p, true, nil
		}
	}
	switch in {
	case "#":
		return piece{kind: '#'}, true, nil
	case "%":
		return piece{kind: '%'}, true, nil
	}
	if syn.plus {
		switch in {
		case "##":
			return piece{kind: 'T'}, true, nil
		case "0#":
			return piece{kind: 'S'}, true, nil
		case "0%":
			return piece{kind: 'P'}, true, nil
		}
	}
	if m := coreRE.FindStringSubmatch(in); m != nil {
		return piece{kind: 'a', pos: parsePos(m[1]), mod: m[2]}, true, nil
	}
	if pos, ok := syn.names[in]; ok {
		return piece{kind: 'a', pos: pos}, true, nil
	}
	for _, mod := range []string{"/.", "//", ".", "/"} {
		if pos, ok := syn.names[strings.TrimSuffix(in, mod)]; ok && strings.HasSuffix(in, mod) {
			return piece{kind: 'a', pos: pos, mod: mod}, true, nil
		}
	}
	if !syn.plus {
		return piece{}, false, nil
	}
	// --plus: an optional position, then one of its strings.
	pos, rest := 0, in
	if m := plusPosRE.FindStringSubmatch(in); m != nil && m[2] != "" {
		pos, rest = parsePos(m[1]), m[2]
	}
	if plusMods[rest] {
		return piece{kind: 'a', pos: pos, mod: rest}, true, nil
	}
	if rest == "uniq" || rest == "choose_k" {
		// GNU: the value(s) as {} ({n}) gives them; the job is skipped
		// when its values repeat ({uniq}) or do not rise strictly, as
		// strings ({choose_k}). See template.skips.
		return piece{kind: 'a', pos: pos, skip: rest[0]}, true, nil
	}
	fn, ok, err := plusExpr(rest)
	if !ok || err != nil {
		return piece{}, false, err
	}
	return piece{kind: 'a', pos: pos, fn: fn, expr: rest}, true, nil
}

var plusPosRE = regexp.MustCompile(`^(-?[0-9]+)(.*)$`)

// parsePos reads a position: "" is 0 (every argument); {0} is {} (Perl's
// truth of "0" in GNU's "if($1)"); {00} and {-0} are past the row.
func parsePos(num string) int {
	if num == "" {
		return 0
	}
	n, err := strconv.Atoi(num)
	switch {
	case err != nil: // beyond int: no argument can be there
		n = 1 << 30
		if num[0] == '-' {
			n = -n
		}
	case n == 0 && num != "0":
		n = 1 << 30 // "00", "-0": true in Perl, past the row
	}
	return n
}

// rplInCommandWord says a replacement string comes before the first space,
// tab, newline or "=" of the command (the words joined by spaces): GNU's
// /^[^ \t\n=]*\257</.
func rplInCommandWord(words [][]piece) bool {
	for i, w := range words {
		if i > 0 {
			return false // the space that joins the words
		}
		for _, p := range w {
			if p.kind != 0 {
				return true
			}
			if strings.ContainsAny(p.lit, " \t\n=") {
				return false
			}
		}
	}
	return false
}

// job returns job seq of total for one row of arguments.
// slotted is a text as jobio.GNU keeps a tag or a results name: its
// parts joined at the slot cuts by "{%}", and the parts and their widths
// only when a slot ({%}, {0%}) cuts it.
func slotted(parts []string, widths []int) (string, []string, []int) {
	if len(parts) > 1 {
		return strings.Join(parts, "{%}"), parts, widths
	}
	return strings.Join(parts, "{%}"), nil, nil
}

func (t *template) job(row []string, seq, total int) runner.Job {
	parts, widths := t.expand(row, seq, total)
	j := runner.Job{Seq: seq, Command: strings.Join(parts, "{%}")}
	var st jobio.State
	if t.skips(row) {
		st.Skip = 's'
	}
	if len(parts) > 1 {
		st.SlotParts = parts
		if slices.ContainsFunc(widths, func(w int) bool { return w > 0 }) {
			st.GNU = &jobio.GNU{SlotWidths: widths} // {0%}
		}
	}
	return with(j, st)
}

// skips says the job of row is skipped, as GNU's --plus strings skip():
// {uniq} when two of its values are the same, {choose_k} when a value is
// not above the one before it, compared as strings (Perl's ge). A skipped
// job runs nothing, and counts as failed with exit status -2.
func (t *template) skips(row []string) bool {
	if t.uniq {
		seen := make(map[string]bool, len(row))
		for _, v := range row {
			if seen[v] {
				return true
			}
			seen[v] = true
		}
	}
	if t.chooseK {
		for i := 1; i < len(row); i++ {
			if row[i-1] >= row[i] {
				return true
			}
		}
	}
	return false
}

// expand returns the command for one row of arguments and job number seq
// of total, cut at each {%} or {0%} (whose slot is known only when the job
// starts), with the width each cut's slot number is padded to (0: none).
func (t *template) expand(row []string, seq, total int) (parts []string, widths []int) {
	var b strings.Builder
	for i, w := range t.words {
		if i > 0 {
			b.WriteByte(' ')
		}
		parts, widths = t.fillWord(&b, w, row, seq, total, parts, widths)
	}
	return append(parts, b.String()), widths
}

// contextGroups cuts a word at the spaces and tabs of its text into GNU
// parallel's context groups (-X, -N): runs of pieces, and the white space
// between them, each space a group of its own (a tab begins the group
// after it, as in GNU's tokens). GNU cuts the whole command line so,
// whether it came as one argument ('rm -f {}') or many; a newline does not
// end a group.
func contextGroups(w []piece) [][]piece {
	var groups [][]piece
	var cur []piece
	for _, p := range w {
		if p.kind != 0 || !strings.ContainsAny(p.lit, " \t") {
			cur = append(cur, p)
			continue
		}
		lit := p.lit
		for lit != "" {
			i := strings.IndexAny(lit, " \t")
			if i < 0 {
				cur = append(cur, piece{lit: lit})
				break
			}
			if i > 0 {
				cur = append(cur, piece{lit: lit[:i]})
			}
			if cur != nil {
				groups = append(groups, cur)
				cur = nil
			}
			if lit[i] == '\t' {
				cur = []piece{{lit: "\t"}} // GNU: a tab begins the next group
			} else {
				groups = append(groups, []piece{{lit: " "}})
			}
			lit = lit[i+1:]
		}
	}
	if cur != nil {
		groups = append(groups, cur)
	}
	return groups
}

// fillWord writes word w into b: {} every argument of row, or, under
// context replace, each context group holding {} once per argument, its
// {} that argument.
func (t *template) fillWord(b *strings.Builder, w []piece, row []string, seq, total int, parts []string, widths []int) ([]string, []int) {
	f := wordFiller{t: t, b: b, parts: parts, widths: widths}
	if !t.context || len(row) < 2 || !slices.ContainsFunc(w, piece.context) {
		f.fill(w, row, row, seq, total)
	} else {
		for _, g := range contextGroups(w) {
			if !slices.ContainsFunc(g, piece.context) {
				f.fill(g, row, row, seq, total)
				continue
			}
			for k := range row {
				if k > 0 {
					f.flush(true) // GNU: an unquoted space between the copies
				}
				f.fill(g, row[k:k+1], row, seq, total)
			}
		}
	}
	f.flush(false)
	return f.parts, f.widths
}

// wordFiller writes the pieces of one word. group is the text since the
// last cut: where {} puts a space between two arguments (or -X between
// two copies of a group); with -q each group is quoted on its own.
type wordFiller struct {
	t       *template
	b       *strings.Builder
	group   strings.Builder
	slotted bool // -q: a {%} cut this word
	// -q: the group holds values of -N 0 that vanished (gone) and nothing
	// else (!kept), so there is nothing to quote: GNU drops such a group.
	gone, kept bool
	parts      []string
	widths     []int
}

func (f *wordFiller) flush(sep bool) {
	if f.t.quoteWords && f.group.Len() == 0 && f.slotted && !sep {
		return // nothing after (or before) the slot to quote
	}
	if f.t.quoteWords && f.gone && !f.kept {
		f.b.WriteString(f.group.String())
	} else if f.t.quoteWords {
		f.b.WriteString(jobio.Quote(f.group.String()))
	} else {
		f.b.WriteString(f.group.String())
	}
	f.group.Reset()
	f.gone, f.kept = false, false
	if sep {
		f.b.WriteByte(' ')
	}
}

// put writes value v of the row into the group.
func (f *wordFiller) put(v string, p piece) {
	s := f.t.value(v, p)
	if v == noArg && s == "" {
		f.gone = true
	} else {
		f.kept = true
	}
	f.group.WriteString(s)
}

// fill writes pieces w: {} from ctx (the argument of a context copy,
// or the row), positions from row.
func (f *wordFiller) fill(w []piece, ctx, row []string, seq, total int) {
	t, group := f.t, &f.group
	for _, p := range w {
		if p.kind != 'a' {
			f.kept = true
		}
		switch p.kind {
		case 0:
			group.WriteString(p.lit)
		case '#':
			group.WriteString(strconv.Itoa(seq))
		case 'T':
			group.WriteString(strconv.Itoa(total))
		case 'S':
			fmt.Fprintf(group, "%0*d", digits(total), seq)
		case '%', 'P':
			if t.quoteWords {
				// -q quotes the word whole: the slot, a number,
				// needs no quotes, so the word is cut around it.
				f.slotted = f.slotted || group.Len() == 0
				f.flush(false)
				f.slotted = true
			} else {
				f.b.WriteString(group.String())
				group.Reset()
			}
			f.parts = append(f.parts, f.b.String())
			width := 0
			if p.kind == 'P' {
				width = t.slotWidth
			}
			f.widths = append(f.widths, width)
			f.b.Reset()
		case 'a':
			if p.pos != 0 {
				// GNU: a position past the row is "", not quoted.
				if v, ok := argAt(row, p.pos); ok {
					f.put(v, p)
				}
				continue
			}
			for k, v := range ctx {
				if k > 0 && !t.bare {
					f.flush(true)
				}
				f.put(v, p)
			}
		}
	}
}

// digits is the width GNU pads {0#} and {0%} to: its Perl,
// 1+int(log(n)/log(10)), which is one short at 1000 and 1000000 (the
// quotient falls just below 3 and 6); the same doubles here give the same
// widths (checked against Perl for every n up to 2,000,000).
func digits(n int) int {
	return 1 + int(math.Log(float64(max(n, 1)))/math.Log(10))
}

// noArg is each value of a job of -N 0 or -n 0, as GNU parallel's
// "\0noarg": nothing in the command, not even quotes, unless a replacement
// string changes it. No value read holds a NUL byte.
const noArg = "\x00noarg"

func (t *template) value(v string, p piece) string {
	v = modify(v, p.mod)
	if p.fn != nil {
		v = p.fn(v)
	}
	if v == noArg {
		return ""
	}
	if t.quoteArgs {
		return jobio.Quote(v)
	}
	return v
}

// argAt is GNU's $argref->[$n > 0 ? $n-1 : $len+$n] with Perl's negative
// indexing: -1 is the last argument; false for a position past either end.
func argAt(row []string, n int) (string, bool) {
	i := n - 1
	if n < 0 {
		i = len(row) + n
		if i < 0 {
			i += len(row) // Perl indexes a negative index from the end
		}
	}
	if i < 0 || i >= len(row) {
		return "", false
	}
	return row[i], true
}

// modify applies a replacement string's modifier to a value, with GNU
// parallel's Perl expressions: {.} s:\.[^/.]*$::, {/} s:.*/::, {//}
// File::Basename::dirname, {/.} both of {/} and {.}.
func modify(v, mod string) string {
	switch mod {
	case ".":
		return noExt(v)
	case "/":
		return baseName(v)
	case "//":
		return dirName(v)
	case "/.":
		return noExt(baseName(v))
	}
	if plusMods[mod] {
		return plusModify(v, mod)
	}
	return v
}

// noExt is s:\.[^/.]*$::, removing the last extension: "a/b.tar.gz" →
// "a/b.tar", ".x" → "", "a.b/c" and "dir/" unchanged.
func noExt(v string) string {
	dot := strings.LastIndexByte(v, '.')
	if dot < 0 || strings.IndexByte(v[dot:], '/') >= 0 {
		return v
	}
	return v[:dot]
}

// baseName is s:.*/::, where "." does not match a newline: in the first
// line that holds a "/", everything up to its last "/" goes. "dir/" → "".
func baseName(v string) string {
	start := 0
	for {
		end := strings.IndexByte(v[start:], '\n')
		line := v[start:]
		if end >= 0 {
			line = v[start : start+end]
		}
		if i := strings.LastIndexByte(line, '/'); i >= 0 {
			return v[:start] + v[start+i+1:]
		}
		if end < 0 {
			return v
		}
		start += end + 1
	}
}

// dirName is Perl's File::Basename::dirname on Unix: "a" → ".", "./d/e"
// → "./d", "dir/" → ".", "/x/y/" → "/x", "/" → "/".
func dirName(v string) string {
	dir, base := fileParse(v)
	dir = stripTrailingSlashes(dir)
	if base == "" {
		dir, _ = fileParse(dir)
		dir = stripTrailingSlashes(dir)
	}
	return dir
}

// fileParse splits at the last "/": ("a/b/", "c"); no "/" gives "./".
func fileParse(v string) (dir, base string) {
	i := strings.LastIndexByte(v, '/')
	if i < 0 {
		return "./", v
	}
	return v[:i+1], v[i+1:]
}

// stripTrailingSlashes is s{(.)/*\z}{$1}s: trailing slashes go, but not
// the first character.
func stripTrailingSlashes(s string) string {
	k := len(s)
	for k > 1 && s[k-1] == '/' {
		k--
	}
	return s[:k]
}
