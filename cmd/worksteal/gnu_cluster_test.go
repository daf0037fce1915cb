package main

// GNU parallel's options with "run --nats": the same command line run by a
// real serve and worker gives what the local run gives (which the
// differential test holds to GNU parallel), and --halt cancels the job in
// the cluster.

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/worksteal/worksteal/cmd/worksteal/internal/e2e"
)

// gnuRunIn runs "worksteal run args" in dir with stdin, and returns its
// stdout, stderr and exit status.
func gnuRunIn(t *testing.T, dir, stdin string, args ...string) (string, string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, e2e.Bin, append([]string{"run"}, args...)...)
	cmd.Dir, cmd.Stdin = dir, strings.NewReader(stdin)
	cmd.Env = append(os.Environ(), "SHELL=/bin/sh", "PARALLEL_SHELL=/bin/sh", "MYVAR=from-submitter")
	var out, errs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errs
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("run %q: %v", args, err)
	}
	return out.String(), errs.String(), code
}

// filesUnder reads every file under dir, by relative path.
func filesUnder(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			data, _ := os.ReadFile(p)
			files[rel] = string(data)
		}
		return err
	})
	return files
}

func TestRunNatsTakesGNUOptions(t *testing.T) {
	t.Parallel()
	srv := &e2e.Server{Name: "gnu", Addr: fmt.Sprintf("127.0.0.1:%d", e2e.FreePort(t)), Store: t.TempDir()}
	srv.Start(t)
	w := e2e.Launch(t, "worker", "worker", "--nats", srv.URL(), "-j", "2", "--name", "w1", "--ack-wait", e2e.AckWait)
	w.WaitFor(t, "serving sh")

	// Each case's commands differ: a batch's job is named by its commands.
	cases := []struct {
		name  string
		args  []string
		stdin string
	}{
		{"--tag -n2", []string{"-k", "--tag", "-n2", "echo", "tag-n2", ":::", "a", "b", "c"}, ""},
		{"--tagstring, stderr", []string{"-k", "--tagstring", "{1}:{#}", "echo out-{}; echo err-{} >&2", ":::", "x", "y"}, ""},
		{"-X spread", []string{"-k", "-X", "echo", "x{}y", ":::", "1", "2", "3", "4", "5"}, ""},
		{"-N context", []string{"-k", "-N2", "echo", "N{2}-{1}", ":::", "1", "2", "3"}, ""},
		{"-0", []string{"-k", "-0", "echo", "null[{}]"}, "a b\x00c\nd\x00"},
		{"-d", []string{"-k", "-d", ",", "echo", "delim[{}]"}, "p,q,r"},
		{"--env", []string{"-k", "--env", "MYVAR", "echo $MYVAR", ":::", "env"}, ""},
		{"--results DIR", []string{"--results", "out", "echo {}; echo e{} >&2; exit {}", ":::", "0", "1", "a/b"}, ""},
		{"--results FILE.csv", []string{"-k", "--results", "r.csv", "echo csv{}", ":::", "1", "2"}, ""},
	}
	for _, c := range cases {
		localDir, natsDir := t.TempDir(), t.TempDir()
		lout, lerr, lcode := gnuRunIn(t, localDir, c.stdin, c.args...)
		nout, nerr, ncode := gnuRunIn(t, natsDir, c.stdin, append([]string{"--nats", srv.URL()}, c.args...)...)
		if lcode != 0 && c.name != "--results DIR" {
			t.Fatalf("%s: the local run exited %d: %s", c.name, lcode, lerr)
		}
		if nout != lout || ncode != lcode {
			t.Errorf("%s: run --nats: exit %d, stdout %q; the local run: exit %d, stdout %q\nstderr: %s", c.name, ncode, nout, lcode, lout, nerr)
		}
		if strings.Contains(c.name, "stderr") && !strings.Contains(nerr, "x:1\terr-x\n") {
			t.Errorf("%s: run --nats stderr %q lacks the tagged line x:1\\terr-x", c.name, nerr)
		}
		lf, nf := filesUnder(t, localDir), filesUnder(t, natsDir)
		times := regexp.MustCompile(`(?m)^(\d+,[^,]*,)[0-9.]+,[0-9.]+,`)
		for name, l := range lf {
			n := nf[name]
			if strings.HasSuffix(name, ".csv") {
				l, n = times.ReplaceAllString(l, "${1}T,T,"), times.ReplaceAllString(n, "${1}T,T,")
				l = strings.ReplaceAll(l, ",:,", ",w1,") // the host column names the worker
			}
			if n != l {
				t.Errorf("%s: file %s: run --nats wrote %q; the local run %q", c.name, name, n, l)
			}
		}
		if len(nf) != len(lf) {
			t.Errorf("%s: run --nats left files %v; the local run %v", c.name, keys(nf), keys(lf))
		}
	}

	// --halt now,fail=1: the job is cancelled in the cluster at the first
	// failure; tasks queued behind it never run.
	dir := t.TempDir()
	ran := filepath.Join(dir, "ran")
	args := []string{"--nats", srv.URL(), "--halt", "now,fail=1", "[ {} = 3 ] && exit 3; sleep 0.3; echo {} >> " + ran, ":::", "3"}
	for i := 0; i < 41; i++ {
		args = append(args, "0")
	}
	out, errs, code := gnuRunIn(t, dir, "", args...)
	if code != 3 {
		t.Fatalf("run --nats --halt now,fail=1: exit %d; want 3, the failed job's status\nstdout %q\nstderr %s", code, out, errs)
	}
	m := regexp.MustCompile(`cancelling job (run-[0-9a-f]+) in the cluster`).FindStringSubmatch(errs)
	if m == nil {
		t.Fatalf("run --nats --halt: stderr does not say the job is cancelled:\n%s", errs)
	}
	list := exec.Command(e2e.Bin, "job", "list", "--nats", srv.URL())
	lo, _ := list.CombinedOutput()
	if !regexp.MustCompile(m[1] + `\s+42\s+\d+\s+cancelled`).Match(lo) {
		t.Errorf("job list after --halt: %s is not cancelled:\n%s", m[1], lo)
	}
	time.Sleep(time.Second) // a task that was still queued would run by now
	data, _ := os.ReadFile(ran)
	if n := strings.Count(string(data), "\n"); n >= 42 {
		t.Errorf("%d of 42 tasks ran after the halt; want the queued ones removed", n)
	}
}

func keys(m map[string]string) []string {
	var k []string
	for name := range m {
		k = append(k, name)
	}
	return k
}
