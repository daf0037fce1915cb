package runner

import (
	"fmt"
	"strings"
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

	x State // what GNU parallel's input side gave the job (internal/jobio.State); zero for a plain command
}

// Skipped says the job is one GNU parallel's --plus {uniq} or {choose_k}
// skips: Run runs nothing for it and records it failed, with exit status
// -2 (GNU's joblog shows -2), as GNU parallel does.
func (j Job) Skipped() bool { return j.x.Skip == 's' }

// jobGNU is what --tag, --results and {0%} need of a job, kept apart:
// most batches use none, and a Job is copied around.
type GNU struct {
	SlotWidths           []int // the width each cut of slotParts pads its slot number to ({0%}); 0: none
	Args, ArgNames       []string
	Tag, Results         string
	TagParts, ResParts   []string // tag and results cut at each {%}
	TagWidths, ResWidths []int
	Templates            []FilledFile // Input.Templates filled in
}

// CommandIn returns the command as run in slot: Command with each {%} of
// the template filled in (an argument that reads "{%}" is left alone).
func (j Job) CommandIn(slot int) string {
	var widths []int
	if j.x.GNU != nil {
		widths = j.x.GNU.SlotWidths
	}
	return FillSlot(j.Command, j.x.SlotParts, widths, slot)
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
	return FillSlot(j.x.GNU.Tag, j.x.GNU.TagParts, j.x.GNU.TagWidths, slot)
}

// ResultsIn returns the name the job's output is saved under in slot
// (Input.Results filled in, when it holds a replacement string); "" for
// none.
func (j Job) ResultsIn(slot int) string {
	if j.x.GNU == nil {
		return ""
	}
	return FillSlot(j.x.GNU.Results, j.x.GNU.ResParts, j.x.GNU.ResWidths, slot)
}

func FillSlot(s string, parts []string, widths []int, slot int) string {
	if parts == nil {
		return s
	}
	var b strings.Builder
	for i, p := range parts {
		if i > 0 {
			w := 0
			if i-1 < len(widths) {
				w = widths[i-1]
			}
			fmt.Fprintf(&b, "%0*d", w, slot)
		}
		b.WriteString(p)
	}
	return b.String()
}

// State is what GNU parallel's input side gives a job beyond its command.
type State struct {
	SlotParts []string // the command cut at each {%} of its template; nil if none
	In        *Feed    // how the job gets its input when not Stdin (pipe.go); nil if so
	GNU       *GNU     // what --tag, --results and {0%} need; nil without them
	Skip      byte     // run nothing: 's' --plus {uniq}, {choose_k} (exit -2, template.skips); 'e' --pipe's empty chunk (exit 0)
}
