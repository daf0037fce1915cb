package runner

import (
	"fmt"
	"os"
)

// TemplateFile is GNU parallel's --template FILE=NAME (--tmpl): as each
// job starts, Content (FILE's, read beforehand) is written to Name, the
// replacement strings of both filled in for the job with its values as
// they are (unquoted). Perl expressions ({= =}) are refused, as in the
// command.
type TemplateFile struct{ Name, Content string }

// filledFile is a TemplateFile filled in for one job, cut at each {%}
// (the slot is known only when the job starts).
type FilledFile struct {
	NameParts, ContentParts   []string
	NameWidths, ContentWidths []int
}

// compileText compiles s as text with replacement strings: one word,
// nothing appended, values unquoted.
func compileText(s string, syn rplSyntax, slotWidth int) (*template, error) {
	t, err := compileTemplate([]string{s}, false, syn)
	if err != nil {
		return nil, err
	}
	t.quoteArgs, t.bare = false, true
	t.slotWidth = slotWidth
	if t.appended {
		t.words = t.words[:len(t.words)-1]
	}
	return t, nil
}

// writeTemplates writes the job's template files for slot.
func (j Job) writeTemplates(slot int) error {
	if j.x.GNU == nil {
		return nil
	}
	for _, f := range j.x.GNU.Templates {
		name := FillSlot("", f.NameParts, f.NameWidths, slot)
		if err := os.WriteFile(name, []byte(FillSlot("", f.ContentParts, f.ContentWidths, slot)), 0o666); err != nil {
			return fmt.Errorf("--template: %w", err)
		}
	}
	return nil
}
