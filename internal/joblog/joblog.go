// Package joblog reads and writes GNU parallel's joblog (--joblog,
// --resume, --resume-failed): one tab-separated row per finished job, as
// worksteal run writes it, runner.Run filling it in as each job ends. A Go
// program that runs a batch reads its outcomes from runner.Summary; the
// joblog is worksteal run's file format, so it lives here.
package joblog

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/worksteal/worksteal/internal/jobio"
)

// ErrBad: a joblog could not be read (a malformed row before the last
// one; a torn last row, left by a crash, is ignored).
var ErrBad = errors.New("runner: bad joblog")

// Header is the first line of a joblog: GNU parallel's columns.
const Header = "Seq\tHost\tStarttime\tJobRuntime\tSend\tReceive\tExitval\tSignal\tCommand"

// Record is one row of a joblog: the final outcome of one job (its last
// attempt, or the winning copy).
type Record struct {
	Seq     int           // the job's position in its input
	Host    string        // ":" for this machine, a worker's name in a cluster
	Start   time.Time     // start of the recorded attempt
	Runtime time.Duration // its run time
	Send    int64         // bytes sent (always 0 here; GNU parallel's --transfer)
	Receive int64         // bytes of output the job wrote to stdout (GNU parallel's)
	Exit    int           // exit status (GNU parallel's: 0 when killed by a signal, -1 when killed at its timeout or not started)
	Signal  int           // the signal that ended it, 0 if none
	Command string        // the command, as Job.Command
}

// OK says the row records a success: exit status 0 and no signal.
func (r Record) OK() bool { return r.Exit == 0 && r.Signal == 0 }

// String formats r as one joblog row, without the newline.
func (r Record) String() string {
	start := 0.0
	if !r.Start.IsZero() {
		start = float64(r.Start.UnixMilli()) / 1000
	}
	return fmt.Sprintf("%d\t%s\t%.3f\t%10.3f\t%d\t%d\t%d\t%d\t%s",
		r.Seq, r.Host, start, r.Runtime.Seconds(), r.Send, r.Receive, r.Exit, r.Signal, logCommand(r.Command))
}

// logCommand keeps a command on one joblog line: a newline is written as
// NUL, as GNU parallel writes it (and reads it back, for --retry-failed).
func logCommand(c string) string { return strings.ReplaceAll(c, "\n", "\x00") }

// Read parses a joblog. A torn last row (no newline, too few columns),
// as a crash mid-write leaves it, is ignored; any other malformed row is an
// error wrapping ErrBad that names the line. A line longer than
// jobio.MaxLineBytes is an error: the reader never holds more than about that
// much of a line, whatever the file (a file without newlines, /dev/zero).
func Read(r io.Reader) ([]Record, error) {
	var recs []Record
	lr := jobio.NewLineReader(r)
	lr.NUL = false // a NUL byte makes the row malformed: parseRecord says so
	for {
		b, complete, err := lr.Next()
		n := lr.N
		if err == io.EOF {
			return recs, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%w: line %d: %v", ErrBad, n, err)
		}
		torn := !complete
		line := string(b) // a "\r" stays in the Command column, as GNU parallel keeps it
		if line == "" || (n == 1 && strings.HasPrefix(line, "Seq\t")) {
			if torn {
				return recs, nil
			}
			continue
		}
		rec, perr := parseRecord(line)
		if perr != nil {
			if torn {
				return recs, nil
			}
			return nil, fmt.Errorf("%w: line %d: %v", ErrBad, n, perr)
		}
		recs = append(recs, rec)
		if torn {
			return recs, nil
		}
	}
}

func parseRecord(line string) (Record, error) {
	f := strings.SplitN(line, "\t", 9)
	if len(f) != 9 {
		return Record{}, fmt.Errorf("%d columns; want 9", len(f))
	}
	var rec Record
	var err error
	num := func(i int, name string) int64 {
		if err != nil {
			return 0
		}
		v, e := strconv.ParseInt(strings.TrimSpace(f[i]), 10, 64)
		if e != nil {
			err = fmt.Errorf("%s %q is not an integer", name, f[i])
		}
		return v
	}
	secs := func(i int, name string) float64 {
		if err != nil {
			return 0
		}
		v, e := strconv.ParseFloat(strings.TrimSpace(f[i]), 64)
		// 1e9 s (31 years) keeps a run time within a time.Duration and a
		// start time (×1000) within milliseconds since 1970 for 30,000 years.
		limit := 1e9
		if i == 2 {
			limit = 1e12
		}
		if e != nil || math.IsNaN(v) || v < 0 || v >= limit {
			err = fmt.Errorf("%s %q is not a number of seconds (0 to %g)", name, f[i], limit)
		}
		return v
	}
	// A NUL in the command is a newline (logCommand); elsewhere, a
	// malformed row.
	if strings.IndexByte(line[:len(line)-len(f[8])], 0) >= 0 {
		return Record{}, jobio.ErrNUL
	}
	rec.Seq = int(num(0, "Seq"))
	rec.Host = f[1]
	rec.Start = time.UnixMilli(int64(math.Round(secs(2, "Starttime") * 1000)))
	rec.Runtime = time.Duration(secs(3, "JobRuntime") * float64(time.Second))
	rec.Send = num(4, "Send")
	rec.Receive = num(5, "Receive")
	rec.Exit = int(num(6, "Exitval"))
	rec.Signal = int(num(7, "Signal"))
	rec.Command = strings.ReplaceAll(f[8], "\x00", "\n")
	return rec, err
}

