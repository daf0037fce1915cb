package gnuinput

// This file is GNU parallel's pipe mode (20221122): --pipe cuts its input
// into chunks of whole records, a job per chunk on the job's stdin;
// --pipepart cuts a file the same way without reading it through the
// runner; --round-robin gives the chunks to a fixed set of jobs; --cat and
// --fifo give a chunk as a temporary file or a named pipe instead of
// stdin. The cutting rules are GNU's, byte for byte (see Pipe.Chunks).

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/worksteal/worksteal/internal/jobio"
	"github.com/worksteal/worksteal/runner"
)

// defaultBlock is GNU parallel's --block: 1 MiB.
const defaultBlock = 1 << 20

// maxBlock is where a growing block stops (GNU's 2 GiB − 1).
const maxBlock = 1<<31 - 1

// Pipe says how a stream is cut into chunks of whole records: GNU
// parallel's --block, --recstart, --recend, -N and --header with --pipe.
// The zero value cuts lines into chunks of about 1 MiB.
type Pipe struct {
	// Block is the size of a chunk in bytes, about: a chunk ends at the
	// last record end of a block, and what follows starts the next one. A
	// record longer than Block makes the block grow (by 30 %, with a
	// warning), as GNU parallel does. ≤ 0 means 1 MiB (GNU's default); for
	// Parts, a negative Block −k means k chunks per slot.
	Block int64
	// RecStart and RecEnd are the strings a record starts and ends with
	// (literal, no escapes). With both, a chunk is cut only where RecEnd is
	// followed by RecStart. With neither, RecEnd is "\n" unless Binary.
	RecStart, RecEnd string
	// Binary cuts anywhere: no record separator (GNU's --recend '').
	Binary bool
	// Records, if > 0, is the number of records of a chunk (GNU's -N with
	// --pipe); Block then only says how much is read at a time.
	Records int
	// Lines, if > 0 and Records is 0, makes a record that many lines
	// (GNU's -L with --pipe): a chunk of a block ends after its last
	// whole record of lines, whatever RecStart and RecEnd say.
	Lines int
	// SkipFirstLine drops the input's first line before the header (GNU
	// parallel's --skip-first-line).
	SkipFirstLine bool
	// NoBlankLines removes the lines of white space from each block as it
	// is read (GNU parallel's -r with --pipe).
	NoBlankLines bool
	// Header, a regular expression (Go syntax), matches the start of the
	// input: the header, given to every chunk before its records. "" means
	// none.
	Header string
	// Warn, if set, receives the warnings (a record longer than Block).
	Warn io.Writer
	// Regexp reads RecStart and RecEnd as regular expressions (Go's
	// syntax; GNU's --regexp): a chunk is cut where RecEnd matches and
	// RecStart matches right after it.
	Regexp bool
	// RemoveRecSep removes the separators from each chunk of Chunks and
	// RoundRobin (GNU's --remove-rec-sep): every RecEnd followed by
	// RecStart, a RecStart at its start and a RecEnd at its end. Parts
	// (--pipepart) leaves them, as GNU parallel does.
	RemoveRecSep bool
	// BlockTimeout, if > 0, stops reading a block after this long (GNU
	// parallel's --block-timeout): the chunk is cut from what was read so
	// far, as at the end of a full block, and a block then never grows.
	BlockTimeout time.Duration
	// CSV cuts a chunk only after a whole CSV record (GNU parallel's
	// --pipe --csv): at the last newline with an even count of '"'
	// before it. Records (-N) then does not apply, as in GNU.
	CSV bool

	group *columnKey // --pipepart --group-by (PipeJobs.GroupParts)
}

// seps returns the record start and end, with GNU's default.
func (p Pipe) seps() (start, end string) {
	if p.RecStart == "" && p.RecEnd == "" && !p.Binary {
		return "", "\n"
	}
	return p.RecStart, p.RecEnd
}

func (p Pipe) block() int {
	if p.Block <= 0 {
		return defaultBlock
	}
	return int(min(p.Block, maxBlock))
}

func (p Pipe) check() error {
	if p.Records < 0 || p.Lines < 0 {
		return fmt.Errorf("%w: records per chunk %d, lines per record %d: must be 0 (by size) or more", runner.ErrInvalidConfig, p.Records, p.Lines)
	}
	if _, err := p.cutter(); err != nil {
		return err
	}
	if _, err := p.recRemover(); err != nil {
		return err
	}
	_, err := p.headerRE()
	return err
}

func (p Pipe) headerRE() (*regexp.Regexp, error) {
	if p.Header == "" {
		return nil, nil
	}
	re, err := regexp.Compile(`^(?:` + p.Header + `)`)
	if err != nil {
		return nil, fmt.Errorf("%w: --header %q: %v", runner.ErrInvalidConfig, p.Header, err)
	}
	return re, nil
}

// readHeader reads r until the header matches the start of what was read
// (GNU: a block at a time) and returns the header and what follows it.
// No match by the end of the input: no header, everything read is data.
func (p Pipe) readHeader(r io.Reader, block int) (header, rest []byte, err error) {
	re, err := p.headerRE()
	if err != nil || re == nil {
		return nil, nil, err
	}
	var buf []byte
	for {
		if cap(buf)-len(buf) < block {
			buf = append(make([]byte, 0, len(buf)+block), buf...)
		}
		n, err := r.Read(buf[len(buf) : len(buf)+block])
		buf = buf[:len(buf)+n]
		if n > 0 {
			if loc := re.FindIndex(buf); loc != nil {
				return bytes.Clone(buf[:loc[1]]), buf[loc[1]:], nil
			}
		}
		if err == io.EOF {
			return nil, buf, nil
		}
		if err != nil {
			return nil, nil, err
		}
	}
}

// Chunks reads r to its end and calls yield with each chunk, in order: the
// header (if any) and whole records, cut as GNU parallel's --pipe cuts
// them. A block is read until the data held is a multiple of Block; then,
// unless the input has ended, the chunk is everything up to the last
// place where RecEnd is followed by RecStart (with Records: every run of
// that many records), and the rest waits for the next block. What is left
// at the end is the last chunk. An empty input has no chunks.
//
// yield owns the chunk it is given. An error of yield, or of r, stops
// Chunks and is returned.
func (p Pipe) Chunks(r io.Reader, yield func(chunk []byte) error) error {
	rm, err := p.recRemover()
	if err != nil {
		return err
	}
	return p.chunks(r, func(header, body []byte) error {
		body = rm.remove(body) // GNU: the header keeps its separators
		if len(header) == 0 {
			return yield(body)
		}
		chunk := make([]byte, 0, len(header)+len(body))
		return yield(append(append(chunk, header...), body...))
	})
}

// chunks is Chunks with each chunk's header apart from its body (body is
// the caller's to keep).
func (p Pipe) chunks(r io.Reader, yield func(header, body []byte) error) error {
	if err := p.check(); err != nil {
		return err
	}
	block := p.block()
	cut, err := p.cutter()
	if err != nil {
		return err
	}
	garbage := p.Regexp && p.Records > 0 // GNU's pass_n_regexps: once
	if p.SkipFirstLine {
		if err := skipLine(r); err != nil {
			return err
		}
	}
	header, buf, err := p.readHeader(r, block)
	if err != nil {
		return err
	}
	var tr *timedReader
	if p.BlockTimeout > 0 {
		tr = newTimedReader(r)
		defer tr.stop()
	}
	// emit hands out buf[:n] with the header and keeps the rest in a
	// buffer of its own: the chunk is never written again.
	emit := func(n int) error {
		body := buf[:n:n]
		buf = append(make([]byte, 0, max(block, len(buf)-n)+block), buf[n:]...)
		return yield(header, body)
	}
	for {
		// GNU's read_block: read up to the next multiple of the block.
		want := block - len(buf)%block
		if cap(buf)-len(buf) < want {
			buf = append(make([]byte, 0, len(buf)+want), buf...)
		}
		eof := false
		var expired <-chan time.Time // GNU: alarm $timeout around the block
		var timer *time.Timer
		if tr != nil {
			timer = time.NewTimer(p.BlockTimeout)
			expired = timer.C
		}
		for want > 0 {
			var n int
			var err error
			if tr != nil {
				n, err = tr.read(buf[len(buf):len(buf)+want], expired)
			} else {
				n, err = r.Read(buf[len(buf) : len(buf)+want])
			}
			buf = buf[:len(buf)+n]
			want -= n
			if err == io.EOF {
				eof = true
				break
			}
			if err == errBlockTimeout {
				break
			}
			if err != nil {
				return err
			}
		}
		if timer != nil {
			timer.Stop()
		}
		if p.NoBlankLines {
			buf = blankLines.ReplaceAll(buf, nil)
			if len(buf) == 0 && !eof {
				continue // GNU: next block, the block as it was
			}
		}
		written := false
		switch {
		case p.Lines > 0 && p.Records == 0:
			if i := lineRecordsCut(buf, p.Lines); i > 0 {
				if err := emit(i); err != nil {
					return err
				}
				written = true
			}
		case p.CSV:
			if i := csvCut(buf); i > 0 {
				if err := emit(i); err != nil {
					return err
				}
				written = true
			}
		case p.Records > 0:
			if garbage {
				garbage = false
				if i := cut.garbageCut(buf); i > 0 {
					if err := emit(i); err != nil {
						return err
					}
					written = true
				}
			}
			for len(buf) > 0 {
				i := cut.nthCut(buf, p.Records)
				if i < 0 {
					break
				}
				if err := emit(i); err != nil {
					return err
				}
				written = true
			}
		case !eof:
			if i := cut.lastCut(buf); i > 0 {
				if err := emit(i); err != nil {
					return err
				}
				written = true
			}
		}
		if eof {
			break
		}
		if !written && block < maxBlock && tr == nil {
			old := block
			block = int(min(math.Ceil(float64(block)*1.3+1), maxBlock))
			if p.Warn != nil {
				fmt.Fprintf(p.Warn, "worksteal: warning: a record was longer than %d bytes: --block grows to %d\n", old, block)
			}
		}
	}
	if len(buf) > 0 {
		return emit(len(buf))
	}
	return nil
}

