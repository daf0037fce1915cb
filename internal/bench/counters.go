package bench

import (
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/worksteal/worksteal"
)

// perIteration divides counts over n iterations by n.
func perIteration(c worksteal.Counters, n int) worksteal.Counters {
	if n <= 1 {
		return c
	}
	d := func(v uint64) uint64 { return v / uint64(n) }
	c.Instructions, c.Cycles = d(c.Instructions), d(c.Cycles)
	c.CacheReferences, c.CacheMisses, c.LLCMisses = d(c.CacheReferences), d(c.CacheMisses), d(c.LLCMisses)
	c.ContextSwitches, c.PageFaults = d(c.ContextSwitches), d(c.PageFaults)
	c.Joules /= float64(n)
	c.Elapsed /= time.Duration(n)
	return c
}

// writeCounters prints the counters of the cells that have them, one row
// per cell, "n/a" where a count was not read, and then, once, why.
func writeCounters(b *strings.Builder, cells []CellResult) {
	var reasons string
	any := false
	for _, c := range cells {
		if c.Counters != nil {
			any = true
			if reasons == "" {
				reasons = c.Counters.Reasons()
			}
		}
	}
	if !any {
		return
	}
	b.WriteString("\nCounters per timed iteration (whole process, user-space hardware events; --counters):\n")
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "workload\tsize\timpl\tworkers\tinstructions\tIPC\tcache-miss %%\tLLC misses\tctx switches\tpage faults\tjoules\t\n")
	for _, cr := range cells {
		c := cr.Counters
		if c == nil {
			continue
		}
		num := func(name string, v uint64) string {
			if !c.Has(name) {
				return "n/a"
			}
			return group(int64(v))
		}
		ipc, miss, joules := "n/a", "n/a", "n/a"
		if v, ok := c.IPC(); ok {
			ipc = fmt.Sprintf("%.2f", v)
		}
		if v, ok := c.CacheMissRate(); ok {
			miss = fmt.Sprintf("%.2f", 100*v)
		}
		if c.Has("energy") {
			joules = fmt.Sprintf("%.3f", c.Joules)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", cr.Workload, cr.Size, cr.Impl, cr.Workers,
			num("instructions", c.Instructions), ipc, miss, num("LLC-load-misses", c.LLCMisses),
			num("context-switches", c.ContextSwitches), num("page-faults", c.PageFaults), joules)
	}
	tw.Flush()
	if reasons != "" {
		b.WriteString("n/a:\n")
		for line := range strings.SplitSeq(reasons, "\n") {
			b.WriteString("  " + line + "\n")
		}
	}
}
