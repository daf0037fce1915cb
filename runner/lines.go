package runner

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// MaxLineBytes is the longest line the runner reads from an input, a ":::"
// file or a joblog. A command line longer than this could not be run anyway
// (Linux caps one argument at 128 KiB and all of them at a quarter of the
// stack limit), and the bound keeps a file without newlines (/dev/zero, a
// binary) from being read into memory whole.
const MaxLineBytes = 16 << 20

// errLineTooLong and errNUL are the causes readLines names with the line.
var (
	errLineTooLong = fmt.Errorf("longer than %d MiB", MaxLineBytes>>20)
	errNUL         = errors.New("holds a NUL byte, which no command or argument can contain")
)

// lineReader reads lines of at most MaxLineBytes, numbered from 1.
type lineReader struct {
	br  *bufio.Reader
	n   int  // number of the line last returned
	max int  // longest line; MaxLineBytes unless a test lowers it
	nul bool // a NUL byte is an error
}

func newLineReader(r io.Reader) *lineReader {
	return &lineReader{br: bufio.NewReaderSize(r, 64<<10), max: MaxLineBytes, nul: true}
}

// next returns the next line without its "\n" and whether it ended with
// one (false for a last line cut short by the end of the input). At the
// end of the input it returns io.EOF. A line over the bound, or holding a
// NUL byte, is an error: the reader stops there, having read at most
// max+64 KiB of it.
func (lr *lineReader) next() (line []byte, complete bool, err error) {
	var buf []byte
	for {
		chunk, err := lr.br.ReadSlice('\n')
		size := len(buf) + len(chunk)
		if err == nil {
			size-- // the newline
		}
		if size > lr.max {
			lr.n++
			return nil, false, errLineTooLong
		}
		if lr.nul && bytes.IndexByte(chunk, 0) >= 0 {
			lr.n++
			return nil, false, errNUL
		}
		switch {
		case err == bufio.ErrBufferFull:
			buf = append(buf, chunk...)
			continue
		case err == nil:
			lr.n++
			if buf == nil {
				return chunk[:len(chunk)-1], true, nil
			}
			buf = append(buf, chunk...)
			return buf[:len(buf)-1], true, nil
		case err == io.EOF:
			buf = append(buf, chunk...)
			if len(buf) == 0 {
				return nil, false, io.EOF
			}
			lr.n++
			return buf, false, nil
		default:
			return nil, false, err
		}
	}
}

// readLines returns the lines of r, each without its "\n" (a "\r" before
// it is kept, as GNU parallel keeps it). An error names the source and the
// line.
func readLines(r io.Reader, name string) ([]string, error) {
	lr := newLineReader(r)
	var lines []string
	for {
		line, _, err := lr.next()
		if err == io.EOF {
			return lines, nil
		}
		if err != nil {
			if lr.n == 0 {
				return nil, fmt.Errorf("%w: %s: %v", ErrBadInput, name, err)
			}
			return nil, fmt.Errorf("%w: %s: line %d: %v", ErrBadInput, name, lr.n, err)
		}
		lines = append(lines, string(line))
	}
}
