package cli

import (
	"errors"
	"strings"
	"testing"

	"github.com/worksteal/worksteal/internal/cli/workercmd"
	"github.com/worksteal/worksteal/internal/throttle"
)

// TestAdmissionFollowsTheMachine feeds a sequence of readings: the worker
// stops taking tasks while the load reaches --load or free memory is under
// --memfree, and starts again when both clear; a reading that fails is no
// room.
func TestAdmissionFollowsTheMachine(t *testing.T) {
	const mib = 1 << 20
	var next throttle.Reading
	var readErr error
	read := func() (throttle.Reading, error) { return next, readErr }
	next = throttle.Reading{Load: 0, MemFree: 4096 * mib}
	a, err := workercmd.NewAdmission("4", "1G", read)
	if err != nil || a == nil || !a.Ok.Load() {
		t.Fatalf("newAdmission: %v, %+v", err, a)
	}
	steps := []struct {
		load float64
		free int64
		err  error
		ok   bool
		why  string
	}{
		{3, 4096 * mib, nil, true, ""},
		{4, 4096 * mib, nil, false, "load 4 >= --load 4"},
		{1, 512 * mib, nil, false, "512 MiB free < --memfree 1024 MiB"},
		{5, 512 * mib, nil, false, "load 5 >= --load 4, 512 MiB free < --memfree 1024 MiB"},
		{1, 2048 * mib, nil, true, ""},
		{1, 2048 * mib, errors.New("no /proc"), false, ""},
	}
	for i, s := range steps {
		next, readErr = throttle.Reading{Load: s.load, MemFree: s.free}, s.err
		ok, why, err := a.Sample()
		if (err != nil) != (s.err != nil) || ok != s.ok || why != s.why {
			t.Errorf("step %d (load %v, %d MiB free): %v %q %v; want %v %q", i, s.load, s.free>>20, ok, why, err, s.ok, s.why)
		}
	}
	if a, err := workercmd.NewAdmission("", "", read); a != nil || err != nil {
		t.Errorf("no flags: %v, %v; want nil, nil", a, err)
	}
	for _, bad := range [][2]string{{"lots", ""}, {"", "-2G"}, {"", "0"}, {"", "x"}} {
		_, err := workercmd.NewAdmission(bad[0], bad[1], read)
		flag := "--load"
		if bad[0] == "" {
			flag = "--memfree"
		}
		if err == nil || !strings.Contains(err.Error(), flag) {
			t.Errorf("newAdmission(%q, %q) = %v; want an error naming %s", bad[0], bad[1], err, flag)
		}
	}
	readErr = errors.New("no /proc/stat")
	if _, err := workercmd.NewAdmission("2", "", read); err == nil || !strings.Contains(err.Error(), "no /proc/stat") {
		t.Errorf("a machine that cannot be read: %v; want the reading's error", err)
	}
}
