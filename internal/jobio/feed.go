package jobio

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// Feed is how a pipe-mode job gets its input: where from (src, else
// the job's Stdin) and how (stdin, a file, a named pipe). Shared by the
// copies of the Job; used by the attempt goroutines one at a time (a job
// has one attempt at a time, speculation aside: see attempt).
type Feed struct {
	Src     func() io.Reader // a fresh reader of the input; nil: stdin below
	Stdin   []byte
	Size    int64 // bytes of input, for the joblog of Cat and Fifo
	Mode    byte  // 0: stdin, 'c': a file (--cat), 'f': a named pipe (--fifo)
	NoSend  bool  // the joblog's Send is 0 (--pipepart, as GNU's)
	TempDir string

	mu       sync.Mutex
	path     string // the file or fifo, once made
	released bool
}

// Reader returns a fresh reader of the job's input.
func (in *Feed) Reader() io.Reader {
	if in.Src != nil {
		return in.Src()
	}
	return bytes.NewReader(in.Stdin)
}

// Attempt prepares one attempt of the job: its stdin (nil for none), the
// environment it needs, and sent, to call once the attempt has ended: it
// returns the bytes the attempt was given.
func (in *Feed) Attempt() (stdin io.Reader, env []string, sent func() int64, err error) {
	stdin, env, sent, err = in.open()
	if err == nil && in.NoSend {
		counted := sent
		sent = func() int64 { counted(); return 0 }
	}
	return stdin, env, sent, err
}

func (in *Feed) open() (stdin io.Reader, env []string, sent func() int64, err error) {
	switch in.Mode {
	case 'c':
		path, err := in.makeFile(false)
		if err != nil {
			return nil, nil, nil, err
		}
		return nil, []string{"PARALLEL_TMP=" + path}, func() int64 { return in.Size }, nil
	case 'f':
		path, err := in.makeFile(true)
		if err != nil {
			return nil, nil, nil, err
		}
		var n atomic.Int64
		done, stop := make(chan struct{}), make(chan struct{})
		go func() {
			defer close(done)
			// Opening a fifo to write fails (ENXIO) while no one reads
			// it: wait for the job to open it, or for the attempt to end.
			wait := time.Millisecond
			for {
				w, err := openFifoWriter(path)
				if err == nil {
					c, _ := io.Copy(w, in.Reader()) // fails once the job closes it
					w.Close()
					n.Store(c)
					return
				}
				if !errors.Is(err, ErrNoReader) {
					return
				}
				select {
				case <-stop:
					return
				case <-time.After(wait):
					wait = min(2*wait, 20*time.Millisecond)
				}
			}
		}()
		return nil, []string{"PARALLEL_TMP=" + path}, func() int64 {
			close(stop)
			<-done
			return n.Load()
		}, nil
	}
	if in.Src == nil && in.Stdin == nil {
		return nil, nil, func() int64 { return 0 }, nil
	}
	rd := in.Reader()
	if pr, ok := rd.(*partReader); ok {
		// A part of a file: the kernel copies it to the job's pipe
		// where it can (pipe_linux.go).
		if stdin, sent, ok := pr.pipe(); ok {
			return stdin, nil, sent, nil
		}
	}
	cr := &countReader{r: rd}
	return cr, nil, func() int64 {
		if c, ok := cr.r.(io.Closer); ok {
			c.Close()
		}
		return cr.n.Load()
	}, nil
}

// makeFile makes the job's file (its input written to it) or fifo, once.
func (in *Feed) makeFile(fifo bool) (string, error) {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.path != "" {
		return in.path, nil
	}
	if in.released {
		return "", errors.New("runner: the job's input is released")
	}
	dir := in.TempDir
	if dir == "" {
		dir = os.TempDir()
	}
	f, err := os.CreateTemp(dir, "worksteal-pipe-*")
	if err != nil {
		return "", fmt.Errorf("--cat/--fifo: %w", err)
	}
	path := f.Name()
	if fifo {
		f.Close()
		os.Remove(path)
		if err := mkfifo(path); err != nil {
			return "", fmt.Errorf("--fifo: %w", err)
		}
		in.path = path
		return path, nil
	}
	_, err = io.Copy(f, in.Reader())
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
		return "", fmt.Errorf("--cat: %s: %w", path, err)
	}
	in.path = path
	return path, nil
}

// Release removes the job's file and drops its input: the job is done.
func (in *Feed) Release() {
	in.mu.Lock()
	defer in.mu.Unlock()
	in.released = true
	if in.path != "" {
		os.Remove(in.path)
		in.path = ""
	}
	in.Stdin, in.Src = nil, nil
}

// countReader counts the bytes read through it.
type countReader struct {
	r io.Reader
	n atomic.Int64
}

func (c *countReader) Read(b []byte) (int, error) {
	n, err := c.r.Read(b)
	c.n.Add(int64(n))
	return n, err
}
