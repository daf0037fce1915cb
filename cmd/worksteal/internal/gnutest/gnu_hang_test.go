//go:build unix

package gnutest

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestAHungGNURunIsRunAgain: a GNU run that hangs (here a stand-in whose
// first run leaves a child holding its output and never ends) is killed
// with its whole process group once worksteal's run has ended and the
// grace has passed, and run again in a clean directory; the comparison
// gets the second run's outcome, not the first's partial one.
func TestAHungGNURunIsRunAgain(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	mark := filepath.Join(dir, "hung-once")
	fake := filepath.Join(dir, "fake-parallel")
	script := "#!/bin/sh\n" +
		"echo partial > every-run\n" +
		"if [ ! -e " + mark + " ]; then : > " + mark + "; : > first-only; echo partial; (sleep 600; echo late) & wait; fi\n" +
		"echo whole\n"
	if err := os.WriteFile(fake, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var logged []string
	logf := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		logged = append(logged, format)
	}
	c := gnuCase{name: "hang", args: []string{"echo", ":::", "a"}}
	gnuDir, wsDir := t.TempDir(), t.TempDir()
	began := time.Now()
	gnu, ws, err := runGNUCase(caseContext(t), c, fake, 200*time.Millisecond, gnuDir, wsDir, logf)
	if err != nil {
		t.Fatal(err)
	}
	if gnu.stdout != "whole\n" || gnu.code != 0 {
		t.Errorf("the GNU outcome is %q, exit %d; want the second run's %q, exit 0", gnu.stdout, gnu.code, "whole\n")
	}
	if ws.stdout != "a\n" {
		t.Errorf("worksteal printed %q; want %q", ws.stdout, "a\n")
	}
	if _, ok := gnu.files["first-only"]; ok || len(gnu.files) != 1 {
		t.Errorf("the GNU run's directory holds %v; want only the second run's file", gnu.files)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(logged) != 1 || !strings.Contains(logged[0], "killed, and run again") {
		t.Errorf("logged %q; want one line saying GNU was run again", logged)
	}
	t.Logf("the hung run was replaced after %v", time.Since(began).Round(time.Millisecond))
}
