package throttle

import "testing"

func TestReadMachine(t *testing.T) {
	r, err := ReadMachine()
	if err != nil {
		t.Skipf("no /proc here: %v", err)
	}
	if r.Load < 0 || r.MemFree <= 0 {
		t.Errorf("reading %+v", r)
	}
	got, err := memFree([]byte("MemTotal: 100 kB\nMemFree:  10 kB\nBuffers: 1 kB\nCached: 2 kB\nSwapCached: 3 kB\nMemAvailable: 50 kB\n"))
	if err != nil || got != 16*1024 {
		t.Errorf("memFree = %d, %v; want %d", got, err, 16*1024)
	}
}
