package bench

import (
	"fmt"
	"strconv"
)

// golden is the splitmix64 increment (2^64 / φ, odd).
const golden = 0x9e3779b97f4a7c15

// mix64 is the splitmix64 output function.
func mix64(z uint64) uint64 {
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// atoiIn parses size as an integer in [lo, hi].
func atoiIn(workload, size string, lo, hi int) (int, error) {
	n, err := strconv.Atoi(size)
	if err != nil || n < lo || n > hi {
		return 0, fmt.Errorf("%w: %s size %q (want an integer in %d..%d)", ErrBadSize, workload, size, lo, hi)
	}
	return n, nil
}
