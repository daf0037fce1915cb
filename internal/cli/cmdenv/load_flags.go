package cmdenv

import (
	"errors"
	"math"
	"runtime"
	"strconv"
	"strings"
)

// ParseLoad reads --load as GNU parallel does: N (a decimal), +N or -N
// (CPUs plus or minus N), N% (of the CPUs); 0 is 0.01.
func ParseLoad(s string) (float64, error) {
	bad := errors.New("want N, +N, -N (CPUs plus or minus N) or N% (of the CPUs)")
	s = strings.TrimSpace(s)
	cpus := float64(runtime.NumCPU())
	var v float64
	switch {
	case s == "":
		return 0, bad
	case strings.HasSuffix(s, "%"):
		n, err := strconv.ParseUint(strings.TrimSuffix(s, "%"), 10, 32)
		if err != nil {
			return 0, bad
		}
		v = cpus * float64(n) / 100
	case s[0] == '+' || s[0] == '-':
		n, err := strconv.ParseUint(s[1:], 10, 32)
		if err != nil {
			return 0, bad
		}
		v = cpus + float64(n)
		if s[0] == '-' {
			v = cpus - float64(n)
		}
	default:
		n, err := strconv.ParseFloat(s, 64)
		if err != nil || n < 0 || math.IsInf(n, 0) || strings.ContainsAny(s, "eExXpP_") {
			return 0, bad
		}
		v = n
	}
	if v == 0 {
		v = 0.01
	}
	return v, nil
}
