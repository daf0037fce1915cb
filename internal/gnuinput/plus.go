package gnuinput

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// GNU parallel's --plus replacement strings (20221122), each with an
// optional position ({2+/}, {-1..}). The fixed ones, with GNU's Perl:
//
//	{+/}   s:/[^/]*$:: || s:.*$::        the directory part, "" if none
//	{+.}   s:.*\.:: || s:.*$::           the extension, "" if none
//	{+..}  the last two extensions; {+...} the last three
//	{..}   s:\.[^/.]*\.[^/.]*$::        without two extensions; {...} three
//	{/..}  {/...}                       the base name without two (three)
//	{##}   the number of jobs; {0#} the job number and {0%} the slot,
//	       zero-padded to the width of the largest
//
// and the ones after bash's parameter expansion, whose patterns are
// regular expressions (Go's syntax, Perl's for GNU):
//
//	{:-str} str if the value is empty (or "0": Perl's falsity)
//	{:n} without the first n bytes; {:n:m} m bytes from byte n
//	{#re} {##re} without the shortest (longest) prefix matching re
//	{%re} {%%re} without the shortest (longest) suffix matching re
//	{/re/str} the first match replaced; {//re/str} every match;
//	{/#re/str} a prefix match; {/%re/str} a suffix match
//	{^re} {^^re} upper case of the first (every) match at the start
//	(anywhere); {,re} {,,re} lower case

// plusMods are the fixed --plus strings that modify an argument.
var plusMods = map[string]bool{"+/": true, "+.": true, "+..": true, "+...": true, "..": true, "...": true, "/..": true, "/...": true}

var (
	plusDirRE   = regexp.MustCompile(`/[^/\n]*$`)
	plusExt1RE  = regexp.MustCompile(`^[^\n]*\.`)
	plusExt2RE  = regexp.MustCompile(`^[^\n]*\.([^/.]*\.[^/.]*)$`)
	plusExt3RE  = regexp.MustCompile(`^[^\n]*\.([^/.]*\.[^/.]*\.[^/.]*)$`)
	plusNoExt2  = regexp.MustCompile(`\.[^/.]*\.[^/.]*$`)
	plusNoExt3  = regexp.MustCompile(`\.[^/.]*\.[^/.]*\.[^/.]*$`)
	plusRestRE  = regexp.MustCompile(`^[^\n]*`) // Perl's s:.*$:: on the first line
	plusSubstRE = regexp.MustCompile(`^:([0-9]+?)(?::([0-9]+?))?$`)
)

// plusModify applies a fixed --plus modifier.
func plusModify(v, mod string) string {
	orElse := func(re *regexp.Regexp, repl string) string {
		if re.MatchString(v) {
			return re.ReplaceAllString(v, repl)
		}
		return plusRestRE.ReplaceAllString(v, "")
	}
	switch mod {
	case "+/":
		return orElse(plusDirRE, "")
	case "+.":
		if loc := plusExt1RE.FindStringIndex(v); loc != nil {
			return v[loc[1]:]
		}
		return plusRestRE.ReplaceAllString(v, "")
	case "+..":
		return orElse(plusExt2RE, "$1")
	case "+...":
		return orElse(plusExt3RE, "$1")
	case "..":
		return plusNoExt2.ReplaceAllString(v, "")
	case "...":
		return plusNoExt3.ReplaceAllString(v, "")
	case "/..":
		return plusNoExt2.ReplaceAllString(baseName(v), "")
	case "/...":
		return plusNoExt3.ReplaceAllString(baseName(v), "")
	}
	return v
}

