//go:build !linux

package worksteal

import "github.com/worksteal/worksteal/policy"

const pinSupported = false

// cacheGroups puts every worker in one group where the cache topology is
// not read.
func cacheGroups(workers int) (*policy.Groups, error) {
	return policy.EvenGroups(workers, workers), nil
}

func pinToCPU(int) {}
