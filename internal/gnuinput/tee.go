package gnuinput

// GNU parallel's --tee: every job gets all of the input on its stdin (the
// jobs are the ::: values'; GNU runs tee(1) into a fifo per job).

import (
	"io"
	"os"

	"github.com/worksteal/worksteal/internal/jobio"
	"github.com/worksteal/worksteal/runner"
)

// Tee gives each job of jobs that will run all of r on its stdin (GNU
// parallel's --tee with --pipe), and returns them. Every job must run at
// once (give Config.Slots ≥ len(jobs)): the input is read once, each piece
// going to each job in turn, so a job that is not reading holds up the
// others, as with tee(1). A job that exits without reading all of it is
// dropped from the copy (tee --output-error=warn-nopipe). The joblog's
// Send is 0, as GNU's. Skipped jobs ({uniq}) get nothing.
func Tee(r io.Reader, jobs []runner.Job) []runner.Job {
	var ws []*io.PipeWriter
	for i := range jobs {
		if jobio.Of(jobs[i]).Skipped() {
			continue
		}
		pr, pw := io.Pipe()
		ws = append(ws, pw)
		// The reader is closed when the attempt ends (jobInput.open's
		// sent), which fails the writes to it: a job that is done
		// reading never holds up the copy.
		st := jobio.Of(jobs[i])
		st.In = &jobio.Feed{Src: func() io.Reader { return pr }, NoSend: true}
		jobs[i] = with(jobs[i], st)
	}
	go func() {
		buf := make([]byte, 128<<10)
		for {
			n, err := r.Read(buf)
			if n > 0 {
				live := ws[:0]
				for _, w := range ws {
					if _, werr := w.Write(buf[:n]); werr == nil {
						live = append(live, w)
					}
				}
				ws = live
			}
			if err != nil || len(ws) == 0 {
				for _, w := range ws {
					w.Close()
				}
				return
			}
		}
	}()
	return jobs
}

// TeeFile gives each job of jobs all of file on its stdin (GNU parallel's
// --pipepart --tee, where each job reads < FILE), and returns them.
func TeeFile(file string, jobs []runner.Job) ([]runner.Job, error) {
	st, err := os.Stat(file)
	if err != nil {
		return nil, err
	}
	p := jobio.Part{File: file, Len: st.Size()}
	for i := range jobs {
		st := jobio.Of(jobs[i])
		st.In = &jobio.Feed{Src: p.Reader, Size: p.Len, NoSend: true}
		jobs[i] = with(jobs[i], st)
	}
	return jobs, nil
}
