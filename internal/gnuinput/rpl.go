package gnuinput

import (
	"fmt"
	"regexp"
	"strings"
)

// This file reads GNU parallel's --rpl 'TAG BODY' definitions (20221122).
// BODY is Perl in GNU parallel; worksteal reads the bodies a script can
// write without Perl's runtime: GNU's own definitions of its replacement
// strings (which make TAG another name of one), and statements of
// s/regexp/replacement/flags (Go's regular expressions; $1 and ${1} in
// the replacement; flags g, i, m, s), separated by ";", each with
// alternatives after "||" tried while none has matched (GNU's --plus
// style: s:/[^/]*$:: || s:.*$::). Any other body is Perl, refused with
// the error {= =} gives. A TAG in braces ({o}) may take a position
// ({2o}), as GNU's do; TAG replaces GNU's own string of that name.

// rplBuiltins are GNU's definitions of its own strings (and --plus's
// that are not regular expressions), white space squeezed: --rpl with one
// of them makes TAG another name of that string.
var rplBuiltins = map[string]piece{
	"":                  {kind: 'a'},
	"1 $_=$job->seq()":  {kind: '#'},
	"1 $_=seq()":        {kind: '#'},
	"1 $_=$job->slot()": {kind: '%'},
	"1 $_=slot()":       {kind: '%'},
	`$Global::use{"File::Basename"} ||= eval "use File::Basename; 1;"; $_ = dirname($_);`: {kind: 'a', mod: "//"},
	"1 $_=total_jobs()":                                                                    {kind: 'T'},
	"if(::uniq(@arg) != @arg) { skip(); }":                                                 {kind: 'a', skip: 'u'},
	"for $t (2..$#arg){ if($arg[$t-1] ge $arg[$t]) { skip() } }":                           {kind: 'a', skip: 'c'},
	"for $t (2..$#arg) { if($arg[$t-1] ge $arg[$t]) { skip() } }":                          {kind: 'a', skip: 'c'},
	`1 $f=1+int((log(total_jobs())/log(10)));$_=sprintf("%0${f}d",seq())`:                  {kind: 'S'},
	`1 $f=1+int((log($Global::max_jobs_running||1)/log(10)));$_=sprintf("%0${f}d",slot())`: {kind: 'P'},
}

// squeeze is a body with its white space squeezed and no ";" at its end.
func squeeze(body string) string {
	return strings.TrimRight(strings.Join(strings.Fields(body), " "), "; ")
}

func init() {
	m := make(map[string]piece, len(rplBuiltins))
	for k, p := range rplBuiltins {
		m[squeeze(k)] = p
	}
	rplBuiltins = m
}

// userRpls reads --rpl definitions: the tags without their braces.
func userRpls(defs []string) (map[string]piece, error) {
	m := map[string]piece{}
	for _, d := range defs {
		d = strings.TrimLeft(d, " \t\n")
		tag, body, _ := strings.Cut(d, " ")
		if i := strings.IndexAny(d, " \t\n"); i >= 0 {
			tag, body = d[:i], d[i+1:]
		}
		if len(tag) < 2 || tag[0] != '{' || tag[len(tag)-1] != '}' || strings.ContainsAny(tag[1:len(tag)-1], "{}") {
			return nil, fmt.Errorf("%w: --rpl %q: worksteal takes tags in braces ({name}), not %q", ErrBadInput, d, tag)
		}
		if strings.Contains(tag, "(") {
			return nil, fmt.Errorf("%w: --rpl %q: tags with a (regexp) give its match to the Perl body ($$1): perl expression replacement strings are not supported", ErrBadInput, d)
		}
		p, err := rplBody(body)
		if err != nil {
			return nil, fmt.Errorf("%w: --rpl %q: %v", ErrBadInput, d, err)
		}
		m[tag[1:len(tag)-1]] = p
	}
	return m, nil
}