// nthIndex is GNU's nindex: the position of the n-th sep in buf, the
// search starting after position 0 and after each match; -1 if there are
// fewer. As Perl's index, a search from past the end finds an empty sep
// at the end (an empty --recend with -N: the last chunk is shorter).
func nthIndex(buf, sep []byte, n int) int {
	i := 0
	for range n {
		from := min(i+1, len(buf))
		k := bytes.Index(buf[from:], sep)
		if k < 0 {
			return -1
		}
		i = from + k
	}
	return i
}

// lineRecordsCut is where the last whole record of lines ends in buf:
// after the last newline that ends a multiple of lines newlines; 0 if
// there is none. GNU's pass_n_line_records (-L with --pipe).
func lineRecordsCut(buf []byte, lines int) int {
	k := bytes.Count(buf, []byte{'\n'})
	k -= k % lines
	i := -1
	for range k {
		i += 1 + bytes.IndexByte(buf[i+1:], '\n')
	}
	return i + 1
}

// blankLines are GNU's s/^\s*\n//gm on a block under -r: lines of white
// space, removed.
var blankLines = regexp.MustCompile(`(?m)^[ \t\n\r\f\v]*\n`)

// skipLine drops r's first line, up to its newline (GNU's
// --skip-first-line with --pipe, read a byte at a time whatever the
// record separators).
func skipLine(r io.Reader) error {
	var b [1]byte
	for {
		n, err := r.Read(b[:])
		if n == 1 && b[0] == '\n' {
			return nil
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// Parts cuts a file as GNU parallel's --pipepart does, without reading
// more than the header and a little around each cut: from each multiple
// of the block past the previous cut, the chunk ends at the first place
// where RecEnd is followed by RecStart. A negative Block −k, or 0 (−10),
// makes the block the file's size / slots / k, so that each of the slots
// runs about k chunks. Records (-N) does not apply.
func (p Pipe) Parts(file string, slots int) ([]jobio.Part, error) {
	return p.parts(file, slots, -1)
}

// parts is Parts with the block of a negative Block made from total bytes
// (GNU: the size of every -a file together); total < 0: the file's own.
func (p Pipe) parts(file string, slots int, total int64) ([]jobio.Part, error) {
	if err := p.check(); err != nil {
		return nil, err
	}
	if p.Records > 0 {
		return nil, fmt.Errorf("%w: -N (records per chunk) does not work with --pipepart: cut by --recstart and --recend", runner.ErrInvalidConfig)
	}
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%w: --pipepart %s: not a regular file (a pipe or a stream cannot be cut in place: use --pipe)", ErrBadInput, file)
	}
	size := st.Size()
	if total < 0 {
		total = size
	}
	block := p.Block
	if block <= 0 {
		k := -block
		if k == 0 {
			k = 10
		}
		block = 1 + total/int64(max(slots, 1))/k
	}
	header, _, err := p.readHeader(f, int(min(block, maxBlock)))
	if err != nil {
		return nil, err
	}
	recstart, recend := p.seps()
	sep := []byte(recend + recstart)
	var partRE *regexp.Regexp // GNU: m:^(.*$recend)$recstart:os in what is read so far
	if p.Regexp {
		rs, re := p.regexpSeps()
		if partRE, err = regexp.Compile(`(?s)\A(.*` + re + `)` + rs); err != nil {
			return nil, fmt.Errorf("%w: --recstart %q, --recend %q: %v", runner.ErrInvalidConfig, p.RecStart, p.RecEnd, err)
		}
	}
	skip := int64(len(header))
	if p.group != nil {
		return partsOf(file, header, groupPositions(f, size, block, skip, *p.group)), nil
	}
	pos := []int64{skip}
	const window = 128 << 10 // GNU's dd block
	for at := block + skip; at < size; at += block {
		if len(sep) == 0 && partRE == nil {
			pos = append(pos, at)
			continue
		}
		// The first separator at or after at, read a window at a time.
		var buf []byte
		for off := at; off < size; off += window {
			n := min(window, size-off)
			k := len(buf)
			buf = append(buf, make([]byte, n)...)
			if _, err := f.ReadAt(buf[k:], off); err != nil && err != io.EOF {
				return nil, err
			}
			if partRE != nil {
				if m := partRE.FindSubmatchIndex(buf); m != nil {
					at += int64(m[3])
					pos = append(pos, at)
					break
				}
				continue
			}
			if i := bytes.Index(buf, sep); i >= 0 {
				at += int64(i + len(recend))
				pos = append(pos, at)
				break
			}
		}
	}
	if pos[len(pos)-1] != size {
		pos = append(pos, size)
	}
	return partsOf(file, header, pos), nil
}

// partsOf are the parts between the positions.
func partsOf(file string, header []byte, pos []int64) []jobio.Part {
	parts := make([]jobio.Part, 0, len(pos))
	for i := 0; i+1 < len(pos); i++ {
		parts = append(parts, jobio.Part{File: file, Off: pos[i], Len: pos[i+1] - pos[i], Header: header})
	}
	return parts
}

// PipeJobs makes the jobs of a pipe-mode batch: a job per chunk, each
// running Template with its chunk as input.
type PipeJobs struct {
	Pipe
	// Template is the command. {#} and {%} are the job's number and slot;
	// {} is the chunk's file with Cat or Fifo ($PARALLEL_TMP), else empty
	// ('' with --pipe, nothing with --pipepart), as in GNU parallel. Nothing is appended to the command, but
	// with Cat or Fifo a command without replacement strings gets the
	// file's name appended, as GNU parallel does.
	Template []string
	Quote    bool   // GNU's -q
	Parens   string // GNU's --parens: the delimiters of a perl expression ("" is {==})
	// Cat gives each job its chunk as a temporary file instead of stdin,
	// named by $PARALLEL_TMP (GNU's --cat), removed when the job is done;
	// Fifo as a named pipe (--fifo), which the job must open and read.
	Cat, Fifo bool
	// TempDir holds those files; "" means os.TempDir().
	TempDir string
	// ArgBytes is the size of the ::: values given beside --pipepart (each
	// with a newline): GNU parallel ignores the values but counts them in
	// the size a negative (or default) Block divides, with the files'.
	ArgBytes int64
	// Tag, if set, is GNU's --tagstring (--tag: "{}"), filled as the
	// command is: {#}, {%}, and {} the chunk's file ("$PARALLEL_TMP",
	// as GNU shows it) or nothing.
	Tag *string
	// Results, if set, is GNU's --results NAME: with replacement strings
	// ({#}, {%}) each job's own name, filled as the command is; without,
	// a directory (the jobs' arguments, none, name its subdirectory).
	Results *string
}

// tmpSentinel stands for $PARALLEL_TMP in a filled template: safe to the
// shell quoting (left bare) and never in a user's command.
const tmpSentinel = "WORKSTEAL_PIPE_TMP_7f3c9e"

func (pj PipeJobs) template() (*template, error) {
	if len(pj.Template) == 0 || strings.TrimSpace(strings.Join(pj.Template, " ")) == "" {
		return nil, fmt.Errorf("%w: pipe mode needs a command to give the chunks to", ErrBadInput)
	}
	syn, err := rplSyntax{}.withParens(pj.Parens)
	if err != nil {
		return nil, err
	}
	t, err := compileTemplate(pj.Template, pj.Quote, syn)
	if err != nil {
		return nil, err
	}
	if len(t.words) > len(pj.Template) && !pj.Cat && !pj.Fifo {
		// GNU appends nothing in pipe mode, but the file's name with
		// --cat and --fifo (wc becomes wc $PARALLEL_TMP).
		t.words = t.words[:len(pj.Template)]
	}
	if pj.Cat && pj.Fifo {
		return nil, fmt.Errorf("%w: --cat and --fifo: give one", runner.ErrInvalidConfig)
	}
	if pj.Results != nil {
		res, err := compileTemplate([]string{*pj.Results}, false, syn)
		if err != nil {
			return nil, err
		}
		if !res.appended {
			res.quoteArgs = false
			t.res = res
		}
	}
	if pj.Tag != nil {
		if t.tag, err = compileTemplate([]string{*pj.Tag}, false, syn); err != nil {
			return nil, err
		}
		t.tag.quoteArgs = false
		if t.tag.appended {
			t.tag.words = t.tag.words[:len(t.tag.words)-1] // a tag without replacement strings is itself
		}
	}
	return t, pj.check()
}

// job makes job seq around its input; part: a chunk of --pipepart.
func (pj PipeJobs) job(t *template, seq int, stdin []byte, src func() io.Reader, size int64, part bool) runner.Job {
	arg := ""
	if pj.Cat || pj.Fifo {
		arg = tmpSentinel
	}
	row := []string{arg}
	if arg == "" && part {
		row = nil // GNU --pipepart: {} is nothing, not ''
	}
	j := t.job(row, seq, 0) // the number of jobs is not known while the input is read
	st := jobio.Of(j)
	if pj.Cat || pj.Fifo {
		j.Command = strings.ReplaceAll(j.Command, tmpSentinel, "$PARALLEL_TMP")
		for i, s := range st.SlotParts {
			st.SlotParts[i] = strings.ReplaceAll(s, tmpSentinel, "$PARALLEL_TMP")
		}
	}
	// --tag and --results names, filled as the command is (--cat's file
	// shown as GNU shows it: the text $PARALLEL_TMP).
	fill := func(t *template) (string, []string, []int) {
		parts, widths := t.expand(row, seq, 0)
		for i := range parts {
			parts[i] = strings.ReplaceAll(parts[i], tmpSentinel, "$PARALLEL_TMP")
		}
		return slotted(parts, widths)
	}
	if (t.tag != nil || t.res != nil) && st.GNU == nil {
		st.GNU = &jobio.GNU{}
	}
	if t.tag != nil {
		st.GNU.Tag, st.GNU.TagParts, st.GNU.TagWidths = fill(t.tag)
	}
	if t.res != nil {
		st.GNU.Results, st.GNU.ResParts, st.GNU.ResWidths = fill(t.res)
	}
	j.Stdin = stdin
	if src != nil || pj.Cat || pj.Fifo {
		st.In = &jobio.Feed{Src: src, Size: size, TempDir: pj.TempDir}
		switch {
		case pj.Cat:
			st.In.Mode = 'c'
		case pj.Fifo:
			st.In.Mode = 'f'
		}
	}
	return with(j, st)
}

// Stream reads r and sends a job per chunk on jobs, numbered from 1, as
// the chunks are cut, until r ends (nil), a read fails or ctx is done (the
// error). It closes jobs. Give jobs to RunStream.
func (pj PipeJobs) Stream(ctx context.Context, r io.Reader, jobs chan<- runner.Job) error {
	defer close(jobs)
	t, err := pj.template()
	if err != nil {
		return err
	}
	seq := 0
	return pj.Chunks(r, func(chunk []byte) error {
		seq++
		select {
		case jobs <- pj.emptyChunk(pj.job(t, seq, chunk, nil, int64(len(chunk)), false), chunk):
			return nil
		case <-ctx.Done():
			return context.Cause(ctx)
		}
	})
}

// emptyChunk marks j, whose chunk --remove-rec-sep emptied, to run
// nothing and succeed: GNU wraps a --pipe command so that it starts only
// on some input.
func (pj PipeJobs) emptyChunk(j runner.Job, chunk []byte) runner.Job {
	if len(chunk) == 0 && !pj.Cat && !pj.Fifo {
		st := jobio.Of(j)
		st.Skip = 'e'
		j = with(j, st)
	}
	return j
}

// Parts returns a job per part of the files (GNU's --pipepart -a FILE),
// in order; each job reads its part from the file when it starts.
func (pj PipeJobs) Parts(files []string, slots int) ([]runner.Job, error) {
	t, err := pj.template()
	if err != nil {
		return nil, err
	}
	total := pj.ArgBytes
	for _, file := range files {
		if st, err := os.Stat(file); err == nil {
			total += st.Size()
		}
	}
	var jobs []runner.Job
	for _, file := range files {
		parts, err := pj.Pipe.parts(file, slots, total)
		if err != nil {
			return nil, err
		}
		for _, p := range parts {
			j := pj.job(t, len(jobs)+1, nil, p.Reader, int64(len(p.Header))+p.Len, true)
			jobio.Of(j).In.NoSend = true // GNU's joblog: the job reads the file itself
			jobs = append(jobs, j)
		}
	}
	return jobs, nil
}

// RoundRobin reads r and gives its chunks to at most n jobs (GNU's
// --round-robin): job k (k ≤ n) is made, and sent on jobs, when the k-th
// chunk is cut; each later chunk goes whole to whichever job reads next,
// and each job's input ends when r does. Give jobs to RunStream with n
// slots. RoundRobin returns when r is read (nil), a read fails or ctx is
// done, and closes jobs.
func (pj PipeJobs) RoundRobin(ctx context.Context, r io.Reader, n int, jobs chan<- runner.Job) error {
	defer close(jobs)
	if pj.Cat || pj.Fifo {
		return fmt.Errorf("%w: --round-robin gives the chunks on stdin: not with --cat or --fifo", runner.ErrInvalidConfig)
	}
	t, err := pj.template()
	if err != nil {
		return err
	}
	rm, err := pj.recRemover()
	if err != nil {
		return err
	}
	ch := make(chan []byte)
	defer close(ch)
	made := 0
	// GNU gives the header once per job, before its first chunk (and
	// removes the separators of both together).
	return pj.chunks(r, func(header, chunk []byte) error {
		if made < max(n, 1) {
			made++
			first := chunk
			if len(header) > 0 {
				first = append(slices.Clip(header), chunk...)
			}
			first = rm.remove(first)
			rr := &robinReader{ch: ch, cur: first}
			select {
			case jobs <- pj.job(t, made, nil, func() io.Reader { return rr }, 0, false):
				return nil
			case <-ctx.Done():
				return context.Cause(ctx)
			}
		}
		select {
		case ch <- rm.remove(chunk):
			return nil
		case <-ctx.Done():
			return context.Cause(ctx)
		}
	})
}

// robinReader is a round-robin job's stdin: whole chunks from the shared
// channel, one after the other. Read by the job's one copying goroutine.
type robinReader struct {
	ch  <-chan []byte
	cur []byte
}

func (r *robinReader) Read(b []byte) (int, error) {
	if len(r.cur) == 0 {
		c, ok := <-r.ch
		if !ok {
			return 0, io.EOF
		}
		r.cur = c
	}
	n := copy(b, r.cur)
	r.cur = r.cur[n:]
	return n, nil
}

// ParseSize reads a size as GNU parallel does (--block, --memfree): a
// number, with an optional unit K M G T P (powers of 1024) or k m g t p
// (powers of 1000). name names the option in the error.
func ParseSize(name, s string) (float64, error) {
	bad := fmt.Errorf("%w: %s %q: want a number of bytes, with an optional unit K, M, G, T, P (×1024) or k, m, g, t, p (×1000)", runner.ErrInvalidConfig, name, s)
	t := strings.TrimSpace(s)
	if t == "" {
		return 0, bad
	}
	mult := 1.0
	if i := strings.IndexByte("kmgtp", t[len(t)-1]); i >= 0 {
		mult = math.Pow(1000, float64(i+1))
		t = t[:len(t)-1]
	} else if i := strings.IndexByte("KMGTP", t[len(t)-1]); i >= 0 {
		mult = math.Pow(1024, float64(i+1))
		t = t[:len(t)-1]
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || math.Abs(v*mult) > 1<<62 {
		return 0, bad
	}
	return v * mult, nil
}
