// Package jobio is what a job of GNU parallel's input side carries into
// runner.Run beyond its command line: the command, tag and results name
// cut at each {%} (the slot is known only when the job starts), the
// template files to write, how a --pipe job gets its input (stdin, a
// file, a named pipe, a part of a file), and whether it runs at all. The
// input side (internal/gnuinput) makes it, runner reads it when the job
// runs; a Go program's own runner.Job carries none of it.
//
// It also holds what both sides read and write the same way: lines of an
// input (MaxLineBytes), GNU parallel's shell quoting.
package jobio

import (
	"fmt"
	"io"
	"os"
	"strings"
)

// GNU is what --tag, --results and {0%} need of a job, kept apart:
// most batches use none, and a Job is copied around.
type GNU struct {
	SlotWidths           []int // the width each cut of slotParts pads its slot number to ({0%}); 0: none
	Args, ArgNames       []string
	Tag, Results         string
	TagParts, ResParts   []string // tag and results cut at each {%}
	TagWidths, ResWidths []int
	Templates            []FilledFile // Input.Templates filled in
}

// FillSlot returns s, or, when parts is not nil, parts joined by slot,
// each padded with zeros to its width ({0%}).
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

// FilledFile is a TemplateFile filled in for one job, cut at each {%}
// (the slot is known only when the job starts).
type FilledFile struct {
	NameParts, ContentParts   []string
	NameWidths, ContentWidths []int
}

// WriteTemplates writes the job's template files (--template) for slot.
func (s State) WriteTemplates(slot int) error {
	if s.GNU == nil {
		return nil
	}
	for _, f := range s.GNU.Templates {
		name := FillSlot("", f.NameParts, f.NameWidths, slot)
		if err := os.WriteFile(name, []byte(FillSlot("", f.ContentParts, f.ContentWidths, slot)), 0o666); err != nil {
			return fmt.Errorf("--template: %w", err)
		}
	}
	return nil
}

// Of and With are runner's, set by its init (runner imports this package,
// so its Job cannot be named here): Of returns what job, a runner.Job,
// carries (the zero State for a plain command); With returns job with s
// as its State. A Job holds its State by value, as its own fields: copies
// of a Job share the slices and pointers in it, as they did before.
// Written once before main, only read afterwards.
var (
	Of   func(job any) State
	With func(job any, s State) any
)

// Skipped says the job is one GNU parallel's --plus {uniq} or {choose_k}
// skips: runner.Run runs nothing for it and records it failed, with exit
// status -2 (GNU's joblog shows -2), as GNU parallel does.
func (s State) Skipped() bool { return s.Skip == 's' }

// CommandIn returns the job's command, cmd, as run in slot: each {%} of
// its template filled in (an argument that reads "{%}" is left alone).
func (s State) CommandIn(cmd string, slot int) string {
	var widths []int
	if s.GNU != nil {
		widths = s.GNU.SlotWidths
	}
	return FillSlot(cmd, s.SlotParts, widths, slot)
}

// Args returns the job's values, one per input source and record (GNU
// parallel's V1 ... Vn), and ArgNames the name of each one's source: its
// number from 1, or its column name under --header. Set under --tag and
// --results, which use them; nil otherwise.
func (s State) Args() []string {
	if s.GNU == nil {
		return nil
	}
	return s.GNU.Args
}

// ArgNames: see Args.
func (s State) ArgNames() []string {
	if s.GNU == nil {
		return nil
	}
	return s.GNU.ArgNames
}

// TagIn returns the prefix of each of the job's output lines in slot
// (--tag, --tagstring filled in, its {%} the slot); "" for none.
func (s State) TagIn(slot int) string {
	if s.GNU == nil {
		return ""
	}
	return FillSlot(s.GNU.Tag, s.GNU.TagParts, s.GNU.TagWidths, slot)
}

// ResultsIn returns the name the job's output is saved under in slot
// (--results filled in, when it holds a replacement string); "" for none.
func (s State) ResultsIn(slot int) string {
	if s.GNU == nil {
		return ""
	}
	return FillSlot(s.GNU.Results, s.GNU.ResParts, s.GNU.ResWidths, slot)
}

// Input returns what the job reads as its input: stdin (its Stdin), or
// its part of a file (worksteal run --pipepart).
func (s State) Input(stdin []byte) ([]byte, error) {
	if s.In == nil || s.In.Src == nil {
		return stdin, nil
	}
	b, err := io.ReadAll(s.In.Src())
	if err == nil && b == nil {
		b = []byte{}
	}
	return b, err
}
