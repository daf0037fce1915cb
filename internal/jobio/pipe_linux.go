package jobio

import (
	"errors"
	"os"
	"sync/atomic"
	"syscall"
)

// pipe gives the part to a job through a pipe that the kernel fills from
// the file (sendfile(2)): the bytes never pass through this process.
// sent, called once the job has ended, closes this process's read end
// (a writer blocked on a job that stopped reading then fails), waits for
// the writer and returns the bytes written. ok is false where no pipe
// could be made (then the caller copies).
func (r *partReader) pipe() (stdin *os.File, sent func() int64, ok bool) {
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, nil, false
	}
	var n atomic.Int64
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer pw.Close()
		defer r.f.Close()
		if len(r.p.Header) > 0 {
			k, err := pw.Write(r.p.Header)
			n.Add(int64(k))
			if err != nil {
				return
			}
		}
		out, in := int(pw.Fd()), int(r.f.Fd()) // blocking: this goroutine's own
		off, left := r.p.Off, r.p.Len
		for left > 0 {
			k, err := syscall.Sendfile(out, in, &off, int(min(left, 1<<30)))
			if k > 0 {
				left -= int64(k)
				n.Add(int64(k))
			}
			if errors.Is(err, syscall.EINTR) || errors.Is(err, syscall.EAGAIN) {
				continue
			}
			if err != nil || k == 0 {
				return // the job closed its stdin, or the file shrank
			}
		}
	}()
	return pr, func() int64 {
		pr.Close()
		<-done
		return n.Load()
	}, true
}
