package gnuinput

// GNU parallel's --csv (20221122, "alpha testing" in its man page): each
// record is read as CSV, as Perl's Text::CSV reads it (binary, the quote
// and escape character '"', the separator --colsep, by default ","), and
// its fields are the columns {1} {2} ... A record is lines joined while
// the count of '"' is odd (a quoted newline); with --pipe, a chunk ends
// only at a newline after an even count.

import (
	"fmt"
	"strings"
)

// joinCSVRecords joins the lines of a quoted newline into one record, as
// GNU parallel's reader does (a line with an odd count of '"' opens or
// closes a record). A record still open at the end is an error.
func joinCSVRecords(lines []string, source string) ([]string, error) {
	var out []string
	open := false
	for _, l := range lines {
		if open {
			out[len(out)-1] += "\n" + l
		} else {
			out = append(out, l)
		}
		if strings.Count(l, `"`)%2 == 1 {
			open = !open
		}
	}
	if open {
		return nil, fmt.Errorf("%w: %s: --csv: a quoted field is not closed by the end of the input: %q", ErrBadInput, source, out[len(out)-1])
	}
	return out, nil
}

// splitCSV reads one record into its fields, as Text::CSV's parse does:
// a field is quoted ("" stands for ") or holds neither '"' nor a
// carriage return; after a closing quote comes sep or the end. An empty
// record is one empty field.
func splitCSV(rec, sep string) ([]string, error) {
	bad := func(why string) error {
		return fmt.Errorf("%w: --csv record %q: %s", ErrBadInput, rec, why)
	}
	var fields []string
	i := 0
	for {
		if i < len(rec) && rec[i] == '"' {
			var b strings.Builder
			i++
			for {
				if i >= len(rec) {
					return nil, bad("a quoted field is not closed")
				}
				if rec[i] == '"' {
					if i+1 < len(rec) && rec[i+1] == '"' {
						b.WriteByte('"')
						i += 2
						continue
					}
					i++
					break
				}
				b.WriteByte(rec[i])
				i++
			}
			fields = append(fields, b.String())
			switch {
			case i == len(rec):
				return fields, nil
			case strings.HasPrefix(rec[i:], sep):
				i += len(sep)
				continue
			}
			return nil, bad("text after a closing quote (a field is quoted whole)")
		}
		j := strings.Index(rec[i:], sep)
		end := len(rec)
		if j >= 0 {
			end = i + j
		}
		f := rec[i:end]
		if strings.ContainsAny(f, "\"\r") {
			return nil, bad(`a '"' or a carriage return in a field that is not quoted`)
		}
		fields = append(fields, f)
		if j < 0 {
			return fields, nil
		}
		i = end + len(sep)
	}
}

// csvCut is where a --pipe --csv chunk of buf ends: after the last newline
// with an even count of '"' before it (GNU's pass_csv_record); 0: none.
func csvCut(buf []byte) int {
	quotes := 0
	last := 0
	for i, c := range buf {
		switch c {
		case '"':
			quotes++
		case '\n':
			if quotes%2 == 0 {
				last = i + 1
			}
		}
	}
	return last
}
