package runner

import (
	"bytes"
	"io"
	"strings"
	"sync"

	"github.com/worksteal/worksteal/internal/runopts"
)

// latestScreen paints the latest line of each job on a row of its own, as
// GNU parallel's --latest-line (Job::print_latest_line): a job's row is its
// sequence number under KeepOrder, else the next free row when it is first
// painted; only rows in [minVisible, minVisible+Rows-1) are painted, and a
// finished job's row is left to the screen once every row above it is
// finished too.
//
// Invariant: mu guards every field, and every paint is one write to out
// made while mu is held: the cursor position (curRow) is that of the last
// paint, never of a paint half written.
type latestScreen struct {
	mu         sync.Mutex
	out        io.Writer
	scr        runopts.Screen
	keepOrder  bool
	curRow     int
	maxRow     int
	minVisible int
	nextRow    int
	later      map[int]*latestJob    // finished jobs whose rows are still on the screen
	resize     <-chan runopts.Screen // a new size of the terminal, taken at a paint
}

func newLatestScreen(out io.Writer, scr runopts.Screen, keepOrder bool) *latestScreen {
	if scr.Rows <= 0 {
		scr.Rows = 24
	}
	if scr.Cols <= 0 {
		scr.Cols = 80
	}
	return &latestScreen{out: out, scr: scr, keepOrder: keepOrder, curRow: 1, maxRow: 1, minVisible: 1, later: map[int]*latestJob{}}
}

// latestJob is one attempt's output under outputLatestLine: its stdout and
// stderr are one stream (one pipe, as GNU's), whose latest whole line (a
// line ends at \n, or at \r in a read without \n) is painted.
type latestJob struct {
	s      *latestScreen
	seq    int
	row    int    // 0 until first painted
	tag    string // the tag with its tabs as spaces (GNU's untabtag)
	rawTag string // the tag as --tag writes it
	line   []byte // the latest whole line
	half   []byte // the part after it
	color  func(failed bool) (begin, end string)
	begin  string
	end    string
	drop   bool // LatestLineDrop: the output is dropped, the row painted empty
}

func (s *latestScreen) job(seq int, tag string, color func(failed bool) (begin, end string)) *latestJob {
	j := &latestJob{s: s, seq: seq, tag: untab(tag), rawTag: tag, color: color}
	if color != nil {
		j.begin, j.end = color(false)
	}
	return j
}

// untab is GNU's untabtag: a tab at byte i of the tag as given is the
// 8-i%8 spaces to the next tab stop.
func untab(s string) string { return untabAt(s, false) }

// untabLine is GNU's untabify of the line: as untab, but i counts the
// line's characters (GNU decodes the line first).
func untabLine(s string) string { return untabAt(s, true) }

