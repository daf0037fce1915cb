package jobio

import "strings"

// Quote quotes s for the shell as GNU parallel does: left alone when it
// holds only letters, digits and -_.+/, "”" when empty, else in single
// quotes with each ' written '"'"'.
func Quote(s string) string {
	if s == "" {
		return "''"
	}
	if gnuSafe(s) {
		return s
	}
	q := "'" + strings.ReplaceAll(s, "'", `'"'"'`) + "'"
	q = strings.TrimPrefix(q, "''")
	q = strings.TrimSuffix(q, "''")
	return q
}

// ShellQuoted is the command that prints line quoted n times with
// Quote (GNU parallel's --shell-quote, n times), or line when n is 0.
func ShellQuoted(line string, n int) string {
	if n <= 0 {
		return line
	}
	for range n {
		line = Quote(line)
	}
	return `printf '%s\n' ` + Quote(line)
}

func gnuSafe(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case c == '-' || c == '_' || c == '.' || c == '+' || c == '/':
		default:
			return false
		}
	}
	return true
}
