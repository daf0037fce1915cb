package balance

import (
	"fmt"
	"hash/fnv"
	"math"
	"testing"
)

// TestJumpGolden checks the published known answers of jump consistent
// hashing (the values Guava's consistentHash and the paper's C++ code give),
// so Jump routes keys exactly as every other implementation does.
func TestJumpGolden(t *testing.T) {
	golden100 := []int{0, 55, 62, 8, 45, 59, 86, 97, 82, 59, 73, 37, 17, 56, 86, 21, 90, 37, 38, 83}
	type tc struct {
		key     uint64
		workers int
		want    int
	}
	var cases []tc
	for k, w := range golden100 {
		cases = append(cases, tc{uint64(k), 100, w})
	}
	cases = append(cases,
		tc{10863919174838991, 11, 6},
		tc{2016238256797177309, 11, 3},
		tc{1673758223894951030, 11, 5},
		tc{2, 100001, 80343},
		tc{2201, 100001, 22152},
		tc{2202, 100001, 15018},
		tc{0xdeadbeef, 17, 16},
		tc{0x0ddc0ffeebadf00d, 16, 15},
		tc{1, 7, 6},
		tc{0, 1 << 20, 0},
	)
	for _, c := range cases {
		if got := Jump(c.key, c.workers); got != c.want {
			t.Errorf("Jump(%d, %d) = %d; want %d", c.key, c.workers, got, c.want)
		}
	}
}

// TestJumpMonotone: growing from n to n+1 workers, a key either stays or
// moves to the new worker n, never between old workers.
func TestJumpMonotone(t *testing.T) {
	for k := range 2000 {
		key := HashKey(fmt.Sprint("key-", k))
		prev := Jump(key, 1)
		if prev != 0 {
			t.Fatalf("Jump(%d, 1) = %d; want 0", key, prev)
		}
		for n := 1; n < 64; n++ {
			got := Jump(key, n+1)
			if got != prev && got != n {
				t.Fatalf("Jump(%d, %d) = %d after Jump(%d, %d) = %d; want %d or %d", key, n+1, got, key, n, prev, prev, n)
			}
			prev = got
		}
	}
}

// within5Sigma reports whether count is within 5 standard deviations of a
// Binomial(trials, p) mean. The keys are fixed, so the test is
// deterministic; 5σ leaves room for a change of key set.
func within5Sigma(count, trials int, p float64) (lo, hi float64, ok bool) {
	mean := float64(trials) * p
	sd := math.Sqrt(float64(trials) * p * (1 - p))
	lo, hi = mean-5*sd, mean+5*sd
	return lo, hi, float64(count) >= lo && float64(count) <= hi
}

func TestRouteMovesAboutOneOverNPlusOne(t *testing.T) {
	const keys = 20000
	for _, n := range []int{1, 2, 3, 7, 16, 100} {
		t.Run(fmt.Sprintf("n=%d", n), func(t *testing.T) {
			moved := 0
			for k := range keys {
				key := fmt.Sprint("user:", k)
				if route(key, n) != route(key, n+1) {
					moved++
				}
			}
			p := 1 / float64(n+1)
			if lo, hi, ok := within5Sigma(moved, keys, p); !ok {
				t.Errorf("%d→%d workers moved %d of %d keys; want within [%.0f, %.0f] (1/(n+1) = %.4f)", n, n+1, moved, keys, lo, hi, p)
			}
		})
	}
}

func TestRouteSpread(t *testing.T) {
	const keys = 50000
	for _, n := range []int{2, 5, 13, 64} {
		t.Run(fmt.Sprintf("n=%d", n), func(t *testing.T) {
			counts := make([]int, n)
			for k := range keys {
				counts[route(fmt.Sprintf("order-%08d", k), n)]++
			}
			for w, c := range counts {
				if lo, hi, ok := within5Sigma(c, keys, 1/float64(n)); !ok {
					t.Errorf("worker %d of %d got %d of %d keys; want within [%.0f, %.0f]", w, n, c, keys, lo, hi)
				}
			}
		})
	}
}

func TestHashKey(t *testing.T) {
	// mix64 is splitmix64's finalizer: its first output from seed 0 is
	// mix64(0x9e3779b97f4a7c15) = 0xe220a8397b1dcdaf.
	if got, want := mix64(0x9e3779b97f4a7c15), uint64(0xe220a8397b1dcdaf); got != want {
		t.Errorf("mix64(0x9e3779b97f4a7c15) = %#x; want %#x", got, want)
	}
	// HashKey is FNV-1a 64 then mix64: check against the standard library.
	for _, s := range []string{"", "a", "hello", "user:42", "ключ"} {
		h := fnv.New64a()
		h.Write([]byte(s))
		if got, want := HashKey(s), mix64(h.Sum64()); got != want {
			t.Errorf("HashKey(%q) = %#x; want %#x", s, got, want)
		}
	}
}

// TestRouteStable pins a few routes: they are part of the contract (stored
// routes must not move between versions), so a change here is a breaking
// change.
func TestRouteStable(t *testing.T) {
	cases := []struct {
		key     string
		workers int
		want    int
	}{
		{"alice", 4, 2},
		{"bob", 4, 2},
		{"carol", 10, 9},
		{"", 3, 0},
	}
	for _, c := range cases {
		if got := route(c.key, c.workers); got != c.want {
			t.Errorf("route(%q, %d) = %d; want %d", c.key, c.workers, got, c.want)
		}
	}
}

// route is a string key's owner among n workers, as the package doc
// routes keyed data: Jump of the key's fixed hash.
func route(key string, n int) int { return Jump(HashKey(key), n) }
