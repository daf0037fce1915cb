package jobio

import (
	"strings"
	"testing"
)

// unquote undoes gnuQuote: bare safe characters, '...' and "'" pieces. It
// fails (ok false) on anything gnuQuote never writes.
func unquote(q string) (string, bool) {
	var b strings.Builder
	for i := 0; i < len(q); {
		switch {
		case q[i] == '\'':
			j := strings.IndexByte(q[i+1:], '\'')
			if j < 0 {
				return "", false
			}
			b.WriteString(q[i+1 : i+1+j])
			i += j + 2
		case strings.HasPrefix(q[i:], `"'"`):
			b.WriteByte('\'')
			i += 3
		case gnuSafe(q[i : i+1]):
			b.WriteByte(q[i])
			i++
		default:
			return "", false
		}
	}
	return b.String(), true
}

// FuzzShellQuote: the shell reads back exactly the quoted string.
func FuzzShellQuote(f *testing.F) {
	for _, s := range []string{"", "a", "a b", "it's", "'", "''", "x$y", "`date`", "$(echo hi)", "a\nb", "日本", "-x", "~"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		q := Quote(s)
		got, ok := unquote(q)
		if s == "" {
			got, ok = "", q == "''"
		}
		if !ok || got != s {
			t.Fatalf("gnuQuote(%q) = %s, which reads back as %q (ok %v)", s, q, got, ok)
		}
	})
}

func TestShellQuote(t *testing.T) {
	for in, want := range map[string]string{"a.txt": "a.txt", "": "''", "a b": "'a b'", "$x": "'$x'", "it's": `'it'"'"'s'`, "'": `"'"`} {
		if got := Quote(in); got != want {
			t.Errorf("Quote(%q) = %s; want %s", in, got, want)
		}
	}
}
