package gnuinput

// TemplateFile is GNU parallel's --template FILE=NAME (--tmpl): as each
// job starts, Content (FILE's, read beforehand) is written to Name, the
// replacement strings of both filled in for the job with its values as
// they are (unquoted). Perl expressions ({= =}) are refused, as in the
// command.
type TemplateFile struct{ Name, Content string }

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
