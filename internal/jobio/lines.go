package jobio

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

// ErrLineTooLong and ErrNUL are the causes an input reader names with the line.
var (
	ErrLineTooLong = fmt.Errorf("longer than %d MiB", MaxLineBytes>>20)
	ErrNUL         = errors.New("holds a NUL byte, which no command or argument can contain")
)

// LineReader reads lines of at most MaxLineBytes, numbered from 1. A
// line ends with delim: "\n", or another string (GNU parallel's -d, -0).
type LineReader struct {
	br    *bufio.Reader
	N     int    // number of the line last returned
	Max   int    // longest line; MaxLineBytes unless a test lowers it
	NUL   bool   // a NUL byte is an error
	delim []byte // the end of a line; nil: "\n"
}

// NewLineReader reads the lines of r.
func NewLineReader(r io.Reader) *LineReader {
	return &LineReader{br: bufio.NewReaderSize(r, 64<<10), Max: MaxLineBytes, NUL: true}
}

// NewDelimReader reads items that end with delim ("" is "\n"). A NUL
// byte is an error unless it is part of delim.
func NewDelimReader(r io.Reader, delim string) *LineReader {
	lr := NewLineReader(r)
	if delim != "" && delim != "\n" {
		lr.delim = []byte(delim)
		lr.NUL = !strings.Contains(delim, "\x00")
	}
	return lr
}

// Next returns the next line without its "\n" and whether it ended with
// one (false for a last line cut short by the end of the input). At the
// end of the input it returns io.EOF. A line over the bound, or holding a
// NUL byte, is an error: the reader stops there, having read at most
// max+64 KiB of it.
func (lr *LineReader) Next() (line []byte, complete bool, err error) {
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
		if size > lr.Max {
			lr.N++
			return nil, false, ErrLineTooLong
		}
		if lr.NUL && bytes.IndexByte(chunk, 0) >= 0 {
			lr.N++
			return nil, false, ErrNUL
		}
		switch {
		case err == bufio.ErrBufferFull:
			buf = append(buf, chunk...)
			continue
		case err == nil:
			lr.N++
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
func (lr *LineReader) nextDelim() (line []byte, complete bool, err error) {
	d := lr.delim
	last := d[len(d)-1]
	var buf []byte
	for {
		chunk, err := lr.br.ReadSlice(last)
		if len(buf)+len(chunk) > lr.Max+len(d) {
			lr.N++
			return nil, false, ErrLineTooLong
		}
		if lr.NUL && bytes.IndexByte(chunk, 0) >= 0 {
			lr.N++
			return nil, false, ErrNUL
		}
		buf = append(buf, chunk...)
		switch {
		case err == bufio.ErrBufferFull:
			continue
		case err == nil:
			if !bytes.HasSuffix(buf, d) {
				continue
			}
			lr.N++
			return buf[:len(buf)-len(d)], true, nil
		default:
			return lr.end(buf, err)
		}
	}
}

// end is what next and nextDelim return when the input ends (io.EOF: the
// last item, unterminated, if there is one) or a read fails (err).
func (lr *LineReader) end(buf []byte, err error) ([]byte, bool, error) {
	if err != io.EOF {
		return nil, false, err
	}
	if len(buf) == 0 {
		return nil, false, io.EOF
	}
	lr.N++
	return buf, false, nil
}
