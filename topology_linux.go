//go:build linux

package worksteal

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"unsafe"

	"github.com/worksteal/worksteal/policy"
)

const pinSupported = true

// cacheGroups groups workers by the last-level cache their CPU shares,
// read from /sys/devices/system/cpu/cpuN/cache/indexK/{level,shared_cpu_list}.
// Worker i is associated with the i-th CPU of the process's affinity mask,
// modulo the number of CPUs.
func cacheGroups(workers int) (*policy.Groups, error) {
	cpus, err := allowedCPUs()
	if err != nil {
		return nil, err
	}
	groupOfCPU := map[int]int{}
	groupIDs := map[string]int{}
	for _, cpu := range cpus {
		key, err := llcKey(cpu)
		if err != nil {
			return nil, err
		}
		id, ok := groupIDs[key]
		if !ok {
			id = len(groupIDs)
			groupIDs[key] = id
		}
		groupOfCPU[cpu] = id
	}
	of := make([]int, workers)
	for i := range of {
		of[i] = groupOfCPU[cpus[i%len(cpus)]]
	}
	return policy.NewGroups(of)
}

// llcKey returns the shared_cpu_list of the highest cache level of cpu.
func llcKey(cpu int) (string, error) {
	dirs, _ := filepath.Glob(fmt.Sprintf("/sys/devices/system/cpu/cpu%d/cache/index*", cpu))
	bestLevel, best := -1, ""
	for _, d := range dirs {
		lv, err1 := os.ReadFile(filepath.Join(d, "level"))
		sh, err2 := os.ReadFile(filepath.Join(d, "shared_cpu_list"))
		if err1 != nil || err2 != nil {
			continue
		}
		level, err := strconv.Atoi(strings.TrimSpace(string(lv)))
		if err == nil && level > bestLevel {
			bestLevel, best = level, strings.TrimSpace(string(sh))
		}
	}
	if bestLevel < 0 {
		// No cache information (some VMs and containers): one group per CPU
		// package would be a guess; say "one group" honestly.
		return "all", nil
	}
	return best, nil
}

// allowedCPUs returns the CPUs in the process's affinity mask, ascending.
func allowedCPUs() ([]int, error) {
	var mask [1024 / 64]uint64
	_, _, errno := syscall.RawSyscall(syscall.SYS_SCHED_GETAFFINITY, 0, uintptr(len(mask)*8), uintptr(unsafe.Pointer(&mask[0])))
	if errno != 0 {
		return nil, fmt.Errorf("sched_getaffinity: %v", errno)
	}
	var cpus []int
	for i, word := range mask {
		for b := 0; b < 64; b++ {
			if word&(1<<b) != 0 {
				cpus = append(cpus, i*64+b)
			}
		}
	}
	if len(cpus) == 0 {
		return nil, fmt.Errorf("empty CPU affinity mask")
	}
	slices.Sort(cpus)
	return cpus, nil
}

// pinToCPU binds the calling OS thread (locked by the caller) to the CPU of
// worker id. Failure leaves the thread unpinned: pinning is a performance
// hint, not a correctness requirement.
func pinToCPU(id int) {
	cpus, err := allowedCPUs()
	if err != nil {
		return
	}
	cpu := cpus[id%len(cpus)]
	var mask [1024 / 64]uint64
	mask[cpu/64] |= 1 << (cpu % 64)
	syscall.RawSyscall(syscall.SYS_SCHED_SETAFFINITY, 0, uintptr(len(mask)*8), uintptr(unsafe.Pointer(&mask[0])))
}
