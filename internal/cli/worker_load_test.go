package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/worksteal/worksteal/internal/machine"
)

func TestParseMaxLoadAndSize(t *testing.T) {
	for _, tc := range []struct {
		s    string
		want float64
	}{{"3", 3}, {"2.5", 2.5}, {"100%", 8}, {"50%", 4}} {
		if got, err := parseMaxLoad(tc.s, 8); err != nil || got != tc.want {
			t.Errorf("parseMaxLoad(%q, 8 CPUs) = %v, %v; want %v", tc.s, got, err, tc.want)
		}
	}
	for _, bad := range []string{"x", "-1", "0", "%"} {
		if _, err := parseMaxLoad(bad, 8); err == nil || !strings.Contains(err.Error(), "--load") {
			t.Errorf("parseMaxLoad(%q) = %v; want an error naming --load", bad, err)
		}
	}
	for _, tc := range []struct {
		s    string
		want uint64
	}{{"1000", 1000}, {"2K", 2048}, {"1G", 1 << 30}, {"1.5M", 3 << 19}, {"2g", 2e9}, {"1P", 1 << 50}} {
		if got, err := parseSize("--memfree", tc.s); err != nil || got != tc.want {
			t.Errorf("parseSize(%q) = %v, %v; want %v", tc.s, got, err, tc.want)
		}
	}
	for _, bad := range []string{"G", "lots", "-5M"} {
		if _, err := parseSize("--memfree", bad); err == nil || !strings.Contains(err.Error(), "--memfree") {
			t.Errorf("parseSize(%q) = %v; want an error naming --memfree", bad, err)
		}
	}
}

// TestAdmissionFollowsTheMachine feeds a fake /proc through a sequence of
// readings: the worker stops taking tasks when the running-process mean
// over a second reaches --load or memory falls under --memfree, and starts
// again when both clear.
func TestAdmissionFollowsTheMachine(t *testing.T) {
	root := t.TempDir()
	write := func(p, s string) {
		full := filepath.Join(root, p)
		os.MkdirAll(filepath.Dir(full), 0o755)
		if err := os.WriteFile(full, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	state := func(running int, availMiB uint64) {
		write("/proc/loadavg", fmt.Sprintf("1.00 1.00 1.00 %d/300 4242\n", running+1)) // +1: the reader
		write("/proc/meminfo", fmt.Sprintf("MemTotal: 8388608 kB\nMemAvailable: %d kB\n", availMiB*1024))
	}
	a := newAdmission(machine.FS{Root: root}, 4, 1<<30)
	steps := []struct {
		running int
		avail   uint64
		ok      bool
		why     string
	}{
		{1, 4096, true, ""},
		{6, 4096, true, ""}, // mean of 1, 6: one burst does not stop it
		{1, 4096, true, ""},
		{12, 4096, false, "5.0 running processes >= --load 4"}, // 1, 6, 1, 12
		{1, 4096, false, "5.0 running processes >= --load 4"},  // 6, 1, 12, 1
		{1, 4096, true, ""}, // 1, 12, 1, 1: 3.75
		{1, 512, false, "512 MiB available < --memfree 1024 MiB"},
		{1, 2048, true, ""},
	}
	for i, s := range steps {
		state(s.running, s.avail)
		ok, why, err := a.sample()
		if err != nil {
			t.Fatal(err)
		}
		if ok != s.ok || why != s.why {
			t.Errorf("step %d (%d running, %d MiB): %v %q; want %v %q", i, s.running, s.avail, ok, why, s.ok, s.why)
		}
	}
	if err := newAdmission(machine.FS{Root: t.TempDir()}, 2, 0).check(); err == nil || !strings.Contains(err.Error(), "--load") || !strings.Contains(err.Error(), "/proc/loadavg") {
		t.Errorf("--load on a machine without /proc/loadavg: %v; want an error naming both", err)
	}
}
