package runcmd

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"

	"github.com/spf13/pflag"

	"github.com/worksteal/worksteal/internal/cli/cmdenv"
	"github.com/worksteal/worksteal/internal/gnuinput"
)

// Options of GNU parallel 20221122 that say what run will do and then go
// on: --show-limits, and -l given without its value (see gnuOptionalLines).

func addShowLimitsFlag(f *pflag.FlagSet) {
	f.Bool("show-limits", false, "print the longest command line and the usable part of it, as GNU parallel does, then go on")
	gnuAlias(f, "show-limits", "showlimits")
}

// showLimits prints, for --show-limits, GNU parallel's report on stdout
// (its show_limits): the longest command line (find_max), the usable part
// of it ((longest - 3000) / 2, or -s when smaller) and the notice; the run
// then goes on as without the option.
func showLimits(f *pflag.FlagSet, maxChars int, w io.Writer) error {
	if _, ok := gnuChanged(f, "show-limits"); !ok {
		return nil
	}
	n, err := findMaxLineLength()
	if err != nil {
		return fmt.Errorf("--show-limits: %v", err)
	}
	usable := usableOf(n)
	if _, ok := gnuChanged(f, "max-chars"); ok && maxChars >= 1 && maxChars <= usable {
		usable = maxChars
	}
	_, err = fmt.Fprintf(w, "Maximal size of command: %d\nMaximal usable size of command: %d\n\n"+
		"Execution will continue now, and it will try to read its input\n"+
		"and run commands; if this is not what you wanted to happen, please\n"+
		"press CTRL-D or CTRL-C\n", n, usable)
	return err
}

// GNUArgs gives the command line of "worksteal run" (args[0] "run") the
// value GNU parallel 20221122 reads for an option whose value is optional
// there and required here: -l, --max-lines (an optional integer in GNU's
// Getopt, "l:i") given without a number is -l 1. Only the options before
// the COMMAND are looked at; other command lines come back unchanged.
func GNUArgs(args []string) []string {
	if len(args) == 0 || args[0] != "run" {
		return args
	}
	f := newRunCommand(&cmdenv.Env{}).Flags()
	norm := f.GetNormalizeFunc()
	out := gnuReplaceArgs(args)
	isCount := func(i int) bool {
		if i >= len(out) {
			return false
		}
		_, err := strconv.Atoi(out[i])
		return err == nil
	}
	for i := 1; i < len(out); i++ {
		a := out[i]
		if a == "--" || a == "-" || !strings.HasPrefix(a, "-") {
			break
		}
		if long, ok := strings.CutPrefix(a, "--"); ok {
			name, _, hasValue := strings.Cut(long, "=")
			fl := f.Lookup(string(norm(f, name)))
			switch {
			case fl == nil || hasValue || fl.NoOptDefVal != "":
			case (fl.Name == "max-lines" || fl.Name == "maxlines") && !isCount(i+1):
				out[i] = a + "=1"
			default:
				i++ // its value
			}
			continue
		}
		for j := 1; j < len(a); j++ {
			fl := f.ShorthandLookup(a[j : j+1])
			if fl == nil || fl.NoOptDefVal != "" {
				continue
			}
			if j == len(a)-1 { // its value is the next word
				if fl.Shorthand == "l" && !isCount(i+1) {
					out[i] = a + "1"
				} else {
					i++
				}
			}
			break
		}
	}
	return out
}

// gnuReplaceArgs rewrites GNU's --replace and -i (its Getopt's
// "replace|i:s", bundled: an optional value) in the options before the
// COMMAND into --replace=VALUE: -iVALUE, or -i/--replace and the next word
// when it does not begin with "-"; otherwise the value is empty (no other
// replacement string than {}).
func gnuReplaceArgs(args []string) []string {
	f := newRunCommand(&cmdenv.Env{}).Flags()
	norm := f.GetNormalizeFunc()
	out := []string{args[0]}
	valueNext := func(i int) bool { return i < len(args) && !strings.HasPrefix(args[i], "-") }
	for i := 1; i < len(args); i++ {
		a := args[i]
		if a == "--" || a == "-" || !strings.HasPrefix(a, "-") {
			return append(out, args[i:]...)
		}
		if long, ok := strings.CutPrefix(a, "--"); ok {
			name, _, hasValue := strings.Cut(long, "=")
			fl := f.Lookup(string(norm(f, name)))
			switch {
			case fl != nil && fl.Name == "replace" && !hasValue && !valueNext(i+1):
				out = append(out, "--replace=")
			case fl == nil || hasValue || fl.NoOptDefVal != "":
				out = append(out, a)
			default:
				out = append(out, a)
				if i+1 < len(args) {
					i++
					out = append(out, args[i]) // its value
				}
			}
			continue
		}
		for j := 1; j < len(a); j++ {
			if a[j] == 'i' {
				if j > 1 {
					out = append(out, a[:j])
				}
				switch {
				case j+1 < len(a):
					out = append(out, "--replace="+a[j+1:])
				case valueNext(i + 1):
					i++
					out = append(out, "--replace="+args[i])
				default:
					out = append(out, "--replace=")
				}
				break
			}
			fl := f.ShorthandLookup(a[j : j+1])
			if j == len(a)-1 || (fl != nil && fl.NoOptDefVal == "") {
				out = append(out, a)
				if fl != nil && fl.NoOptDefVal == "" && j == len(a)-1 && i+1 < len(args) {
					i++
					out = append(out, args[i]) // its value
				}
				break
			}
		}
	}
	return out
}

// usableOf is GNU's usable length of a command line whose longest is n:
// 3000 kept for its wrapping, half of the rest (for hexing).
func usableOf(n int) int { return (n - 3000) / 2 }

// usableLineLength is the longest command -X, -m and --xargs fill and any
// command may be (GNU's $Global::usable_command_line_length): usableOf the
// longest command line GNU's search finds on this machine, searched once,
// when first needed (gnuinput.DefaultMaxLen if the search cannot run).
var usableLineLength = sync.OnceValue(func() int {
	n, err := findMaxLineLength()
	if err != nil {
		return gnuinput.DefaultMaxLen
	}
	return usableOf(n)
})
