package clusterops

import (
	"maps"
	"os"
	"path/filepath"
	"testing"

	"github.com/worksteal/worksteal/internal/clusterwire"
	"github.com/worksteal/worksteal/internal/machine"
)

func TestMachineLabels(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{
		"/proc/meminfo": "MemTotal:       65848392 kB\nMemAvailable:   60000000 kB\n",
		"/proc/driver/nvidia/gpus/0000:01:00.0/information": "Model: H100\n",
		"/dev/dri/renderD128":                               "",
	}
	for p, s := range files {
		full := filepath.Join(root, p)
		os.MkdirAll(filepath.Dir(full), 0o755)
		if err := os.WriteFile(full, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got := machineLabels(machine.FS{Root: root}, 16)
	want := map[string]string{"cores": "16", "mem": "62G", "gpu": "1", "dri": "1"}
	if !maps.Equal(got, want) {
		t.Errorf("machineLabels = %v; want %v", got, want)
	}
	for k, v := range got {
		if !clusterwire.LabelPattern.MatchString(k) || !clusterwire.LabelPattern.MatchString(v) {
			t.Errorf("measured label %s=%s fails the label charset", k, v)
		}
	}
	bare := machineLabels(machine.FS{Root: t.TempDir()}, 2)
	if clusterwire.LabelString(bare) != "cores=2,gpu=0" {
		t.Errorf("on a machine with no meminfo and no GPU: %v; want cores=2,gpu=0 (memory left out, not 0G)", bare)
	}
	merged := withGiven(got, map[string]string{"gpu": "h100", "zone": "eu"})
	if merged["gpu"] != "h100" || merged["zone"] != "eu" || merged["cores"] != "16" || got["gpu"] != "1" {
		t.Errorf("withGiven = %v (measured %v); want the given labels to win and the measured unchanged", merged, got)
	}
	quota := machine.FS{Root: t.TempDir()}
	for p, c := range map[string]string{"/proc/self/cgroup": "0::/job\n", "/sys/fs/cgroup/job/cpu.max": "150000 100000\n"} {
		full := filepath.Join(quota.Root, p)
		os.MkdirAll(filepath.Dir(full), 0o755)
		os.WriteFile(full, []byte(c), 0o644)
	}
	if got := machineLabels(quota, 16)["cores"]; got != "2" {
		t.Errorf("16 CPUs under a 1.5-CPU quota: cores=%s; want 2", got)
	}
	t.Logf("this machine: %v", MachineLabels(nil))
}