// rplBody reads a --rpl body: one of GNU's own, or s/// statements.
func rplBody(body string) (piece, error) {
	if p, ok := rplBuiltins[squeeze(body)]; ok {
		return p, nil
	}
	perl := fmt.Errorf("perl expression replacement strings ({= ... =}, and --rpl's Perl) are not supported: worksteal reads s/regexp/replacement/ statements and GNU's own definitions")
	var stmts [][]func(string) (string, bool)
	rest := strings.TrimSpace(body)
	for rest != "" {
		var alts []func(string) (string, bool)
		for {
			f, after, err := parseSubst(rest)
			if err != nil {
				return piece{}, fmt.Errorf("%v (%v)", perl, err)
			}
			alts = append(alts, f)
			rest = strings.TrimSpace(after)
			if r, ok := strings.CutPrefix(rest, "||"); ok {
				rest = strings.TrimSpace(r)
				continue
			}
			break
		}
		stmts = append(stmts, alts)
		if rest != "" {
			r, ok := strings.CutPrefix(rest, ";")
			if !ok {
				return piece{}, fmt.Errorf("%v (at %q)", perl, rest)
			}
			rest = strings.TrimLeft(r, " \t\n;")
		}
	}
	return piece{kind: 'a', expr: squeeze(body), fn: func(v string) string {
		for _, alts := range stmts {
			for _, f := range alts {
				var ok bool
				if v, ok = f(v); ok {
					break
				}
			}
		}
		return v
	}}, nil
}

// parseSubst reads one s/regexp/replacement/flags from the start of s
// (any delimiter but brackets, letters, digits and white space) and
// returns it and what follows.
func parseSubst(s string) (f func(string) (string, bool), rest string, err error) {
	if len(s) < 4 || s[0] != 's' || strings.ContainsRune("([{< \t\n\\", rune(s[1])) || isWordByte(s[1]) {
		return nil, s, fmt.Errorf("not s/regexp/replacement/: %q", s)
	}
	d := s[1]
	field := func(i int) (string, int, bool) {
		var b strings.Builder
		for ; i < len(s); i++ {
			switch {
			case s[i] == d:
				return b.String(), i + 1, true
			case s[i] == '\\' && i+1 < len(s) && s[i+1] == d:
				b.WriteByte(d)
				i++
			case s[i] == '\\' && i+1 < len(s):
				b.WriteString(s[i : i+2])
				i++
			default:
				b.WriteByte(s[i])
			}
		}
		return "", i, false
	}
	pat, i, ok := field(2)
	if !ok {
		return nil, s, fmt.Errorf("unterminated s%c...%c", d, d)
	}
	repl, i, ok := field(i)
	if !ok {
		return nil, s, fmt.Errorf("unterminated s%c...%c", d, d)
	}
	j := i
	for j < len(s) && isWordByte(s[j]) {
		j++
	}
	flags, global := "", false
	for _, c := range s[i:j] {
		switch c {
		case 'g':
			global = true
		case 'i', 'm', 's':
			flags += string(c)
		default:
			return nil, s, fmt.Errorf("flag %c of s%c%s%c", c, d, pat, d)
		}
	}
	if flags != "" {
		pat = "(?" + flags + ")" + pat
	}
	re, err := regexp.Compile(pat)
	if err != nil {
		return nil, s, err
	}
	tmpl, err := perlReplacement(repl)
	if err != nil {
		return nil, s, err
	}
	return func(v string) (string, bool) {
		if global {
			if !re.MatchString(v) {
				return v, false
			}
			return re.ReplaceAllString(v, tmpl), true
		}
		m := re.FindStringSubmatchIndex(v)
		if m == nil {
			return v, false
		}
		return v[:m[0]] + string(re.ExpandString(nil, tmpl, v, m)) + v[m[1]:], true
	}, s[j:], nil
}

func isWordByte(c byte) bool {
	return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// perlReplacement turns the replacement of a Perl s/// into Go's template:
// $1, ${1} and $& are the groups; \n, \t and \X the characters; any other
// $ or @ is Perl's interpolation, refused.
func perlReplacement(r string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(r); i++ {
		c := r[i]
		switch {
		case c == '\\' && i+1 < len(r):
			i++
			switch r[i] {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case '$':
				b.WriteString("$$")
			default:
				b.WriteByte(r[i])
			}
		case c == '$':
			m := perlGroupRE.FindStringSubmatch(r[i:])
			if m == nil {
				return "", fmt.Errorf("the replacement %q interpolates Perl", r)
			}
			n := m[1] + m[2]
			if m[3] != "" {
				n = "0"
			}
			b.WriteString("${" + n + "}")
			i += len(m[0]) - 1
		case c == '@' && i+1 < len(r) && (isWordByte(r[i+1]) || r[i+1] == '{'):
			return "", fmt.Errorf("the replacement %q interpolates a Perl array", r)
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), nil
}

var perlGroupRE = regexp.MustCompile(`^\$(?:([0-9]+)|\{([0-9]+)\}|(&))`)
