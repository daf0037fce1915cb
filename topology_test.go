//go:build linux

package worksteal

import (
	"fmt"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/worksteal/worksteal/policy"
)

func TestCacheGroups(t *testing.T) {
	cpus, err := allowedCPUs()
	if err != nil {
		t.Fatalf("allowedCPUs: %v", err)
	}
	llc := map[int]string{} // the cache each CPU's group is keyed by
	for _, c := range cpus {
		if llc[c], err = llcKey(c); err != nil {
			t.Fatalf("llcKey(%d): %v", c, err)
		}
	}
	t.Logf("allowed CPUs %v, last-level caches %v", cpus, llc)
	sizes := []int{1, 2, 3, len(cpus), 2*len(cpus) + 1, 64}
	slices.Sort(sizes)
	for _, n := range slices.Compact(sizes) {
		t.Run(fmt.Sprintf("workers=%d", n), func(t *testing.T) {
			g, err := cacheGroups(n)
			if err != nil {
				t.Fatalf("cacheGroups(%d): %v", n, err)
			}
			if g.Len() < 1 || g.Len() > n {
				t.Fatalf("cacheGroups(%d).Len() = %d; want 1..%d", n, g.Len(), n)
			}
			members := 0
			for x := range g.Len() {
				m := g.Members(x)
				if len(m) == 0 {
					t.Errorf("group %d is empty", x)
				}
				for _, w := range m {
					if g.Of(w) != x {
						t.Errorf("worker %d is a member of group %d but Of says %d", w, x, g.Of(w))
					}
				}
				members += len(m)
			}
			if members != n {
				t.Errorf("groups hold %d workers; want every one of %d exactly once", members, n)
			}
			for w := range n {
				if x := g.Of(w); x < 0 || x >= g.Len() {
					t.Errorf("worker %d is in group %d; want 0..%d", w, x, g.Len()-1)
				}
				// Worker w is associated with CPU cpus[w % len(cpus)]: same
				// CPU, same group; same last-level cache, same group.
				if v := w + len(cpus); v < n && g.Of(v) != g.Of(w) {
					t.Errorf("workers %d and %d share CPU %d but are in groups %d and %d", w, v, cpus[w%len(cpus)], g.Of(w), g.Of(v))
				}
				for v := range n {
					kw, kv := llc[cpus[w%len(cpus)]], llc[cpus[v%len(cpus)]]
					if (kw == kv) != (g.Of(w) == g.Of(v)) {
						t.Errorf("workers %d, %d: LLC %q, %q but groups %d, %d", w, v, kw, kv, g.Of(w), g.Of(v))
					}
				}
			}
		})
	}
}

func TestTopologyPools(t *testing.T) {
	defer watchdog(t)()
	n := 20
	if testing.Short() {
		n = 16
	}
	want := fibSeq(n)

	t.Run("CacheGroups with Locality runs fib", func(t *testing.T) {
		for _, amount := range []policy.Amount{policy.StealOne, policy.StealHalf} {
			p := newTestPool(t, Config{Workers: 4, CacheGroups: true, Victim: policy.Locality, Steal: amount})
			if g := p.Config().Groups; g == nil || g.Len() < 1 {
				t.Fatalf("Config().Groups = %v; want groups derived from the cache topology", g)
			}
			if got, err := Run(p, func(w *Worker) int { return fibJoin(w, n) }); got != want || err != nil {
				t.Fatalf("%v: fib(%d) = %d, %v; want %d", amount, n, got, err, want)
			}
		}
	})

	t.Run("explicit Groups win over CacheGroups", func(t *testing.T) {
		g := policy.EvenGroups(4, 1)
		p := newTestPool(t, Config{Workers: 4, CacheGroups: true, Groups: g, Victim: policy.Locality})
		if p.Config().Groups != g {
			t.Errorf("Config().Groups was replaced; want the Groups passed in")
		}
	})

	t.Run("Pin runs fib with each worker on its CPU", func(t *testing.T) {
		cpus, err := allowedCPUs()
		if err != nil {
			t.Fatal(err)
		}
		const workers = 2
		p := newTestPool(t, Config{Workers: workers, Pin: true})
		if got, err := Run(p, func(w *Worker) int { return fibJoin(w, n) }); got != want || err != nil {
			t.Fatalf("fib(%d) = %d, %v; want %d", n, got, err, want)
		}
		// One task per worker at once (a barrier), each reading the
		// affinity of the thread it runs on.
		var arrived atomic.Int32
		all := make(chan struct{})
		masks := make(chan [2]any, workers)
		for range workers {
			mustSubmit(t, p, func(w *Worker) {
				if arrived.Add(1) == workers {
					close(all)
				}
				<-all
				mine, err := allowedCPUs()
				if err != nil {
					mine = nil
				}
				masks <- [2]any{w.ID(), mine}
			})
		}
		for range workers {
			m := <-masks
			id, mine := m[0].(int), m[1].([]int)
			if wantCPU := cpus[id%len(cpus)]; !slices.Equal(mine, []int{wantCPU}) {
				t.Errorf("worker %d runs on a thread with affinity %v; want [%d]", id, mine, wantCPU)
			}
		}
		// The test's own thread is not pinned.
		if mine, _ := allowedCPUs(); !slices.Equal(mine, cpus) {
			t.Errorf("after New(Pin) the test goroutine's thread has affinity %v; want %v", mine, cpus)
		}
	})
}