// plusExpr reads a dynamic --plus string (the inside of its braces); false
// when it is none, an error for a bad regular expression in one.
func plusExpr(in string) (func(string) string, bool, error) {
	compile := func(re string) (*regexp.Regexp, error) {
		r, err := regexp.Compile(re)
		if err != nil {
			return nil, fmt.Errorf("%w: {%s}: %v", ErrBadInput, in, err)
		}
		return r, nil
	}
	if str, ok := strings.CutPrefix(in, ":-"); ok && str != "" {
		return func(v string) string {
			if v == "" || v == "0" {
				return str
			}
			return v
		}, true, nil
	}
	if m := plusSubstRE.FindStringSubmatch(in); m != nil {
		from, _ := strconv.Atoi(m[1])
		if m[2] == "" {
			return func(v string) string { return v[min(from, len(v)):] }, true, nil
		}
		n, _ := strconv.Atoi(m[2])
		return func(v string) string {
			a := min(from, len(v))
			return v[a:min(a+n, len(v))]
		}, true, nil
	}
	type op struct {
		prefix string
		build  func(rest string) (func(string) string, error)
	}
	// The longer prefix first: {##re} before {#re}, {//re/s} before {/re/s}.
	ops := []op{
		{"##", func(re string) (func(string) string, error) {
			r, err := compile(`^(?:` + re + `)`)
			return func(v string) string { return r.ReplaceAllLiteralString(v, "") }, err
		}},
		{"#", func(re string) (func(string) string, error) {
			r, err := compile(`^(?U:` + re + `)(.*)$`)
			return func(v string) string { return r.ReplaceAllString(v, "$1") }, err
		}},
		{"%%", func(re string) (func(string) string, error) {
			r, err := compile(`(?:` + re + `)$`)
			return func(v string) string { return replaceFirst(r, v, "") }, err
		}},
		{"%", func(re string) (func(string) string, error) {
			r, err := compile(`^(.*)(?U:` + re + `)$`)
			return func(v string) string { return r.ReplaceAllString(v, "${1}") }, err
		}},
		{"//", replaceOp("", "", true, compile)},
		{"/#", replaceOp("^", "", true, compile)},
		{"/%", replaceOp("", "$", true, compile)},
		{"/", replaceOp("", "", false, compile)},
		{"^^", caseOp(strings.ToUpper, true, compile)},
		{"^", caseOp(strings.ToUpper, false, compile)},
		{",,", caseOp(strings.ToLower, true, compile)},
		{",", caseOp(strings.ToLower, false, compile)},
	}
	for _, o := range ops {
		rest, ok := strings.CutPrefix(in, o.prefix)
		if !ok || rest == "" {
			continue
		}
		if o.prefix == "#" && rest[0] == '#' {
			continue
		}
		if (o.prefix == "/" || o.prefix == "//" || o.prefix == "/#" || o.prefix == "/%") && !strings.Contains(rest, "/") {
			continue
		}
		if o.prefix == "/" && (rest[0] == '#' || rest[0] == '%') {
			continue
		}
		fn, err := o.build(rest)
		if err != nil {
			return nil, false, err
		}
		return fn, true, nil
	}
	return nil, false, nil
}

// replaceOp builds {/re/str} and its kin: re (anchored by pre and post)
// replaced by the literal str, at its first match or all.
func replaceOp(pre, post string, all bool, compile func(string) (*regexp.Regexp, error)) func(string) (func(string) string, error) {
	return func(rest string) (func(string) string, error) {
		re, str, _ := strings.Cut(rest, "/")
		if re == "" {
			return nil, fmt.Errorf("%w: {/%s}: an empty pattern", ErrBadInput, rest)
		}
		r, err := compile(pre + `(?:` + re + `)` + post)
		if err != nil {
			return nil, err
		}
		if all {
			return func(v string) string { return r.ReplaceAllLiteralString(v, str) }, nil
		}
		return func(v string) string { return replaceFirst(r, v, str) }, nil
	}
}

// caseOp builds {^re} and its kin: the matches of re changed by f, the
// first one at the start only, or all.
func caseOp(f func(string) string, all bool, compile func(string) (*regexp.Regexp, error)) func(string) (func(string) string, error) {
	return func(re string) (func(string) string, error) {
		if !all {
			re = `^(?:` + re + `)`
		}
		r, err := compile(re)
		if err != nil {
			return nil, err
		}
		if all {
			return func(v string) string { return r.ReplaceAllStringFunc(v, f) }, nil
		}
		return func(v string) string {
			if loc := r.FindStringIndex(v); loc != nil {
				return f(v[:loc[1]]) + v[loc[1]:]
			}
			return v
		}, nil
	}
}

// replaceFirst replaces the first match of r in v by the literal str.
func replaceFirst(r *regexp.Regexp, v, str string) string {
	loc := r.FindStringIndex(v)
	if loc == nil {
		return v
	}
	return v[:loc[0]] + str + v[loc[1]:]
}
