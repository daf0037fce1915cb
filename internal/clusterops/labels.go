package clusterops

import (
	"maps"
	"math"
	"runtime"
	"strconv"

	"github.com/worksteal/worksteal/internal/machine"
)

// MachineLabels are the labels a worker measures of its machine: cores
// (the CPUs this process may use, capped by its cgroup's CPU quota rounded
// up), mem (total memory, whole GiB: "mem=23G"),
// gpu (NVIDIA GPUs the driver shows: /proc/driver/nvidia/gpus, /dev/nvidiaN;
// "gpu=0" when none) and, where the machine has DRM render nodes
// (/dev/dri/renderD*, any vendor's GPU), dri (their number). A label that
// cannot be measured is left out. The given labels (worksteal worker
// --label) are added, and win where both name a key.
func MachineLabels(given map[string]string) map[string]string {
	return withGiven(machineLabels(machine.FS{}, runtime.NumCPU()), given)
}

// withGiven returns measured with given's labels added, given's value
// winning where both have a key; measured is not changed.
func withGiven(measured, given map[string]string) map[string]string {
	m := maps.Clone(measured)
	maps.Copy(m, given)
	return m
}

func machineLabels(fs machine.FS, cpus int) map[string]string {
	if q, limited, err := fs.CPUQuota(); err == nil && limited {
		cpus = min(cpus, max(1, int(math.Ceil(q))))
	}
	l := map[string]string{"cores": strconv.Itoa(cpus)}
	if total, _, err := fs.Memory(); err == nil {
		l["mem"] = strconv.FormatUint(total>>30, 10) + "G"
	}
	nvidia, render := fs.GPUs()
	l["gpu"] = strconv.Itoa(nvidia)
	if render > 0 {
		l["dri"] = strconv.Itoa(render)
	}
	return l
}
