package runcmd

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/worksteal/worksteal/internal/jobio"
	"github.com/worksteal/worksteal/internal/runopts"
	"github.com/worksteal/worksteal/runner"
)

// resultsSink saves each job's output as GNU parallel's --results does
// (20221122), in place of writing it to stdout and stderr:
//
//   - NAME (no replacement string): NAME/<ARGS>/stdout, stderr and seq,
//     where <ARGS> is, for each value of the job, its source's number (or
//     column name under --header) and the value, with \ \t NUL and /
//     written as \\ \t \0 \_;
//   - NAME with replacement strings: the file it names (stdout), with .err
//     and .seq beside it; a NAME that ends in / is a directory holding
//     stdout, stderr and seq;
//   - NAME.csv, NAME.tsv, NAME.json: one row per job (Seq, Host,
//     Starttime, JobRuntime, Send, Receive, Exitval, Signal, Command, the
//     values, Stdout, Stderr); -.csv, -.tsv and -.json write it on stdout.
//
// Its method is called by the runner's output goroutine only.
type resultsSink struct {
	name    string
	sep     string // "," or "\t" for a table; "" otherwise
	json    bool
	out     *bufio.Writer
	file    *os.File // the table's file; nil for stdout
	headers bool     // the value columns are named by --header, not V1 ... Vn
	started bool     // the table's header row is written
	// written holds the files this run has written, by the job (Seq)
	// that wrote them: a tree's nodes (worksteal spawn) are saved under
	// their root task's name, each appending to what its job wrote there
	// before; another job's file, or one from an earlier run, is
	// replaced, as GNU does.
	written map[string]int
}

// newResultsSink opens what --results NAME says; stdout is where -.csv
// writes.
func newResultsSink(name string, headers bool, stdout io.Writer) (*resultsSink, error) {
	s := &resultsSink{name: name, headers: headers}
	switch {
	case strings.HasSuffix(name, ".csv"):
		s.sep = ","
	case strings.HasSuffix(name, ".tsv"):
		s.sep = "\t"
	case strings.HasSuffix(name, ".json"):
		s.json = true
	default:
		return s, nil
	}
	if name == "-.csv" || name == "-.tsv" || name == "-.json" {
		s.out = bufio.NewWriter(stdout)
		return s, nil
	}
	f, err := os.Create(name)
	if err != nil {
		return nil, fmt.Errorf("--results %s: %w", name, err)
	}
	s.file, s.out = f, bufio.NewWriter(f)
	return s, nil
}

// Close flushes and closes the table.
func (s *resultsSink) Close() error {
	if s.out == nil {
		return nil
	}
	err := s.out.Flush()
	if s.file != nil {
		if cerr := s.file.Close(); err == nil {
			err = cerr
		}
	}
	return err
}

// take saves one job's result, run on this machine.
func (s *resultsSink) take(res runner.Result) error { return s.takeOn(res, ":") }

// takeOn saves one job's result, run on host (a worker's name, or ":" for
// this machine).
func (s *resultsSink) takeOn(res runner.Result, host string) error {
	if s.out != nil {
		s.row(res, host)
		return s.out.Flush()
	}
	seq := []byte(strconv.Itoa(res.Seq))
	if p := jobio.Of(res.Job).ResultsIn(res.Slot); p != "" {
		if strings.HasSuffix(p, "/") {
			return s.writeFiles(p, res, seq, "stdout", "stderr", "seq")
		}
		return s.writeFiles(p, res, seq, "", ".err", ".seq")
	}
	return s.writeFiles(filepath.Join(s.name, argsAsDirname(res.Job))+"/", res, seq, "stdout", "stderr", "seq")
}

// writeFiles writes prefix+out, prefix+err and prefix+seq, making the
// directories they are in; output and error are appended to files this
// run wrote before for the same job (a tree's nodes share their root
// task's), and replace another job's (two jobs of the same arguments: the
// later one's, as GNU parallel).
func (s *resultsSink) writeFiles(prefix string, res runner.Result, seq []byte, out, errName, seqName string) error {
	if err := os.MkdirAll(filepath.Dir(prefix+"x"), 0o755); err != nil {
		return err
	}
	for _, f := range []struct {
		name string
		data []byte
	}{{prefix + out, res.Stdout}, {prefix + errName, res.Stderr}, {prefix + seqName, seq}} {
		flag := os.O_WRONLY | os.O_CREATE | os.O_TRUNC
		if seqNo, ok := s.written[f.name]; ok && seqNo == res.Seq && f.name != prefix+seqName {
			flag = os.O_WRONLY | os.O_APPEND
		}
		file, err := os.OpenFile(f.name, flag, 0o644)
		if err != nil {
			return err
		}
		_, err = file.Write(f.data)
		if cerr := file.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
		if s.written == nil {
			s.written = map[string]int{}
		}
		s.written[f.name] = res.Seq
	}
	return nil
}

// maxFileName is the longest file name, in bytes, of Linux's file
// systems (NAME_MAX).
const maxFileName = 255

