package runcmd

// GNU parallel's --shard, --bin and --group-by: which column of each line
// says which job (or which record) the line goes to.

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/worksteal/worksteal/internal/gnuinput"
	"github.com/worksteal/worksteal/runner"
)

// spreadSpec is a --shard, --bin or --group-by value read as GNU reads it:
// a column number, or a column name (looked up in the first line), and
// what follows (a Perl expression: refused).
type spreadSpec struct {
	given  string // the option as given, for errors
	col    int    // the column number (--shard, --bin: 0 or below, a Perl index from the end), or 0 with name
	number bool   // a column number was given
	name   string
}

var (
	specNameRE = regexp.MustCompile(`(?i)^[a-z_][a-z_0-9]*(\s|$)`)
	specNumRE  = regexp.MustCompile(`^(-?\d+)(\s|$)`)
)

func parseSpreadSpec(given, v string) (spreadSpec, error) {
	s := spreadSpec{given: given}
	rest := v
	switch {
	case specNameRE.MatchString(v):
		s.name = strings.Fields(v)[0]
		rest = strings.TrimSpace(v[len(s.name):])
	case specNumRE.MatchString(v):
		num := specNumRE.FindStringSubmatch(v)[1]
		n, err := strconv.Atoi(num)
		if err != nil {
			return s, fmt.Errorf("%s %q: the column number is out of range", given, v)
		}
		s.col = n
		s.number = true
		rest = strings.TrimSpace(v[len(num):])
	default:
		rest = v
	}
	if rest != "" {
		return s, fmt.Errorf("%s %q: a Perl expression (%q) is not supported, as {= =} is not: give a column number or name", given, v, rest)
	}
	return s, nil
}

// readLine reads one line of r, byte by byte (the rest is the jobs'):
// the line a column name is looked up in.
func readLine(r io.Reader) (string, error) {
	var b strings.Builder
	one := make([]byte, 1)
	for {
		n, err := r.Read(one)
		if n == 1 {
			b.WriteByte(one[0])
			if one[0] == '\n' {
				return b.String(), nil
			}
		}
		if err == io.EOF {
			return b.String(), nil
		}
		if err != nil {
			return b.String(), err
		}
	}
}

// spreadOptions reads --shard, --bin (spread) and --group-by (group) for
// runPipe; with a column name, the header line is read from stdin here.
// stdin is what is left for the jobs.
func spreadOptions(f *pflag.FlagSet, cfg runConfig, stdin io.Reader) (spread *gnuinput.Spread, group *gnuinput.GroupBy, rest io.Reader, err error) {
	p := cfg.pipe
	shardGiven, shard := gnuChanged(f, "shard")
	binGiven, bin := gnuChanged(f, "bin")
	groupGiven, grp := gnuChanged(f, "group-by")
	// GNU tests each as a Perl truth: "0" (and "") is not given.
	shard, bin, grp = shard && perlTrue(p.shard), bin && perlTrue(p.bin), grp && perlTrue(p.groupBy)
	colsepGiven := f.Changed("colsep")
	switch {
	case !shard && !bin && !grp:
		return nil, nil, stdin, nil
	case shard && bin:
		return nil, nil, nil, fmt.Errorf("%s and %s: give one", shardGiven, binGiven)
	case (shard || bin) && grp:
		return nil, nil, nil, fmt.Errorf("%s with %s: give one", groupGiven, shardGiven+binGiven)
	case p.pipePart && (shard || bin):
		return nil, nil, nil, fmt.Errorf("%s reads the lines of stdin: not with --pipepart (use --pipe)", shardGiven+binGiven)
	case p.roundRobin && (shard || bin):
		return nil, nil, nil, fmt.Errorf("%s gives each line to the job of its value: not with --round-robin", shardGiven+binGiven)
	}
	_, headerGiven := gnuChanged(f, "header")
	if shard || bin {
		given, v := shardGiven, p.shard
		if bin {
			given, v = binGiven, p.bin
		}
		spec, err := parseSpreadSpec(given, v)
		if err != nil {
			return nil, nil, nil, err
		}
		// GNU: lines split at --colsep, by default "," ("\t" with
		// --header, which otherwise does nothing here); a column name
		// is looked up in the first line, split at --colsep as given
		// (or into characters), and the line is dropped.
		lookup := ""
		if colsepGiven || headerGiven {
			lookup = cfg.colSep
			if !colsepGiven {
				lookup = "\t"
			}
		}
		sep := lookup
		if sep == "" {
			sep = ","
		}
		s := &gnuinput.Spread{Column: gnuinput.Column{Col: spec.col, ColSep: sep}, Bin: bin}
		if spec.name != "" {
			header, err := readLine(stdin)
			if err != nil {
				return nil, nil, nil, err
			}
			if s.Col, err = gnuinput.HeaderColumn(header, spec.name, lookup); err != nil {
				return nil, nil, nil, fmt.Errorf("%s %q: %w", given, v, unwrapRunner(err))
			}
		}
		return s, nil, stdin, nil
	}
	spec, err := parseSpreadSpec(groupGiven, p.groupBy)
	if err != nil {
		return nil, nil, nil, err
	}
	if spec.number && spec.col < 1 {
		// GNU: a column is [a-z0-9_]+, so "-1" is a Perl expression;
		// "00" is $F[0], as 1.
		if spec.col < 0 {
			return nil, nil, nil, fmt.Errorf("%s %q: a Perl expression is not supported, as {= =} is not: give a column number (from 1) or name", groupGiven, p.groupBy)
		}
		spec.col = 1
	}
	sep := cfg.colSep
	if !colsepGiven {
		sep = "\t" // GNU: --group-by splits at tabs by default
	}
	g := &gnuinput.GroupBy{Column: gnuinput.Column{Col: spec.col, ColSep: sep}}
	if headerGiven {
		h := strings.TrimSpace(cfg.gnu.header)
		n, err := strconv.Atoi(h)
		switch {
		case h == ":":
			g.Header = 1
		case err == nil && n >= 0 && n <= 10000:
			g.Header = n
		default:
			return nil, nil, nil, fmt.Errorf("--header %q with %s: give : (one line) or a number of lines", cfg.gnu.header, groupGiven)
		}
	}
	if spec.name != "" {
		if p.pipePart {
			return nil, nil, nil, fmt.Errorf("%s %q: a column name is not supported with --pipepart (GNU's man page says so): give its number", groupGiven, p.groupBy)
		}
		br := bufio.NewReader(stdin)
		line, rerr := br.ReadString('\n')
		if rerr != nil && rerr != io.EOF {
			return nil, nil, nil, rerr
		}
		var err error
		if g.Col, err = gnuinput.HeaderColumn(line, spec.name, sep); err != nil {
			return nil, nil, nil, fmt.Errorf("%s %q: %w", groupGiven, p.groupBy, unwrapRunner(err))
		}
		// The line is the header, given before every chunk.
		g.Header = 1
		return nil, g, io.MultiReader(strings.NewReader(line), br), nil
	}
	return nil, g, stdin, nil
}

// unwrapRunner drops the runner's error prefix (the option is named
// instead).
func unwrapRunner(err error) error {
	s := err.Error()
	for _, e := range []error{gnuinput.ErrBadInput, runner.ErrInvalidConfig} {
		s = strings.TrimPrefix(s, e.Error()+": ")
	}
	return errors.New(s)
}

// perlTrue says s is true to Perl: neither "" nor "0".
func perlTrue(s string) bool { return s != "" && s != "0" }
