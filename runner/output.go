package runner

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"io"
	"os/exec"
	"sync"

	"github.com/worksteal/worksteal/internal/jobio"
)

// OutputMode says when the jobs' output is written.
type OutputMode int

const (
	// OutputGroup writes each job's output whole when it finishes (GNU
	// parallel's --group, the default).
	OutputGroup OutputMode = iota
	// OutputLineBuffer writes each line of a job's output as soon as it
	// is whole: lines of different jobs mix, never parts of lines (GNU
	// parallel's --line-buffer). A last line without a newline is written
	// when the job ends.
	OutputLineBuffer
	// OutputUngroup writes the output as it comes: parts of lines of
	// different jobs may mix (GNU parallel's -u).
	OutputUngroup
	// outputLatestLine is runopts.Options.LatestLine (GNU parallel's
	// --latest-line), which sets it.
	outputLatestLine
)

// lockedWriter serializes writes to w: the jobs' streamed output and the
// runner's own lines. mu is shared by the stdout and stderr writers of a
// run, so that a line is never cut by one of the other stream.
type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// streams returns the writers an attempt of job in slot streams its output
// to, and a flush to call once it has ended (the last line, under
// OutputLineBuffer). Called by the loop goroutine; the writers are used by
// the attempt's goroutine (os/exec's copiers) only.
func (r *run) streams(job Job, slot int, first string) (stdout, stderr io.Writer, flush func(failed bool)) {
	if r.cfg.Output == OutputUngroup {
		return r.streamOut, r.streamErr, nil
	}
	tag := ""
	if r.cfg.x.Tag {
		tag = job.x.TagIn(slot) + "\t"
	}
	if r.latest != nil {
		var color func(bool) (string, string)
		if r.cfg.x.Color != nil {
			color = func(failed bool) (string, string) { return r.cfg.x.Color(job.Seq, failed) }
		}
		l := r.latest.job(job.Seq, tag, color)
		l.drop = r.cfg.x.LatestLineDrop
		l.start(first)
		return l, l, l.finish
	}
	o := &lineWriter{out: r.streamOut, tag: tag}
	e := &lineWriter{out: r.streamErr, tag: tag}
	if r.cfg.x.Color != nil {
		begin, end := r.cfg.x.Color(job.Seq, false)
		o.tag, o.end, e.tag, e.end = begin+tag, end, begin+tag, end
		o.color, e.color = true, true
	}
	return o, e, func(bool) { o.flush(); e.flush() }
}

// lineWriter writes whole lines to out, each prefixed with tag, and keeps
// a part line until its newline (or flush) comes. One goroutine writes to
// it at a time (os/exec copies each stream in one goroutine).
type lineWriter struct {
	out   io.Writer
	tag   string
	part  []byte
	color bool   // lines written by colorLines, tag the colour's begin + the tag
	end   string // the colour's end
}

func (l *lineWriter) lines(p []byte) []byte {
	if l.color {
		return colorLines(nil, l.tag, l.end, p)
	}
	if l.tag != "" {
		return jobio.TagLines(nil, l.tag, p)
	}
	return p
}

func (l *lineWriter) Write(p []byte) (int, error) {
	n := len(p)
	end := bytes.LastIndexByte(p, '\n')
	if end < 0 {
		l.part = append(l.part, p...)
		return n, nil
	}
	whole := append(l.part, p[:end+1]...)
	l.part = append([]byte(nil), p[end+1:]...)
	whole = l.lines(whole)
	if _, err := l.out.Write(whole); err != nil {
		return 0, err
	}
	return n, nil
}

func (l *lineWriter) flush() {
	if len(l.part) == 0 {
		return
	}
	l.out.Write(l.lines(l.part))
	l.part = nil
}

// colorLines appends to dst each line of p as GNU parallel colours it:
// begin (the colour and the tag), the line without its newline, each \r in
// it as end + \r + begin, then end and a newline (also after a last line
// that lacked one).
func colorLines(dst []byte, begin, end string, p []byte) []byte {
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		line := p
		if i >= 0 {
			line, p = p[:i], p[i+1:]
		} else {
			p = nil
		}
		dst = append(dst, begin...)
		for {
			j := bytes.IndexByte(line, '\r')
			if j < 0 {
				break
			}
			dst = append(append(append(append(dst, line[:j]...), end...), '\r'), begin...)
			line = line[j+1:]
		}
		dst = append(append(append(dst, line...), end...), '\n')
	}
	return dst
}

// compressed passes e's output through Config.Compress and Decompress, as
// GNU parallel's --compress-program keeps a job's buffered output: the
// output written is what the decompressor gives back. e.Received stays
// the job's own count. A program that fails fails the job: exit status
// 255, no output but the error.
func (r *run) compressed(ctx context.Context, e Exit) Exit {
	decompress := r.cfg.x.Decompress
	if decompress == "" {
		decompress = r.cfg.x.Compress + " -dc"
	}
	shell := cmp.Or(r.cfg.Shell, "/bin/sh")
	through := func(prg string, data []byte) ([]byte, error) {
		cmd := exec.CommandContext(ctx, shell, "-c", prg)
		cmd.Stdin = bytes.NewReader(data)
		var out, errOut bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errOut
		if err := cmd.Run(); err != nil {
			return nil, fmt.Errorf("%s%s failed", errOut.Bytes(), prg)
		}
		return out.Bytes(), nil
	}
	for _, b := range []*[]byte{&e.Stdout, &e.Stderr} {
		packed, err := through(r.cfg.x.Compress, *b)
		if err == nil {
			*b, err = through(decompress, packed)
		}
		if err != nil {
			e.Stdout, e.Stderr, e.Received = nil, []byte(fmt.Sprintf("worksteal: %v\n", err)), 0
			e.Code = 255
			return e
		}
	}
	return e
}
