package schedule

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
)

// lognormalCosts returns n seeded lognormal costs of median 1.
func lognormalCosts(n int, sigma float64, seed uint64) []float64 {
	r := rand.New(rand.NewPCG(seed, seed))
	costs := make([]float64, n)
	for i := range costs {
		costs[i] = math.Exp(sigma * r.NormFloat64())
	}
	return costs
}

// spin burns about units×15 ns of CPU (10 multiply-adds in a dependent
// chain per unit).
func spin(units float64) float64 {
	x := 1.0
	for i := 0; i < int(units*10); i++ {
		x = x*1.0000001 + 1e-9
	}
	return x
}

var spinSink float64

// catchPanic runs f and returns its panic value formatted with %v, or ""
// if it did not panic.
func catchPanic(f func()) (msg string) {
	defer func() {
		if v := recover(); v != nil {
			msg = fmt.Sprint(v)
			if !strings.HasPrefix(msg, "schedule: ") && !strings.HasPrefix(msg, "balance: ") {
				msg = "missing prefix: " + msg
			}
		}
	}()
	f()
	return ""
}

// catchAny runs f and returns its panic value, or nil.
func catchAny(f func()) (v any) {
	defer func() { v = recover() }()
	f()
	return nil
}
