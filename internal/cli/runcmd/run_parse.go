package runcmd

import (
	"fmt"
	"math"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/worksteal/worksteal/internal/cli/cmdenv"
	"github.com/worksteal/worksteal/internal/gnuinput"
)

// splitArgs cuts the positional arguments into the command template and
// the input sources after it (":::", ":::+", "::::", "::::+").
func splitArgs(env *cmdenv.Env, args []string, argSep, fileSep string) (template []string, sources []gnuinput.Source, err error) {
	if argSep == "" {
		argSep = ":::"
	}
	if fileSep == "" {
		fileSep = "::::"
	}
	isSep := func(s string) bool { return s == argSep || s == argSep+"+" || s == fileSep || s == fileSep+"+" }
	i := 0
	for i < len(args) && !isSep(args[i]) {
		i++
	}
	template = args[:i]
	if i == len(args)-1 {
		// GNU: a separator that ends the command line, right after the
		// command, is dropped (a glob that matched nothing:
		// gzip ::: $(ls *.log)); the sources are then stdin's, as with
		// none.
		return template, nil, nil
	}
	for i < len(args) {
		sep := args[i]
		i++
		start := i
		for i < len(args) && !isSep(args[i]) {
			i++
		}
		// An empty ::: group is a source with no values (one empty value
		// beside others, none alone); an empty :::: group names no file.
		vals := args[start:i:i]
		linked := strings.HasSuffix(sep, "+")
		if sep == fileSep || sep == fileSep+"+" {
			for _, name := range vals {
				src, err := fileSource(env, name)
				if err != nil {
					return nil, nil, err
				}
				src.Linked = linked // GNU: ::::+ links every file of its group
				sources = append(sources, src)
			}
			continue
		}
		if vals == nil {
			vals = []string{}
		}
		sources = append(sources, gnuinput.Source{Name: sep, Args: vals, Linked: linked})
	}
	return template, sources, nil
}

// fileSource opens an input file; "-" is stdin. The file is read (and
// closed) by gnuinput.Input.Jobs.
func fileSource(env *cmdenv.Env, name string) (gnuinput.Source, error) {
	if name == "-" {
		return gnuinput.Source{Name: "stdin", Lines: env.Stdin, File: name}, nil
	}
	f, err := os.Open(name)
	if err != nil {
		return gnuinput.Source{}, err
	}
	if st, err := f.Stat(); err == nil && st.IsDir() {
		f.Close()
		// GNU (Perl) reads a directory as an empty file: no values.
		return gnuinput.Source{Name: name, Lines: strings.NewReader(""), File: name}, nil
	}
	return gnuinput.Source{Name: name, Lines: &closingReader{f: f}, File: name}, nil
}

// closingReader closes its file at the end of the input, and then keeps
// answering with that end: a reader may ask again after io.EOF (bufio does,
// after a last line without a newline).
type closingReader struct {
	f   *os.File
	end error // the error that closed f; nil while open
}

func (c *closingReader) Read(p []byte) (int, error) {
	if c.end != nil {
		return 0, c.end
	}
	n, err := c.f.Read(p)
	if err != nil {
		c.end = err
		c.f.Close()
	}
	return n, err
}

// parseTimeout reads --timeout as GNU parallel does: "" (none), "200%" (of
// the median run time), or seconds with optional units s, m, h, d, summed
// ("90", "1.5", "1m30s", "2h"). A bare number after a unit is seconds.
func parseTimeout(s string) (abs time.Duration, factor float64, err error) {
	s = strings.TrimSpace(s)
	bad := fmt.Errorf("--timeout %q: want seconds (90, 1.5), a duration with units s, m, h, d (1m30s) or a percentage of the median run time (200%%)", s)
	switch {
	case s == "" || s == "0":
		return 0, 0, nil // GNU parallel: 0 is no timeout
	case strings.HasSuffix(s, "%"):
		p, err := strconv.ParseFloat(strings.TrimSuffix(s, "%"), 64)
		if err != nil || p <= 0 || p != p || p > 1e9 {
			return 0, 0, bad
		}
		return 0, p / 100, nil
	}
	var secs float64
	for rest := s; rest != ""; {
		k := 0
		for k < len(rest) && (rest[k] >= '0' && rest[k] <= '9' || rest[k] == '.') {
			k++
		}
		v, err := strconv.ParseFloat(rest[:k], 64)
		if err != nil {
			return 0, 0, bad
		}
		unit := 1.0
		if k < len(rest) {
			switch rest[k] {
			case 's', 'S':
			case 'm', 'M':
				unit = 60
			case 'h', 'H':
				unit = 3600
			case 'd', 'D':
				unit = 86400
			default:
				return 0, 0, bad
			}
			k++
		}
		secs += v * unit
		rest = rest[k:]
	}
	if secs <= 0 || secs > 1e9 {
		return 0, 0, bad
	}
	return time.Duration(secs * float64(time.Second)), 0, nil
}

