package jobio

import (
	"bytes"
	"errors"
	"io"
	"os"
)

// ErrNoReader: no process has the fifo open to read yet.
var ErrNoReader = errors.New("runner: no reader on the fifo")

// Part is a chunk of a file (--pipepart): Len bytes from Off, after the
// file's header.
type Part struct {
	File     string
	Off, Len int64
	// Header is the file's header (Pipe.Header), given before the chunk.
	Header []byte
}

// Reader reads the part: its header, then its bytes of the file.
func (p Part) Reader() io.Reader {
	f, err := os.Open(p.File)
	if err != nil {
		return errReader{err}
	}
	return &partReader{Reader: io.MultiReader(bytes.NewReader(p.Header), io.NewSectionReader(f, p.Off, p.Len)), f: f, p: p}
}

// partReader closes its file at the end (or when the attempt ends).
type partReader struct {
	io.Reader
	f *os.File
	p Part
}

func (r *partReader) Read(b []byte) (int, error) {
	n, err := r.Reader.Read(b)
	if err != nil {
		r.f.Close()
	}
	return n, err
}

func (r *partReader) Close() error { return r.f.Close() }

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }
