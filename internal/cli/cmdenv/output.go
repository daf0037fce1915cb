package cmdenv

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// OutputFile is a file a command writes when its work is done, opened
// before the work starts: a path that cannot be written (a missing
// directory, no permission) fails at once instead of after a long run. An
// existing file keeps its content until write; abort (an interrupted or
// failed run) removes a file the command created and leaves an existing
// one as it was.
type OutputFile struct {
	flag, Path string
	f          *os.File
	created    bool
}

// openOutput opens path for the flag that names it (for the error).
func openOutput(flag, path string) (*OutputFile, error) {
	o := &OutputFile{flag: flag, Path: path}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, fs.ErrExist) {
		f, err = os.OpenFile(path, os.O_WRONLY, 0)
	} else {
		o.created = err == nil
	}
	if err != nil {
		return nil, UsageError(fmt.Errorf("%s %s: %w", flag, path, UnwrapPath(err)))
	}
	o.f = f
	return o, nil
}

// UnwrapPath drops the *PathError's repetition of the path.
func UnwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// write replaces the file's content with what fn writes, and closes it.
func (o *OutputFile) Write(fn func(io.Writer) error) error {
	if st, err := o.f.Stat(); err == nil && st.Mode().IsRegular() {
		if err := o.f.Truncate(0); err != nil {
			o.abort()
			return fmt.Errorf("%s %s: %w", o.flag, o.Path, UnwrapPath(err))
		}
	}
	bw := bufio.NewWriterSize(o.f, 1<<16)
	err := fn(bw)
	if err == nil {
		err = bw.Flush()
	}
	if cerr := o.f.Close(); err == nil {
		err = cerr
	}
	o.f = nil
	if err != nil {
		if o.created {
			os.Remove(o.Path)
		}
		return fmt.Errorf("writing %s (%s): %w", o.Path, o.flag, UnwrapPath(err))
	}
	return nil
}

// abort closes the file without writing; a file the command created is
// removed. It is a no-op after write.
func (o *OutputFile) abort() {
	if o == nil || o.f == nil {
		return
	}
	o.f.Close()
	o.f = nil
	if o.created {
		os.Remove(o.Path)
	}
}

// Outputs are the output files of one command.
type Outputs []*OutputFile

// open opens path for flag unless path is empty (that output not asked for).
func (outs *Outputs) Open(flag, path string) (*OutputFile, error) {
	if path == "" {
		return nil, nil
	}
	o, err := openOutput(flag, path)
	if err != nil {
		return nil, err
	}
	*outs = append(*outs, o)
	return o, nil
}

// abort aborts every output not yet written.
func (outs Outputs) Abort() {
	for _, o := range outs {
		o.abort()
	}
}
