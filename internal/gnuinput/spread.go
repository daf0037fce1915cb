package gnuinput

// GNU parallel's --shard, --bin and --group-by (20221122): the lines of
// the input go to the jobs by the value of a column (see "SPREADING
// BLOCKS OF DATA" in man parallel). Perl expressions after the column are
// not supported (as {= =} is not).

import (
	"bufio"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/worksteal/worksteal/internal/jobio"
	"github.com/worksteal/worksteal/runner"
)

// Column picks the value of a line that --shard, --bin and --group-by go
// by: the line split at ColSep (a regular expression, over bytes), and the
// Col-th field (1-based), as GNU parallel's Perl split reads it: the last
// field keeps the line's newline, a missing field is "", and a ColSep of
// one space splits at runs of white space (Perl's awk mode). GNU's
// sharders take $F[Col-1] of split(ColSep, line, Col+1), so a Col of 0 or
// less is a Perl array index from the end: 0 the whole line (a split into
// one field), -1 the field before the last of the line split with its
// trailing empty fields dropped, -n (n > 1) the (n+1)-th field from the
// end, trailing empty fields kept.
type Column struct {
	Col    int
	ColSep string
}

type columnKey struct {
	col int
	sep *byteRegexp
	awk bool
}

func (c Column) compile() (columnKey, error) {
	k := columnKey{col: c.Col, awk: c.ColSep == " "}
	if !k.awk {
		sep, err := compileBytes(c.ColSep)
		if err != nil {
			return k, fmt.Errorf("%w: --colsep %q: %v", runner.ErrInvalidConfig, c.ColSep, err)
		}
		k.sep = sep
	}
	return k, nil
}

var awkSep = regexp.MustCompile(`\s+`)

// of is the key of line (with its newline).
func (k columnKey) of(line string) string {
	// Perl's split LIMIT: k.col+1 fields at most when positive; all of
	// them when negative; when 0, all but the trailing empty ones.
	limit := k.col + 1
	n := limit
	if limit <= 0 {
		n = -1
	}
	var f []string
	if k.awk {
		f = awkSep.Split(strings.TrimLeft(line, " \t\n\r\f\v"), n)
	} else {
		f = k.sep.Split(line, n)
	}
	if limit == 0 {
		for len(f) > 0 && f[len(f)-1] == "" {
			f = f[:len(f)-1]
		}
	}
	i := k.col - 1 // $F[$col0]
	if i < 0 {
		i += len(f) // an index from the end
	}
	if i < 0 || i >= len(f) {
		return "" // undef
	}
	return f[i]
}

// HeaderColumn is the number of the column a header line names (GNU
// parallel: the line, newline and all, split at colSep, or into its
// characters when colSep is ""; the last of equal names counts).
func HeaderColumn(header, name, colSep string) (int, error) {
	var names []string
	if colSep == "" {
		names = strings.Split(header, "")
	} else {
		sep, err := compileBytes(colSep)
		if err != nil {
			return 0, fmt.Errorf("%w: --colsep %q: %v", runner.ErrInvalidConfig, colSep, err)
		}
		names = sep.Split(header, -1)
	}
	col := 0
	for i, n := range names {
		if n == name {
			col = i + 1
		}
	}
	if col == 0 {
		return 0, fmt.Errorf("%w: column %q is not in the header %q (split at %q)", ErrBadInput, name, strings.TrimSuffix(header, "\n"), colSep)
	}
	return col, nil
}

// perlInt reads s as Perl reads a string as a number, truncated to an
// integer (Perl's %): leading white space, a sign, digits, a fraction,
// an exponent; anything else is 0.
func perlInt(s string) int64 {
	s = strings.TrimLeft(s, " \t\n\r\f\v")
	m := perlNum.FindString(s)
	v, err := strconv.ParseFloat(m, 64)
	if err != nil || math.IsNaN(v) {
		return 0
	}
	return int64(max(min(math.Trunc(v), math.MaxInt64/2), math.MinInt64/2))
}

var perlNum = regexp.MustCompile(`^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?`)

// Spread says how --shard and --bin give each line to one of n jobs.
type Spread struct {
	Column
	// Bin gives a line to the job its value names, modulo n (value n or
	// 0 to job n, as GNU parallel's --bin); otherwise lines of one value
	// go to one job, chosen by a hash of the value (--shard: GNU's hash
	// is seeded afresh each run, so which job is not defined).
	Bin bool
}

