package runner

import (
	"bytes"
	"strings"
	"testing"
)

// A size received on Resize is the terminal's from the next paint on: a
// line is cut at the new width.
func TestLatestLineResize(t *testing.T) {
	var out bytes.Buffer
	resize := make(chan Screen, 1)
	s := newLatestScreen(&out, Screen{Rows: 24, Cols: 90}, false)
	s.resize = resize
	j := s.job(1, "", nil)
	long := strings.Repeat("x", 100) + "\n"
	j.Write([]byte(long))
	if got, want := out.String(), "\r"+strings.Repeat("x", 89)+">\n"; got != want {
		t.Fatalf("at 90 columns: %q, want %q", got, want)
	}
	out.Reset()
	resize <- Screen{Rows: 24, Cols: 50}
	j.Write([]byte(long))
	if got, want := out.String(), "\r"+strings.Repeat("x", 49)+">\n"; got != want {
		t.Fatalf("after a resize to 50 columns: %q, want %q", got, want)
	}
}
