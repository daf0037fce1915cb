package main

// Pipe mode on the cluster tier (the chunks of run --nats --pipe are the
// tasks, each on its worker's command's stdin) and the semaphore across
// real processes, through the binary.

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/worksteal/worksteal/cmd/worksteal/internal/e2e"
	"github.com/worksteal/worksteal/internal/joblog"
	"github.com/worksteal/worksteal/internal/testdeadline"
)

// wsRunEnv runs the binary to its end with stdin and extra environment.
func wsRunEnv(t *testing.T, stdin string, env []string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	c := exec.Command(e2e.Bin, args...)
	c.Env = append(os.Environ(), env...)
	c.Stdin = strings.NewReader(stdin)
	var o, e bytes.Buffer
	c.Stdout, c.Stderr = &o, &e
	err := c.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return o.String(), e.String(), code
}

// TestPipeChunksAsClusterTasks: run --nats --pipe gives each chunk to a
// worker's command on its stdin; the output, in order with -k, is the
// local run's; the joblog has a row per chunk with its size; rerunning
// collects the results, and other input is another batch.
func TestPipeChunksAsClusterTasks(t *testing.T) {
	t.Parallel()
	srv, _ := e2e.Deployment(t)
	var in strings.Builder // seq 20000: 108,894 bytes, 28 chunks of about 4 KiB
	for i := 1; i <= 20000; i++ {
		fmt.Fprintf(&in, "%d\n", i)
	}
	input := in.String()
	local, _, code := wsRunEnv(t, input, nil, "run", "--pipe", "--block", "4k", "-k", "-j2", "echo {#}; wc -l")
	chunks := strings.Count(local, "\n") / 2
	if code != 0 || chunks < 20 {
		t.Fatalf("local run: exit %d, output %q", code, local)
	}
	logPath := filepath.Join(t.TempDir(), "jl")
	nats := []string{"run", "--nats", srv.URL(), "--ack-wait", e2e.AckWait, "--pipe", "--block", "4k", "-k", "--joblog", logPath, "echo {#}; wc -l"}
	out, errOut, code := wsRunEnv(t, input, nil, nats...)
	if code != 0 || out != local {
		t.Fatalf("run --nats --pipe: exit %d, output differs from the local run's:\n%s\nlocal:\n%s\nstderr: %s", code, out, local, errOut)
	}
	recs, err := joblog.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	var sent int64
	for _, r := range recs {
		sent += r.Send
		if !strings.HasPrefix(r.Host, "w") {
			t.Errorf("joblog row %+v: not run by a worker", r)
		}
	}
	if len(recs) != chunks || sent != int64(len(input)) {
		t.Errorf("joblog: %d rows, %d bytes sent; want %d, %d", len(recs), sent, chunks, len(input))
	}
	// The same input again: the batch's results, nothing runs again.
	out2, errOut2, code := wsRunEnv(t, input, nil, nats...)
	if code != 0 || out2 != local || !strings.Contains(errOut2, "finished earlier") {
		t.Errorf("rerun: exit %d, stderr %q, output same: %v", code, errOut2, out2 == local)
	}
	// Other input under the same commands (the same chunks' sizes, other
	// digits) is another batch.
	other := strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' {
			return '0' + (r-'0'+1)%10
		}
		return r
	}, input)
	tail := append(nats[:len(nats)-1:len(nats)-1], "echo {#}; tail -1")
	want, _, _ := wsRunEnv(t, other, nil, "run", "--pipe", "--block", "4k", "-k", "echo {#}; tail -1")
	if _, _, code := wsRunEnv(t, input, nil, tail...); code != 0 {
		t.Fatalf("tail -1 over the cluster: exit %d", code)
	}
	out3, errOut3, code := wsRunEnv(t, other, nil, tail...)
	if code != 0 || out3 != want {
		t.Errorf("other input: exit %d, output %q (stderr %q); want its own chunks' last lines %q", code, out3, errOut3, want)
	}
}

// semLog reads the semaphore test's log: "+" when a command starts, "-"
// when it ends; the most running at once.
func semMost(t *testing.T, log string) (most, starts, ends int) {
	data, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	running := 0
	for _, f := range strings.Fields(string(data)) {
		switch f {
		case "+":
			running++
			starts++
		case "-":
			running--
			ends++
		}
		most = max(most, running)
	}
	return most, starts, ends
}