func (s Spread) slot(k columnKey, line string, n int) int {
	v := k.of(line)
	if s.Bin {
		m := perlInt(v) % int64(n)
		if m <= 0 {
			m += int64(n) // Perl's % takes the sign of n; 0 is the last job
		}
		return int(m) - 1
	}
	h := fnv.New64a()
	io.WriteString(h, v)
	return int(h.Sum64() % uint64(n))
}

// Spread starts n jobs at once and gives each line of r to one of them,
// on its stdin, as s says (GNU parallel's --shard and --bin): job k has
// number and slot k. Every job starts, even on an empty input. Give jobs
// to RunStream with n slots. Spread returns when r is read (nil), a read
// fails or ctx is done, and closes jobs.
func (pj PipeJobs) Spread(ctx context.Context, r io.Reader, n int, s Spread, jobs chan<- runner.Job) error {
	defer close(jobs)
	if pj.Cat || pj.Fifo {
		return fmt.Errorf("%w: --shard and --bin give the lines on stdin: not with --cat or --fifo", runner.ErrInvalidConfig)
	}
	if n < 1 {
		return fmt.Errorf("%w: --shard and --bin need a number of jobs (-j N)", runner.ErrInvalidConfig)
	}
	k, err := s.compile()
	if err != nil {
		return err
	}
	t, err := pj.template()
	if err != nil {
		return err
	}
	outs := make([]*bufio.Writer, n)
	pws := make([]*io.PipeWriter, n)
	for i := range n {
		pr, pw := io.Pipe()
		pws[i], outs[i] = pw, bufio.NewWriterSize(pw, 64<<10)
		j := pj.job(t, i+1, nil, func() io.Reader { return pr }, 0, false)
		jobio.Of(j).In.NoSend = true // GNU: the job reads a fifo
		select {
		case jobs <- j:
		case <-ctx.Done():
			return context.Cause(ctx)
		}
	}
	// A job that ends before its input does closes its reader (the
	// attempt's end), which fails the writes to it: its lines are
	// dropped and the others go on.
	defer func() {
		for i, w := range outs {
			w.Flush()
			pws[i].Close()
		}
	}()
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, err := br.ReadString('\n')
		if line != "" {
			outs[s.slot(k, line, n)].WriteString(line)
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if ctx.Err() != nil {
			return context.Cause(ctx)
		}
	}
}

// GroupBy marks where the value of a column changes, for --group-by: a
// record is then a run of lines of one value, and --pipe's -N and --block
// count and cut such records.
type GroupBy struct {
	Column
	// Header is the number of lines of header (GNU's --header N, or 1 for
	// a column named in it): they go before every chunk, as they are.
	Header int
}

// GroupBy returns pj set to cut at the changes of value of g's column,
// and the input to cut (r with a random separator before each change, as
// GNU parallel inserts one and removes it from each chunk).
func (pj PipeJobs) GroupBy(r io.Reader, g GroupBy) (PipeJobs, io.Reader, error) {
	if pj.RecStart != "" || pj.RecEnd != "" || pj.Binary || pj.Regexp || pj.RemoveRecSep {
		return pj, nil, errors.New("--group-by makes its own records: not with --recstart, --recend, --regexp or --remove-rec-sep")
	}
	k, err := g.compile()
	if err != nil {
		return pj, nil, err
	}
	br := bufio.NewReaderSize(r, 64<<10)
	var header []byte
	for range g.Header {
		line, err := br.ReadBytes('\n')
		header = append(header, line...)
		if err == io.EOF {
			break
		}
		if err != nil {
			return pj, nil, err
		}
	}
	sep := make([]byte, 20) // GNU's: 20 random letters and digits
	const alnum = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	rand.Read(sep)
	for i, b := range sep {
		sep[i] = alnum[int(b)%len(alnum)]
	}
	pj.RecStart, pj.RecEnd, pj.RemoveRecSep, pj.Header = string(sep), "", true, ""
	if len(header) > 0 {
		pj.Header = regexp.QuoteMeta(string(header))
	}
	pr, pw := io.Pipe()
	go func() {
		w := bufio.NewWriterSize(pw, 64<<10)
		w.Write(header)
		last, first := "", true
		var err error
		for {
			var line string
			line, err = br.ReadString('\n')
			if line != "" {
				if v := k.of(line); first || v != last {
					w.Write(sep)
					last, first = v, false
				}
				if _, werr := w.WriteString(line); werr != nil {
					pw.CloseWithError(werr)
					return
				}
			}
			if err != nil {
				break
			}
		}
		if err == io.EOF {
			err = w.Flush()
		}
		pw.CloseWithError(err)
	}()
	return pj, pr, nil
}
