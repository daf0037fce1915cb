package runner

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
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

// lineReader reads lines of at most MaxLineBytes, numbered from 1. A
// line ends with delim: "\n", or another string (GNU parallel's -d, -0).
type lineReader struct {
	br    *bufio.Reader
	n     int    // number of the line last returned
	max   int    // longest line; MaxLineBytes unless a test lowers it
	nul   bool   // a NUL byte is an error
	delim []byte // the end of a line; nil: "\n"
}

func newLineReader(r io.Reader) *lineReader {
	return &lineReader{br: bufio.NewReaderSize(r, 64<<10), max: MaxLineBytes, nul: true}
}

// newDelimReader reads items that end with delim ("" is "\n"). A NUL
// byte is an error unless it is part of delim.
func newDelimReader(r io.Reader, delim string) *lineReader {
	lr := newLineReader(r)
	if delim != "" && delim != "\n" {
		lr.delim = []byte(delim)
		lr.nul = !strings.Contains(delim, "\x00")
	}
	return lr
}

// next returns the next line without its "\n" and whether it ended with
// one (false for a last line cut short by the end of the input). At the
// end of the input it returns io.EOF. A line over the bound, or holding a
// NUL byte, is an error: the reader stops there, having read at most
// max+64 KiB of it.
func (lr *lineReader) next() (line []byte, complete bool, err error) {
	if lr.delim != nil {
		return lr.nextDelim()
	}
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
			return lr.end(append(buf, chunk...), err)
		default:
			return lr.end(nil, err)
		}
	}
}

// nextDelim is next for a delimiter other than "\n": the item is read up
// to each occurrence of the delimiter's last byte until it ends with the
// whole delimiter.
func (lr *lineReader) nextDelim() (line []byte, complete bool, err error) {
	d := lr.delim
	last := d[len(d)-1]
	var buf []byte
	for {
		chunk, err := lr.br.ReadSlice(last)
		if len(buf)+len(chunk) > lr.max+len(d) {
			lr.n++
			return nil, false, errLineTooLong
		}
		if lr.nul && bytes.IndexByte(chunk, 0) >= 0 {
			lr.n++
			return nil, false, errNUL
		}
		buf = append(buf, chunk...)
		switch {
		case err == bufio.ErrBufferFull:
			continue
		case err == nil:
			if !bytes.HasSuffix(buf, d) {
				continue
			}
			lr.n++
			return buf[:len(buf)-len(d)], true, nil
		default:
			return lr.end(buf, err)
		}
	}
}

// end is what next and nextDelim return when the input ends (io.EOF: the
// last item, unterminated, if there is one) or a read fails (err).
func (lr *lineReader) end(buf []byte, err error) ([]byte, bool, error) {
	if err != io.EOF {
		return nil, false, err
	}
	if len(buf) == 0 {
		return nil, false, io.EOF
	}
	lr.n++
	return buf, false, nil
}

// readLines returns the lines of r, each without its "\n" (a "\r" before
// it is kept, as GNU parallel keeps it). An error names the source and the
// line.
func readLines(r io.Reader, name string) ([]string, error) {
	return readItems(r, name, "")
}

// readItems returns the items of r that end with delim ("": "\n"), each
// without its delimiter. An error names the source and the item.
func readItems(r io.Reader, name, delim string) ([]string, error) {
	lr := newDelimReader(r, delim)
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
