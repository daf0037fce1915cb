package runner

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/worksteal/worksteal/internal/runopts"
)

// A size received on Resize is the terminal's from the next paint on: a
// line is cut at the new width.
func TestLatestLineResize(t *testing.T) {
	var out bytes.Buffer
	resize := make(chan runopts.Screen, 1)
	s := newLatestScreen(&out, runopts.Screen{Rows: 24, Cols: 90}, false)
	s.resize = resize
	j := s.job(1, "", nil)
	long := strings.Repeat("x", 100) + "\n"
	j.Write([]byte(long))
	if got, want := out.String(), "\r"+strings.Repeat("x", 89)+">\n"; got != want {
		t.Fatalf("at 90 columns: %q, want %q", got, want)
	}
	out.Reset()
	resize <- runopts.Screen{Rows: 24, Cols: 50}
	j.Write([]byte(long))
	if got, want := out.String(), "\r"+strings.Repeat("x", 49)+">\n"; got != want {
		t.Fatalf("after a resize to 50 columns: %q, want %q", got, want)
	}
}

// LatestLineDrop (GNU's --ll with --files or --results DIR): the job runs
// and its exit status counts, its output (stderr too) is dropped, a line
// of its tag is written as it starts and its row is painted empty as it
// ends.
func TestLatestLineDrop(t *testing.T) {
	dir := t.TempDir()
	jobs := []Job{{Seq: 1, Command: "echo out; echo err >&2; touch " + dir + "/ran; exit 3"}}
	var out, errOut bytes.Buffer
	cfg := Config{Slots: 1, Stdout: &out, Stderr: &errOut, x: runopts.Options{LatestLine: true, LatestLineDrop: true}}
	sum, err := Run(context.Background(), cfg, jobs)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Failed != 1 {
		t.Errorf("Failed = %d, want 1 (the job runs, its exit status counts)", sum.Failed)
	}
	if _, err := os.Stat(filepath.Join(dir, "ran")); err != nil {
		t.Errorf("the job did not run: %v", err)
	}
	if got, want := out.String(), "\n"+strings.Repeat("\r \n", 3); got != want {
		t.Errorf("stdout = %q, want %q (a line of the empty tag, then empty paints)", got, want)
	}
	if errOut.Len() != 0 {
		t.Errorf("stderr = %q, want nothing (it goes into the dropped pipe)", errOut.String())
	}
}

// DryRun with Verbose under outputLatestLine (GNU's --ll --dry-run): nothing
// runs, the command is the job's painted line, the exit status 0.
func TestLatestLineDryRun(t *testing.T) {
	dir := t.TempDir()
	line := "touch " + dir + "/ran; exit 3"
	jobs := []Job{{Seq: 1, Command: line}}
	var out bytes.Buffer
	cfg := Config{Slots: 1, Stdout: &out, x: runopts.Options{LatestLine: true, DryRun: true, Verbose: true, Screen: runopts.Screen{Rows: 24, Cols: 200}}}
	sum, err := Run(context.Background(), cfg, jobs)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Failed != 0 || sum.Succeeded != 1 {
		t.Errorf("Failed, Succeeded = %d, %d; want 0, 1", sum.Failed, sum.Succeeded)
	}
	if _, err := os.Stat(filepath.Join(dir, "ran")); err == nil {
		t.Error("the command ran under DryRun")
	}
	paints := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if got, want := paints[len(paints)-1], "\r"+line+" "; got != want {
		t.Errorf("last paint = %q, want %q (all: %q)", got, want, out.String())
	}
}