// argsAsDirname is GNU's args_as_dirname: name/value for each value, the
// names in order (numbers by value, then names).
func argsAsDirname(j runner.Job) string {
	type nv struct{ name, value string }
	var parts []string
	// Per record: GNU sorts a record's values by their sources' names.
	args, names := jobio.Of(j).Args(), jobio.Of(j).ArgNames()
	n := len(args)
	width := 0
	for i, name := range names {
		if i > 0 && name == names[0] {
			break
		}
		width++
	}
	for start := 0; start < n; start += max(width, 1) {
		var rec []nv
		for i := start; i < min(start+width, n); i++ {
			rec = append(rec, nv{names[i], args[i]})
		}
		slices.SortStableFunc(rec, func(a, b nv) int { return compareHeaders(a.name, b.name) })
		for _, x := range rec {
			v := dirnameEscaper.Replace(x.value)
			// GNU keeps each directory name within the file system's
			// longest (it measures it; 255 bytes on Linux's).
			v = v[:min(len(v), maxFileName)]
			parts = append(parts, x.name, v)
		}
	}
	return strings.Join(parts, "/")
}

var dirnameEscaper = strings.NewReplacer(`\`, `\\`, "\t", `\t`, "\x00", `\0`, "/", `\_`)

// compareHeaders orders source names as GNU's header_indexes_sorted: by
// their leading number, then by name.
func compareHeaders(a, b string) int {
	num := func(s string) int {
		k := 0
		for k < len(s) && s[k] >= '0' && s[k] <= '9' {
			k++
		}
		n, _ := strconv.Atoi(s[:k])
		return n
	}
	if x, y := num(a), num(b); x != y {
		return x - y
	}
	return strings.Compare(a, b)
}

// row writes one row of the table (and the header row first).
func (s *resultsSink) row(res runner.Result, host string) {
	rec := runopts.Record(res, host)
	start := fmt.Sprintf("%.3f", float64(rec.Start.UnixMilli())/1000)
	runtime := fmt.Sprintf("%.3f", rec.Runtime.Seconds())
	if s.json {
		var vs []string
		for _, v := range jobio.Of(res.Job).Args() {
			vs = append(vs, `"`+jsonQuote(v)+`"`)
		}
		fmt.Fprintf(s.out, `{ "Seq": %d, "Host": "%s", "Starttime": %s, "JobRuntime": %s, "Send": %d, "Receive": %d, "Exitval": %d, "Signal": %d, "Command": "%s", "V": [ %s ], "Stdout": "%s", "Stderr": "%s" }`+"\n",
			rec.Seq, jsonQuote(rec.Host), start, runtime, rec.Send, rec.Receive, rec.Exit, rec.Signal, jsonQuote(rec.Command),
			strings.Join(vs, ","), jsonQuote(string(res.Stdout)), jsonQuote(string(res.Stderr)))
		return
	}
	if !s.started {
		s.started = true
		cols := []string{"Seq", "Host", "Starttime", "JobRuntime", "Send", "Receive", "Exitval", "Signal", "Command"}
		names := jobio.Of(res.Job).ArgNames()
		for i := range jobio.Of(res.Job).Args() {
			name := "V" + strconv.Itoa(i+1)
			if s.headers && i < len(names) {
				name = names[i]
			}
			cols = append(cols, name)
		}
		s.writeRow(append(cols, "Stdout", "Stderr"))
	}
	cols := []string{strconv.Itoa(rec.Seq), rec.Host, start, runtime, strconv.FormatInt(rec.Send, 10), strconv.FormatInt(rec.Receive, 10),
		strconv.Itoa(rec.Exit), strconv.Itoa(rec.Signal), rec.Command}
	cols = append(cols, jobio.Of(res.Job).Args()...)
	s.writeRow(append(cols, string(res.Stdout), string(res.Stderr)))
}

// writeRow is GNU's combine_ref: a column holding a quote, white space,
// the separator or a NUL is quoted, its quotes doubled.
func (s *resultsSink) writeRow(cols []string) {
	for i, c := range cols {
		if i > 0 {
			s.out.WriteString(s.sep)
		}
		if strings.ContainsAny(c, "\" \t\n\r\f\v\x00"+s.sep) {
			c = `"` + strings.ReplaceAll(c, `"`, `""`) + `"`
		}
		s.out.WriteString(c)
	}
	s.out.WriteByte('\n')
}

// jsonQuote is GNU's jsonquote: \ and " escaped, bytes below 32 as \u00XX.
func jsonQuote(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\' || c == '"':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c < 32:
			fmt.Fprintf(&b, `\u%04x`, c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// filesSink is GNU parallel's --files: each job's stdout (after -v's
// line) goes to a file of its own in dir ($TMPDIR if ""), parXXXXXX.par,
// left for the user; its name, after --tag's, is the job's output. The
// job's stderr is dropped, as GNU's is.
func filesSink(dir string, out io.Writer, tag bool) func(runner.Result) error {
	if dir == "" {
		dir = os.TempDir()
	}
	return func(res runner.Result) error {
		f, err := os.CreateTemp(dir, "par*.par")
		if err != nil {
			return err
		}
		_, err = f.Write(res.Stdout)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		line := f.Name() + "\n"
		if tag {
			line = jobio.Of(res.Job).TagIn(res.Slot) + "\t" + line
		}
		if _, werr := io.WriteString(out, line); err == nil {
			err = werr
		}
		return err
	}
}
