package runner

import (
	"github.com/worksteal/worksteal/internal/jobio"
	"github.com/worksteal/worksteal/internal/joblog"
	"github.com/worksteal/worksteal/internal/runopts"
)

// Job is one command of a batch.
type Job struct {
	// Seq is the job's 1-based position in the input. It names the job in
	// the joblog, orders the output under KeepOrder, and is what --resume
	// matches (as GNU parallel does).
	Seq int
	// Command is the shell command line, run as Shell -c Command. In a
	// command made from a template holding {%}, Command shows "{%}" where
	// the slot number goes when the job starts.
	Command string
	// Weight is the job's estimated cost in any unit (bytes, seconds,
	// frames); 0 means unknown. Weights only order the jobs (longest first).
	Weight float64
	// Stdin is what the job reads on its standard input (a chunk of GNU
	// parallel's --pipe); nil: nothing, the job's stdin is empty.
	Stdin []byte

	x jobio.State // what GNU parallel's input side gave the job (internal/jobio.State); zero for a plain command
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

// The input side (internal/gnuinput) reads and sets a Job's State
// through these (see jobio.Of), and worksteal run its Config's options
// (see runopts.Of). runopts.Of points into the Config its caller holds, so
// the options set through it travel with the copies made afterwards (Run
// takes its Config by value): set them before handing the Config on.
func init() {
	jobio.Of = func(job any) jobio.State { return job.(Job).x }
	jobio.With = func(job any, s jobio.State) any {
		j := job.(Job)
		j.x = s
		return j
	}
	runopts.Of = func(cfg any) *runopts.Options { return &cfg.(*Config).x }
	runopts.Record = func(res any, host string) joblog.Record { return res.(Result).record(host) }
	runopts.HaltStatus = func(sum any) (int, bool) {
		s := sum.(*Summary)
		return s.haltStatus, s.haltSet
	}
	runopts.NewHaltTracker = func(h any, jobs int) runopts.HaltTracker {
		return &haltTracker{h: halting{Halt: h.(Halt), total: jobs}}
	}
}
