package runcmd

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"
)

// GNU parallel's --profile NAME (-J NAME): the option lines of a file in
// its config directories, read before the command line's options.

func addProfileFlag(f *pflag.FlagSet, names *[]string) {
	f.StringArrayVarP(names, "profile", "J", nil, "read options from ~/.parallel/NAME (also $PARALLEL_HOME, $XDG_CONFIG_HOME/parallel, $XDG_CONFIG_DIRS); repeatable; ./NAME or /NAME: that file")
}

// profileDirs are GNU parallel 20221122's config_dirs: $PARALLEL_HOME,
// $XDG_CONFIG_HOME/parallel, each of $XDG_CONFIG_DIRS/parallel and
// ~/.parallel, those that exist.
func profileDirs() []string {
	cands := []string{os.Getenv("PARALLEL_HOME")}
	for _, d := range append([]string{os.Getenv("XDG_CONFIG_HOME")}, strings.Split(os.Getenv("XDG_CONFIG_DIRS"), ":")...) {
		cands = append(cands, d+"/parallel")
	}
	cands = append(cands, os.Getenv("HOME")+"/.parallel")
	var dirs []string
	for _, d := range cands {
		if st, err := os.Stat(d); err == nil && st.IsDir() && d != "/parallel" {
			dirs = append(dirs, d)
		}
	}
	return dirs
}

// profileWords are the words of the profiles named, as GNU reads them: a
// name starting ./ or / is that file, any other the file of that name in
// each config directory; one that is not there is skipped (as GNU does);
// lines starting with # are skipped, the others split as shell words.
func profileWords(names []string) ([]string, error) {
	var files []string
	for _, name := range names {
		if strings.HasPrefix(name, "./") || strings.HasPrefix(name, "/") {
			files = append(files, name)
			continue
		}
		for _, d := range profileDirs() {
			files = append(files, filepath.Join(d, name))
		}
	}
	var words []string
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			continue // GNU reads only the readable ones
		}
		for _, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
			if strings.HasPrefix(strings.TrimLeft(line, " \t\r\f\v"), "#") {
				continue
			}
			w, err := shellWords(line)
			if err != nil {
				return nil, fmt.Errorf("--profile: %s: %v", file, err)
			}
			words = append(words, w...)
		}
	}
	return words, nil
}

// shellWords splits line as Perl's Text::ParseWords::shellwords: at
// unquoted blanks; '...' as it is; "..." and outside quotes a backslash
// keeps the next character.
func shellWords(line string) ([]string, error) {
	var words []string
	var w strings.Builder
	in, quote := false, byte(0)
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case quote == '\'' && c == '\'', quote == '"' && c == '"':
			quote = 0
		case quote == '\'':
			w.WriteByte(c)
		case c == '\\' && i+1 < len(line):
			i++
			w.WriteByte(line[i])
			in = true
		case quote == '"':
			w.WriteByte(c)
		case c == '\'' || c == '"':
			quote, in = c, true
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			if in {
				words = append(words, w.String())
				w.Reset()
				in = false
			}
		default:
			w.WriteByte(c)
			in = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("unmatched %c in %q", quote, line)
	}
	if in {
		words = append(words, w.String())
	}
	return words, nil
}

// applyProfiles reads what GNU parallel reads before the command line's
// options, unless --plain: the --profile files named (without one, GNU's
// config files: /etc/parallel/config, config in each config directory,
// ~/.parallelrc), then $PARALLEL; their options go into f as if given
// before the command line's (mergeWords), their other words before args
// (GNU: a profile of "nice -n 1" runs every command under nice).
func applyProfiles(f *pflag.FlagSet, fresh func() *pflag.FlagSet, names, args []string) ([]string, error) {
	if _, plain := gnuChanged(f, "plain"); plain {
		return args, nil
	}
	what := "--profile " + strings.Join(names, ",")
	if len(names) == 0 {
		names, what = []string{"/etc/parallel/config", "config", os.Getenv("HOME") + "/.parallelrc"}, "~/.parallel/config"
	}
	// $PARALLEL's options come after the profiles' in GNU: merged first,
	// the profiles' are then merged before them.
	if env := os.Getenv("PARALLEL"); env != "" {
		words, err := shellWords(env)
		if err != nil {
			return nil, fmt.Errorf("$PARALLEL: %v", err)
		}
		if args, err = mergeWords(f, fresh, "$PARALLEL", words, args); err != nil {
			return nil, err
		}
	}
	words, err := profileWords(names)
	if err != nil {
		return nil, err
	}
	return mergeWords(f, fresh, what, words, args)
}

// mergeWords parses words as options given before those already in f: an
// option already given wins, a repeatable one gets the words' values
// first, a counted one both counts. The words after the options come
// before args.
func mergeWords(f *pflag.FlagSet, fresh func() *pflag.FlagSet, what string, words, args []string) ([]string, error) {
	if len(words) == 0 {
		return args, nil
	}
	// GNU's optional values (-l, -i, --replace) read as on the command line.
	words = GNUArgs(append([]string{"run"}, words...))[1:]
	pf := fresh()
	if err := pf.Parse(words); err != nil {
		return nil, fmt.Errorf("%s: %w", what, gnuFlagError(err))
	}
	var setErr error
	pf.Visit(func(p *pflag.Flag) {
		main := p.Name
		if a := p.Annotations[gnuAliasOf]; len(a) > 0 {
			main = a[0]
		}
		m := f.Lookup(main)
		if m == nil || setErr != nil || main == "profile" {
			return
		}
		_, changed := gnuChanged(f, main)
		if mv, ok := m.Value.(pflag.SliceValue); ok {
			vals := p.Value.(pflag.SliceValue).GetSlice()
			if changed {
				vals = append(vals, mv.GetSlice()...)
			}
			setErr = mv.Replace(vals)
			m.Changed = true
			return
		}
		switch {
		case changed && m.Value.Type() == "count":
			var a, b int
			fmt.Sscan(p.Value.String(), &a)
			fmt.Sscan(m.Value.String(), &b)
			setErr = f.Set(main, fmt.Sprint(a+b))
		case !changed:
			setErr = f.Set(main, p.Value.String())
		} // else the command line's value wins
	})
	if setErr != nil {
		return nil, fmt.Errorf("%s: %v", what, setErr)
	}
	return append(pf.Args(), args...), nil
}
