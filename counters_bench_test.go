package worksteal_test

import (
	"testing"

	"github.com/worksteal/worksteal"
	"github.com/worksteal/worksteal/internal/bench"
	"github.com/worksteal/worksteal/policy"
)

// BenchmarkCacheMissesByStealAmount runs the anchor UTS tree (b0 = 2000)
// on 2 workers with steal-half and with steal-one, counting the process
// (Config.Counters): the cache-miss rate and LLC misses per node say how
// much each policy's steals cost in cache traffic (a steal-half thief
// takes a batch of neighbouring subtrees whose nodes its victim just
// touched). Where the machine has no PMU the hardware metrics are not
// reported, and the log says why; the context switches (parks and wakes)
// are reported either way.
func BenchmarkCacheMissesByStealAmount(b *testing.B) {
	body, err := bench.Body("uts", "2000")
	if err != nil {
		b.Fatal(err)
	}
	for _, amt := range []policy.Amount{policy.StealHalf, policy.StealOne} {
		b.Run(amt.String(), func(b *testing.B) {
			p, err := worksteal.New(worksteal.Config{Workers: 2, Steal: amt, Counters: true})
			if err != nil {
				b.Fatal(err)
			}
			defer p.Close()
			var nodes uint64
			before := p.Stats()
			for b.Loop() {
				r, err := worksteal.Run(p, body)
				if err != nil {
					b.Fatal(err)
				}
				nodes += r.Value
			}
			d := p.Stats().Sub(before)
			c := d.Counters
			if rate, ok := c.CacheMissRate(); ok {
				b.ReportMetric(100*rate, "cache-miss-%")
			}
			if c.Has("LLC-load-misses") && nodes > 0 {
				b.ReportMetric(float64(c.LLCMisses)/float64(nodes), "LLC-misses/node")
			}
			if ipc, ok := c.IPC(); ok {
				b.ReportMetric(ipc, "IPC")
			}
			b.ReportMetric(float64(c.ContextSwitches)/float64(b.N), "ctx-switches/op")
			b.ReportMetric(float64(d.Total().Stolen)/float64(b.N), "stolen/op")
			if r := c.Reasons(); r != "" {
				b.Logf("not measured here:\n%s", r)
			}
		})
	}
}