// parseSlots reads -j as GNU parallel does: N, +N, -N, N% of the CPUs, 0
// for as many as there are jobs, or a file that holds one (GNU's -j
// procfile); "" is one per CPU. At least 1.
func parseSlots(s string, jobs, cpus int) (int, error) {
	n, err := parseSlotsValue(s, jobs, cpus)
	if err == nil {
		return n, nil
	}
	if st, serr := os.Stat(s); serr == nil && st.Mode().IsRegular() && s != "" {
		// GNU's -j procfile: the file holds the value (read once here;
		// GNU rereads it as jobs finish).
		b, err := os.ReadFile(s)
		if err != nil {
			return 0, fmt.Errorf("-j %s: %v", s, err)
		}
		v := strings.TrimSpace(string(b))
		if _, err := os.Stat(v); err == nil {
			return 0, fmt.Errorf("-j %s: the file holds %q, a file name: want N, +N, -N or N%%", s, v)
		}
		return parseSlotsValue(v, jobs, cpus)
	}
	return 0, err
}

// parseSlotsValue reads a -j value (not a file); cpus is what the
// machine's CPUs count as (jobCPUs).
func parseSlotsValue(s string, jobs, cpus int) (int, error) {
	bad := fmt.Errorf("-j %q: want N, +N, -N (CPUs plus or minus N), N%% (of the CPUs) or 0 (every job at once)", s)
	var n float64
	switch {
	case s == "":
		return cpus, nil
	case strings.HasSuffix(s, "%"):
		p, err := strconv.ParseFloat(strings.TrimSuffix(s, "%"), 64)
		if err != nil || p < 0 || p != p || p > 1e6 {
			return 0, bad
		}
		n = float64(cpus) * p / 100
	case s[0] == '+' || s[0] == '-':
		d, err := atoiBig(s[1:])
		if err != nil || d < 0 {
			return 0, bad
		}
		n = float64(cpus) + d
		if s[0] == '-' {
			n = float64(cpus) - d
			if n < 1 {
				// GNU: "Cannot run any jobs." (not one slot)
				return 0, fmt.Errorf("-j %q: %d CPUs minus %s leaves no slot: cannot run any jobs", s, cpus, s[1:])
			}
		}
	default:
		d, err := atoiBig(s)
		if err != nil || d < 0 {
			return 0, bad
		}
		n = d
		if d == 0 {
			n = float64(jobs) // GNU: "as many as possible"
		}
	}
	return max(1, int(math.Min(math.Ceil(n), 1<<20))), nil
}

// atoiBig reads a whole number of any size (GNU takes
// -j 99999999999999999999, as many slots as can be).
func atoiBig(s string) (float64, error) {
	if s == "" || strings.Trim(s, "0123456789") != "" {
		return 0, strconv.ErrSyntax
	}
	return strconv.ParseFloat(s, 64)
}

// resolveShell picks the shell as GNU parallel does ($PARALLEL_SHELL, then
// $SHELL, then /bin/sh; --shell first) and checks that it can be run.
func resolveShell(flag string) (string, error) {
	sh, from := flag, "--shell"
	for _, v := range []string{"PARALLEL_SHELL", "SHELL"} {
		if sh == "" {
			sh, from = os.Getenv(v), "$"+v
		}
	}
	if sh == "" {
		return "/bin/sh", nil
	}
	path, err := exec.LookPath(sh)
	if err != nil {
		return "", fmt.Errorf("%s %s: no such shell (%v)", from, sh, err)
	}
	return path, nil
}
