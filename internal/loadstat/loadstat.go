// Package loadstat is the one definition of the load statistics that the
// runtime (worksteal.Stats) and package balance both report, so the two
// agree by construction. It exists because the runtime cannot import
// balance (balance imports the runtime). It imports only the standard
// library, as the core packages must.
package loadstat

import "slices"

// Number is any integer or floating-point type, including time.Duration.
type Number interface {
	~int | ~int8 | ~int16 | ~int32 | ~int64 |
		~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uintptr |
		~float32 | ~float64
}

// Imbalance returns max/mean of the per-worker loads. Loads are amounts of
// work (busy time, items run) and never negative; for no loads, or a total
// that is not positive, it returns 1: nothing was run, so nothing was
// unevenly run.
func Imbalance[T Number](loads []T) float64 {
	if len(loads) == 0 {
		return 1
	}
	var sum, hi float64
	for i, l := range loads {
		x := float64(l)
		sum += x
		if i == 0 || x > hi {
			hi = x
		}
	}
	if sum <= 0 {
		return 1
	}
	return hi / (sum / float64(len(loads)))
}

// Utilization returns Σbusy / (Σbusy + Σidle) over per-worker busy and idle
// times, or 0 when no time was measured.
func Utilization[T Number](busy, idle []T) float64 {
	var b, i float64
	for _, x := range busy {
		b += float64(x)
	}
	for _, x := range idle {
		i += float64(x)
	}
	if b+i <= 0 {
		return 0
	}
	return b / (b + i)
}

// Median returns the median of xs (the mean of the middle two for an even
// count), 0 for none; xs is not modified. The benchmarks report medians of
// repeated measurements with it.
func Median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