// TestSemaphoreAcrossProcesses: sem -j2 in a loop returns as soon as a
// slot is free and runs the command in the background; never more than
// two run at once; sem --wait returns when all have finished.
func TestSemaphoreAcrossProcesses(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	env := []string{"PARALLEL_HOME=" + home}
	dir := t.TempDir()
	log := filepath.Join(dir, "log")
	// The background commands' output goes to a file: sem returns at once.
	outFile, err := os.Create(filepath.Join(dir, "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer outFile.Close()
	const n = 6
	for i := range n {
		c := exec.Command(e2e.Bin, "sem", "-j2", "--id", "t", fmt.Sprintf("echo + >> %s; sleep 0.3; echo job%d; echo - >> %s", log, i, log))
		c.Env = append(os.Environ(), env...)
		c.Stdout, c.Stderr = outFile, outFile
		if err := c.Run(); err != nil {
			t.Fatalf("sem %d: %v", i, err)
		}
	}
	if _, errOut, code := wsRunEnv(t, "", env, "sem", "--wait", "--id", "t"); code != 0 {
		t.Fatalf("sem --wait: exit %d: %s", code, errOut)
	}
	most, starts, ends := semMost(t, log)
	if most > 2 || starts != n || ends != n {
		t.Errorf("%d commands started, %d ended by sem --wait's return, at most %d at once; want %d, %d, at most 2", starts, ends, most, n, n)
	}
	data, _ := os.ReadFile(outFile.Name())
	if strings.Count(string(data), "job") != n {
		t.Errorf("the background commands' output: %q", data)
	}
	if ents, _ := os.ReadDir(filepath.Join(home, "semaphores")); len(ents) != 0 {
		t.Errorf("semaphore files left after the last release: %v", ents)
	}
}

// TestSemaphoreForegroundTimeoutAndDeadHolder: --fg exits with the
// command's status; a negative --semaphore-timeout gives up (exit 1) while
// the semaphore is held; a holder killed with SIGKILL frees its slot.
func TestSemaphoreForegroundTimeoutAndDeadHolder(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	env := []string{"PARALLEL_HOME=" + home}
	if out, _, code := wsRunEnv(t, "", env, "run", "--semaphore", "--fg", "--id", "f", "echo hi; exit 7"); code != 7 || out != "hi\n" {
		t.Errorf("--fg: exit %d, output %q; want 7, hi", code, out)
	}
	// A holder in the background, found by its link, then killed.
	outFile, _ := os.Create(filepath.Join(t.TempDir(), "out"))
	defer outFile.Close()
	c := exec.Command(e2e.Bin, "sem", "--id", "k", "sleep 60")
	c.Env = append(os.Environ(), env...)
	c.Stdout, c.Stderr = outFile, outFile
	if err := c.Run(); err != nil {
		t.Fatal(err)
	}
	if _, errOut, code := wsRunEnv(t, "", env, "sem", "--fg", "--id", "k", "--st", "-0.5", "true"); code != 1 || !strings.Contains(errOut, "timed out") {
		t.Fatalf("a held semaphore with --st -0.5: exit %d, stderr %q; want 1, timed out", code, errOut)
	}
	links, _ := filepath.Glob(filepath.Join(home, "semaphores", "id-k", "*@*"))
	if len(links) != 1 {
		t.Fatalf("holders: %v; want one", links)
	}
	var pid int
	fmt.Sscanf(filepath.Base(links[0]), "%d@", &pid)
	p, _ := os.FindProcess(pid)
	if err := p.Kill(); err != nil {
		t.Fatalf("killing the holder %d: %v", pid, err)
	}
	start := time.Now()
	if out, errOut, code := wsRunEnv(t, "", env, "sem", "--fg", "--id", "k", "--st", "-20", "echo freed"); code != 0 || out != "freed\n" {
		t.Errorf("after the holder died: exit %d, output %q, stderr %q (after %v)", code, out, errOut, time.Since(start))
	}
}

// TestPipeStopsOnAnEndlessInput: with a stdin that never ends, run --pipe
// stops on SIGINT (130) and on --halt now,fail=1 (1), without waiting
// for the input's end.
func TestPipeStopsOnAnEndlessInput(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		args []string
		sig  bool
		want int
	}{
		{"SIGINT", []string{"run", "--pipe", "-N1", "cat >/dev/null"}, true, 130},
		// A block is read whole before it is cut (GNU's rule): 10 bytes.
		{"--halt now,fail=1", []string{"run", "--pipe", "--block", "10", "-N1", "--halt", "now,fail=1", "cat >/dev/null; exit 1"}, false, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			pr, pw, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			defer pw.Close()
			cmd := exec.Command(e2e.Bin, c.args...)
			cmd.Stdin = pr
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			pr.Close()
			pw.Write([]byte("a\nb\nc\nd\ne\n")) // and no end
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			if c.sig {
				time.Sleep(300 * time.Millisecond)
				cmd.Process.Signal(os.Interrupt)
			}
			select {
			case <-done:
			case <-time.After(testdeadline.Left(t)):
				cmd.Process.Kill()
				<-done
				t.Fatalf("still running as the test's deadline nears: %s", out.String())
			}
			if code := cmd.ProcessState.ExitCode(); code != c.want {
				t.Errorf("exit %d, want %d: %s", code, c.want, out.String())
			}
		})
	}
}
