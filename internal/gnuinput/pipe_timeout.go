package gnuinput

import (
	"errors"
	"io"
	"time"
)

// errBlockTimeout: a block's read time (Pipe.BlockTimeout) ran out.
var errBlockTimeout = errors.New("runner: block timeout")

// timedReader reads r in a goroutine of its own, so that a read can stop
// waiting when a block's time runs out (GNU parallel's --block-timeout, an
// alarm around the read) and pick up, later, what that read returns.
//
// Invariant: only the goroutine of newTimedReader calls r.Read; only the
// caller of read touches pending. The goroutine ends at r's end or error,
// or at stop (it may stay blocked in r.Read until r returns: a stdin that
// never ends keeps it, as a blocked read would keep the caller).
type timedReader struct {
	in      chan timedRead
	done    chan struct{}
	pending []byte // what a read returned beyond what its caller took
	err     error  // r's end or error, once seen
}

type timedRead struct {
	b   []byte
	err error
}

func newTimedReader(r io.Reader) *timedReader {
	t := &timedReader{in: make(chan timedRead), done: make(chan struct{})}
	go func() {
		for {
			b := make([]byte, 64<<10)
			n, err := r.Read(b)
			select {
			case t.in <- timedRead{b[:n], err}:
			case <-t.done:
				return
			}
			if err != nil {
				return
			}
		}
	}()
	return t
}

// read reads into b what is pending or the next read returns; after
// expired fires it returns errBlockTimeout (with nothing read) instead of
// waiting.
func (t *timedReader) read(b []byte, expired <-chan time.Time) (int, error) {
	if len(t.pending) == 0 {
		if t.err != nil {
			return 0, t.err
		}
		select {
		case rd := <-t.in:
			t.pending, t.err = rd.b, rd.err
		case <-expired:
			return 0, errBlockTimeout
		}
	}
	n := copy(b, t.pending)
	t.pending = t.pending[n:]
	if n == 0 && t.err != nil {
		return 0, t.err
	}
	return n, nil
}

// stop lets the reading goroutine end.
func (t *timedReader) stop() { close(t.done) }
