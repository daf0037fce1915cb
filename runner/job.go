package runner

import (
	"io"

	"github.com/worksteal/worksteal/internal/jobio"
)

// Job is one command of a batch.
type Job struct {
	// Seq is the job's 1-based position in the input. It names the job in
	// the joblog, orders the output under KeepOrder, and is what --resume
	// matches (as GNU parallel does).
	Seq int
	// Command is the shell command line, run as Shell -c Command. In a
	// command made from a template holding {%}, Command shows "{%}" where
	// the slot number goes when the job starts (see CommandIn).
	Command string
	// Weight is the job's estimated cost in any unit (bytes, seconds,
	// frames); 0 means unknown. Weights only order the jobs (longest first).
	Weight float64
	// Stdin is what the job reads on its standard input (a chunk of GNU
	// parallel's --pipe); nil: nothing, the job's stdin is empty.
	Stdin []byte

	x jobio.State // what GNU parallel's input side gave the job (internal/jobio.State); zero for a plain command
}

// Skipped says the job is one GNU parallel's --plus {uniq} or {choose_k}
// skips: Run runs nothing for it and records it failed, with exit status
// -2 (GNU's joblog shows -2), as GNU parallel does.
func (j Job) Skipped() bool { return j.x.Skip == 's' }

// CommandIn returns the command as run in slot: Command with each {%} of
// the template filled in (an argument that reads "{%}" is left alone).
func (j Job) CommandIn(slot int) string {
	var widths []int
	if j.x.GNU != nil {
		widths = j.x.GNU.SlotWidths
	}
	return jobio.FillSlot(j.Command, j.x.SlotParts, widths, slot)
}

// Args returns the job's values, one per input source and record (GNU
// parallel's V1 ... Vn), and ArgNames the name of each one's source: its
// number from 1, or its column name under Input.Header. Set when Input.Tag
// or Input.Results is (--tag and --results use them); nil otherwise.
func (j Job) Args() []string {
	if j.x.GNU == nil {
		return nil
	}
	return j.x.GNU.Args
}

// ArgNames: see Args.
func (j Job) ArgNames() []string {
	if j.x.GNU == nil {
		return nil
	}
	return j.x.GNU.ArgNames
}

// TagIn returns the prefix of each of the job's output lines in slot
// (Input.Tag filled in, its {%} the slot); "" for none.
func (j Job) TagIn(slot int) string {
	if j.x.GNU == nil {
		return ""
	}
	return jobio.FillSlot(j.x.GNU.Tag, j.x.GNU.TagParts, j.x.GNU.TagWidths, slot)
}

// ResultsIn returns the name the job's output is saved under in slot
// (Input.Results filled in, when it holds a replacement string); "" for
// none.
func (j Job) ResultsIn(slot int) string {
	if j.x.GNU == nil {
		return ""
	}
	return jobio.FillSlot(j.x.GNU.Results, j.x.GNU.ResParts, j.x.GNU.ResWidths, slot)
}

// openInput returns the input of j (never nil).
func openInput(j Job) *jobio.Feed {
	if j.x.In != nil {
		if j.x.In.Src == nil && j.x.In.Stdin == nil {
			j.x.In.Stdin = j.Stdin
		}
		return j.x.In
	}
	return &jobio.Feed{Stdin: j.Stdin}
}

// Input returns what j reads as its input: its Stdin, or its part of a
// file (worksteal run --pipepart).
func (j Job) Input() ([]byte, error) {
	if j.x.In == nil || j.x.In.Src == nil {
		return j.Stdin, nil
	}
	b, err := io.ReadAll(j.x.In.Src())
	if err == nil && b == nil {
		b = []byte{}
	}
	return b, err
}

// release drops j's input; called once j is finished for good.
func (j Job) release() {
	if j.x.In != nil {
		j.x.In.Release()
	}
}

// releaseInputs releases the inputs of the jobs that never finished (an
// interrupted run): no temporary file outlives Run.
func (r *run) releaseInputs() {
	for _, js := range r.jobs {
		if js.res == nil {
			js.job.release()
		}
	}
}

// The input side (internal/gnuinput) reads and sets a Job's State through
// these; see jobio.Of.
func init() {
	jobio.Of = func(job any) jobio.State { return job.(Job).x }
	jobio.With = func(job any, s jobio.State) any {
		j := job.(Job)
		j.x = s
		return j
	}
}
