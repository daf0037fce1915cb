package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Bad values of the pipe, throttle and semaphore options: exit 255, an
// error that names the option and the value, and nothing run (the jobs
// would create a file).
func TestRunPipeBadInput(t *testing.T) {
	dir := t.TempDir()
	marker := filepath.Join(dir, "ran")
	touch := "touch " + marker
	cases := []struct {
		args []string
		want []string // in the error
	}{
		{[]string{"--pipe", "--block", "foo", touch}, []string{"--block", `"foo"`}},
		{[]string{"--pipe", "--block", "-1", touch}, []string{"--block", `"-1"`, "--pipepart"}},
		{[]string{"--pipe", "--block-size", "0.5", touch}, []string{"--block-size", `"0.5"`}},
		{[]string{"--pipe", "-N", "0", touch}, []string{"-N", `"0"`}},
		{[]string{"--pipe", "--header", "(", touch}, []string{"--header", `"("`}},
		{[]string{"--pipe", "--cat", "--fifo", touch}, []string{"--cat", "--fifo"}},
		{[]string{"--pipe", "--shuf", touch}, []string{"--shuf", "pipe mode"}},
		{[]string{"--pipe", "-a", "somefile", touch}, []string{"--pipe", "somefile"}},
		{[]string{"--pipepart", "-a", dir, touch}, []string{"--pipepart", dir}},
		{[]string{"--pipepart", "-a", "f", "-N", "2", touch}, []string{"-N", "--pipepart"}},
		{[]string{"--pipe", "--halt", "now,fail=10%", touch}, []string{"--halt", `"now,fail=10%"`}},
		{[]string{"--pipe", "--regexp", "--recstart", "(", touch}, []string{"--recstart", `"("`}},
		{[]string{"--load", "foo", touch, ":::", "a"}, []string{"--load", `"foo"`}},
		{[]string{"--load", "1e3", touch, ":::", "a"}, []string{"--load", `"1e3"`}},
		{[]string{"--memfree", "lots", touch, ":::", "a"}, []string{"--memfree", `"lots"`}},
		{[]string{"--semaphore", "--semaphore-timeout", "soon", touch}, []string{"--semaphore-timeout", `"soon"`}},
		{[]string{"--semaphore", "--fg", "--bg", touch}, []string{"--fg", "--bg"}},
		{[]string{"--semaphore", "--joblog", "jl", touch}, []string{"--joblog", "--semaphore"}},
		{[]string{"--semaphore", "--id", "", touch}, []string{"--id"}},
		{[]string{"--semaphore", "-j", "x", touch}, []string{"-j", `"x"`}},
	}
	os.WriteFile(filepath.Join(dir, "f"), []byte("a\n"), 0o644)
	wd, _ := os.Getwd()
	os.Chdir(dir)
	defer os.Chdir(wd)
	t.Setenv("PARALLEL_HOME", dir)
	for _, c := range cases {
		code, out, errs := runWithInput(t, "a\nb\n", append([]string{"run"}, c.args...)...)
		if code != 255 {
			t.Errorf("%q: exit %d, want 255 (stdout %q, stderr %q)", c.args, code, out, errs)
		}
		for _, w := range c.want {
			if !strings.Contains(errs, w) {
				t.Errorf("%q: error %q does not name %s", c.args, strings.TrimSpace(errs), w)
			}
		}
		if _, err := os.Stat(marker); err == nil {
			t.Fatalf("%q: a job ran", c.args)
		}
	}
}

// worksteal sem is run --semaphore; --fg gives the command's status.
func TestSemCommand(t *testing.T) {
	t.Setenv("PARALLEL_HOME", t.TempDir())
	code, out, errs := runWithInput(t, "", "sem", "--fg", "--id", "x", "echo", "hi;", "exit", "4")
	if code != 4 || out != "hi\n" {
		t.Errorf("sem --fg: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	if code, _, errs := runWithInput(t, "", "sem", "--no-such-flag", "true"); code != 255 || !strings.Contains(errs, "no-such-flag") {
		t.Errorf("sem with a bad flag: exit %d, stderr %q", code, errs)
	}
}
