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