// ReadFile reads the joblog at path; a missing file is no records,
// and so is a file that is not a regular one (/dev/null, a terminal): a
// joblog written there cannot be read back.
func ReadFile(path string) ([]Record, error) {
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return nil, err
	}
	recs, err := Read(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return recs, nil
}

// Log appends rows to a joblog as jobs finish. Each row is written
// with one write call, so a crash of the runner loses at most the row being
// written, and Read ignores that torn row. It is safe for concurrent
// use.
type Log struct {
	mu sync.Mutex
	w  io.Writer
	c  io.Closer // nil for a writer the Log does not own
}

// New writes a joblog to w (GNU parallel's --joblog -: stdout),
// starting with the header. Close does not close w.
func New(w io.Writer) (*Log, error) {
	if _, err := io.WriteString(w, Header+"\n"); err != nil {
		return nil, err
	}
	return &Log{w: w}, nil
}

// Open opens the joblog at path for appending (truncating it first
// unless appending is set), writing the header when the file is new or
// empty. A path that is not a regular file (/dev/null, a pipe) is written
// as it is, header first.
func Open(path string, appending bool) (*Log, error) {
	if st, err := os.Stat(path); err == nil && !st.Mode().IsRegular() {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			return nil, err
		}
		// Like GNU parallel, a joblog that cannot be written (/dev/full)
		// does not stop the batch: Run reports the failed write.
		io.WriteString(f, Header+"\n")
		return &Log{w: f, c: f}, nil
	}
	flag := os.O_CREATE | os.O_RDWR | os.O_APPEND
	if !appending {
		flag |= os.O_TRUNC
	}
	f, err := os.OpenFile(path, flag, 0o644)
	if err != nil {
		return nil, err
	}
	if err := initJoblog(f); err != nil {
		f.Close()
		return nil, err
	}
	return &Log{w: f, c: f}, nil
}

// initJoblog drops a torn last row and writes the header into an empty file.
func initJoblog(f *os.File) error {
	st, err := f.Stat()
	if err != nil {
		return err
	}
	if err := dropTornRow(f, st.Size()); err != nil {
		return err
	}
	if st, err = f.Stat(); err != nil || st.Size() > 0 {
		return err
	}
	_, err = f.WriteString(Header + "\n")
	return err
}

// dropTornRow truncates f after its last newline: a crash mid-write may have
// left a partial row, which Read ignores but which an appended row
// would turn into a malformed one.
func dropTornRow(f *os.File, size int64) error {
	buf := make([]byte, 4096)
	for end := size; end > 0; {
		start := max(0, end-int64(len(buf)))
		n, err := f.ReadAt(buf[:end-start], start)
		if err != nil && err != io.EOF {
			return err
		}
		if i := bytes.LastIndexByte(buf[:n], '\n'); i >= 0 {
			if start+int64(i)+1 == size {
				return nil
			}
			return f.Truncate(start + int64(i) + 1)
		}
		end = start
	}
	return f.Truncate(0)
}

// Write appends one row.
func (l *Log) Write(r Record) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	_, err := io.WriteString(l.w, r.String()+"\n")
	return err
}

// Close closes the file (not a writer given to New).
func (l *Log) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.c == nil {
		return nil
	}
	return l.c.Close()
}

// Resume returns the jobs that records do not show as done, and the
// number skipped; seq gives a job's sequence number. As GNU parallel does, a job is matched by its sequence
// number (so the input must be the same as in the logged run): with
// rerunFailed false (--resume) every job in the records is skipped; with
// rerunFailed true (--resume-failed) only those that succeeded are, and
// the failed ones run again. Interrupted jobs are not in a joblog, and run
// again either way.
func Resume[J any](jobs []J, seq func(J) int, records []Record, rerunFailed bool) (todo []J, skipped int) {
	done := map[int]bool{}
	for _, r := range records {
		if r.OK() || !rerunFailed {
			done[r.Seq] = true
		}
	}
	for _, j := range jobs {
		if done[seq(j)] {
			skipped++
			continue
		}
		todo = append(todo, j)
	}
	return todo, skipped
}

// Runtimes returns, per command, the run time of its latest success in
// records: the cost memory that orders a rerun longest first.
func Runtimes(records []Record) map[string]time.Duration {
	m := map[string]time.Duration{}
	for _, r := range records {
		if r.OK() {
			m[r.Command] = r.Runtime
		}
	}
	return m
}
