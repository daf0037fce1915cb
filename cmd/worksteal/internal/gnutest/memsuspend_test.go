package gnutest

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/worksteal/worksteal/internal/testdeadline"
	"github.com/worksteal/worksteal/internal/throttle"
)

// TestMemSuspendStopsTheYoungestJobsAndContinuesThem runs three jobs under
// --memsuspend 1G through the binary, with the free memory read from a file
// the test writes (throttle.MemInfoEnv): below 1G free only the oldest job
// runs, the other two process groups are stopped (state T); with plenty
// free again they all run and the run ends with exit 0.
func TestMemSuspendStopsTheYoungestJobsAndContinuesThem(t *testing.T) {
	dir := t.TempDir()
	meminfo := filepath.Join(dir, "meminfo")
	setFree := func(kb int) {
		tmp := meminfo + ".tmp"
		body := fmt.Sprintf("MemTotal: 20000000 kB\nMemFree: %d kB\nMemAvailable: %d kB\nBuffers: 0 kB\nCached: 0 kB\nSwapCached: 0 kB\n", kb, kb)
		if err := os.WriteFile(tmp, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, meminfo); err != nil {
			t.Fatal(err)
		}
	}
	setFree(10_000_000) // 10 GB: over twice 1G
	job := fmt.Sprintf(`echo $$ > %s/{}.pid; while [ ! -e %s/go ]; do sleep 0.05; done`, dir, dir)
	cmd := exec.Command(wsBin, "run", "-j3", "--memsuspend", "1G", job, ":::", "1", "2", "3")
	cmd.Env = append(os.Environ(), throttle.MemInfoEnv+"="+meminfo)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	var waitErr error
	go func() { waitErr = cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		os.WriteFile(filepath.Join(dir, "go"), nil, 0o644)
		setFree(10_000_000)
		select {
		case <-done:
		case <-time.After(testdeadline.Left(t)):
			cmd.Process.Kill()
		}
	})
	pids := make([]int, 3)
	testdeadline.Until(t, "the three jobs running", 20*time.Millisecond, func() bool {
		for i := range pids {
			b, err := os.ReadFile(filepath.Join(dir, strconv.Itoa(i+1)+".pid"))
			if err != nil || len(bytes.TrimSpace(b)) == 0 {
				return false
			}
			pids[i], _ = strconv.Atoi(string(bytes.TrimSpace(b)))
		}
		return true
	})
	state := func(pid int) byte {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			return 0
		}
		i := bytes.LastIndexByte(b, ')')
		if i < 0 || i+2 >= len(b) {
			return 0
		}
		return b[i+2]
	}
	setFree(100_000) // 100 MB: under 1G, only the oldest runs
	testdeadline.Until(t, "jobs 2 and 3 stopped (T)", 20*time.Millisecond, func() bool {
		return state(pids[1]) == 'T' && state(pids[2]) == 'T'
	})
	if s := state(pids[0]); s == 'T' || s == 0 {
		t.Fatalf("job 1, the oldest, is in state %q: it must keep running", s)
	}
	setFree(10_000_000)
	testdeadline.Until(t, "jobs 2 and 3 continued", 20*time.Millisecond, func() bool {
		return state(pids[1]) != 'T' && state(pids[2]) != 'T'
	})
	if err := os.WriteFile(filepath.Join(dir, "go"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
		if waitErr != nil {
			t.Fatalf("worksteal run: %v\n%s", waitErr, out.String())
		}
	case <-time.After(testdeadline.Left(t)):
		t.Fatalf("worksteal run did not end\n%s", out.String())
	}
	if s := strings.TrimSpace(out.String()); s != "" {
		t.Fatalf("unexpected output: %q", s)
	}
}