func untabAt(s string, runes bool) string {
	if !strings.Contains(s, "\t") {
		return s
	}
	var b strings.Builder
	n := 0
	for i, r := range s {
		pos := i
		if runes {
			pos = n
		}
		n++
		if r == '\t' {
			b.WriteString(strings.Repeat(" ", 8-pos%8))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// lastEnd is GNU's rindex("\n")+1 || rindex("\r")+1: where the text after
// the last line end begins, 0 for none.
func lastEnd(p []byte) int {
	if i := bytes.LastIndexByte(p, '\n'); i >= 0 {
		return i + 1
	}
	return bytes.LastIndexByte(p, '\r') + 1
}

// Write takes a read of the job's output: the latest whole line in it is
// kept and painted.
func (j *latestJob) Write(p []byte) (int, error) {
	j.s.mu.Lock()
	defer j.s.mu.Unlock()
	if j.drop {
		return len(p), nil // GNU's --files/--results: its pipe is never read
	}
	j.take(p)
	j.s.paint(j)
	return len(p), nil
}

// take keeps the latest whole line of p. Called with s.mu held.
func (j *latestJob) take(p []byte) {
	if i := lastEnd(p); i > 0 {
		l := append(j.half, p[:i-1]...)
		j.line = append(j.line[:0], l[lastEnd(l):]...)
		j.half = append([]byte(nil), p[i:]...)
	} else {
		j.half = append(j.half, p...)
	}
}

// start paints the job's row when it starts (GNU paints every running job
// at each turn of its loop, the first before any output) with first, the
// job's first output, taken before it (-v's command: GNU writes it into the
// job's pipe before the job starts, so no paint comes before it); under
// drop it writes the tag and a newline instead (GNU's line of the file
// name, which --latest-line leaves without a name) and paints only when
// the job ends.
func (j *latestJob) start(first string) {
	j.s.mu.Lock()
	defer j.s.mu.Unlock()
	if j.drop {
		io.WriteString(j.s.out, j.rawTag+"\n")
		return
	}
	j.take([]byte(first))
	j.s.paint(j)
}

// finish paints the job's last line (in --color-failed's colour if it
// failed), leaves the rows of finished jobs at the top to the screen,
// repaints the finished jobs still on it, and writes the part of a last
// line without a newline as it is, after the tag (GNU's print_linebuffer
// of a dead job).
func (j *latestJob) finish(failed bool) {
	s := j.s
	s.mu.Lock()
	defer s.mu.Unlock()
	s.later[s.row(j)] = j
	s.paint(j)
	if j.color != nil {
		j.begin, j.end = j.color(failed)
	}
	s.paint(j)
	for {
		f := s.later[s.minVisible]
		if f == nil {
			break
		}
		s.paint(f)
		delete(s.later, s.minVisible)
		s.minVisible++
	}
	for row := s.minVisible; row < s.minVisible-1+s.scr.Rows; row++ {
		if f := s.later[row]; f != nil {
			s.paint(f)
		}
	}
	if len(j.half) > 0 {
		io.WriteString(s.out, j.rawTag+string(j.half))
		j.half = nil
	}
}

func (s *latestScreen) row(j *latestJob) int {
	if j.row == 0 {
		if s.keepOrder {
			j.row = j.seq
		} else {
			s.nextRow++
			j.row = s.nextRow
		}
	}
	return j.row
}

// paint is GNU's print_latest_line: the cursor goes to the job's row, the
// row is written as tag + the line cut to the terminal's width + " " (">"
// when cut), and the cursor goes below the last row. Called with mu held.
func (s *latestScreen) paint(j *latestJob) {
	select {
	case scr := <-s.resize:
		if scr.Rows > 0 && scr.Cols > 0 {
			s.scr.Rows, s.scr.Cols = scr.Rows, scr.Cols
		}
	default:
	}
	row := s.row(j)
	if !(s.minVisible <= row && row < s.minVisible+s.scr.Rows-1) {
		return
	}
	cols := s.scr.Cols
	tag := []rune(j.tag)
	tagLen := len(tag)
	line := []rune(untabLine(string(j.line)))
	strLen := cols - tagLen
	spc := strLen - len(line)
	strLen--
	strLen = max(strLen, 0)
	cut, cutTag := " ", ""
	if spc <= 0 {
		cut = ">"
	}
	if tagLen > cols {
		tagLen, cutTag, cut = cols-1, ">", ""
	}
	s.maxRow = max(s.maxRow, row)
	var b strings.Builder
	b.WriteString(strings.Repeat(s.scr.Up, max(s.curRow-row, 0)))
	b.WriteString(strings.Repeat("\n", max(row-s.curRow, 0)))
	b.WriteByte('\r')
	b.WriteString(string(tag[:min(max(tagLen, 0), len(tag))]))
	b.WriteString(cutTag)
	b.WriteString(j.begin)
	b.WriteString(string(line[:min(strLen, len(line))]))
	b.WriteString(cut)
	b.WriteString(j.end)
	b.WriteString(strings.Repeat("\n", max(s.maxRow-row+1, 0)))
	s.curRow = s.maxRow + 1
	io.WriteString(s.out, b.String())
}
