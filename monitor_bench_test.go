package worksteal_test

import (
	"runtime"
	"testing"
	"time"

	"github.com/worksteal/worksteal"
)

// BenchmarkStallMonitorOversubscribed: what the stall monitor costs a
// pool running the bench suite's UTS tree (b0 = 6000, 4,317,473 nodes;
// many thieves on a near-critical tree), with the monitor on and off, at
// one worker and P per CPU (ps=cpus: 16 workers on a 16-core machine, issue
// 30's UTS case) and at eight per CPU (ps=8xcpus: GOMAXPROCS above the CPUs,
// as in a container that sees more CPUs than it may use, or with many
// such processes on one machine). With more Ps than CPUs each worker's
// thread waits for a CPU for many times StallAfter between two of its
// steps; a stack dump (dumps/op), which the monitor takes to tell a
// blocked worker from a running one, stops the world, for tens of
// milliseconds with many Ps on few CPUs.
//
//	go test -run '^$' -bench StallMonitorOversubscribed -benchtime 4x -count 6 .
func BenchmarkStallMonitorOversubscribed(b *testing.B) {
	op := suiteOp(b, "uts", "6000", 1)
	for _, ps := range []struct {
		name  string
		procs int
	}{{"ps=cpus", runtime.NumCPU()}, {"ps=8xcpus", 8 * runtime.NumCPU()}} {
		b.Run(ps.name, func(b *testing.B) {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(ps.procs))
			for _, c := range []struct {
				name  string
				after time.Duration
			}{{"monitor=on", 0}, {"monitor=off", -1}} {
				b.Run(c.name, func(b *testing.B) {
					p, err := worksteal.New(worksteal.Config{Workers: ps.procs, StallAfter: c.after})
					if err != nil {
						b.Fatal(err)
					}
					defer p.Close()
					op(p) // warm-up: the workers' stacks grown
					d0 := worksteal.MonitorDumps(p)
					for b.Loop() {
						op(p)
					}
					b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/op")
					b.ReportMetric(float64(worksteal.MonitorDumps(p)-d0)/float64(b.N), "dumps/op")
				})
			}
		})
	}
}
