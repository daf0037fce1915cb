package par

import (
	"fmt"
	"testing"
	"time"

	"github.com/worksteal/worksteal"
)

// BenchmarkLoopProbe measures the probe (a loop's first chunk run as a
// lazy Join, with the rest of its range as the second half) on and off in
// one binary:
//
//   - size=10/work=tiny: what it costs a small loop that needs none of
//     it, per par.For call (1 worker: a loop of 10 increments);
//   - size=100/work=wait: what it gains a loop whose body waits (2
//     workers: 100 iterations, each a 2–8 ms wait in Blocking, then
//     200 µs of CPU) — without it, the first wait runs alone.
//
// Compare the rows with benchstat -col /probe.
func BenchmarkLoopProbe(b *testing.B) {
	defer func() { probing = true }()
	for _, on := range []bool{true, false} {
		probing = on
		b.Run(fmt.Sprintf("size=10/work=tiny/probe=%v", on), func(b *testing.B) {
			p := newTestPool(b, worksteal.Config{Workers: 1})
			var sink [10]int
			p.Do(func(w *worksteal.Worker) {
				for b.Loop() {
					For(w, 0, 10, func(_ *worksteal.Worker, i int) { sink[i]++ })
				}
			})
		})
		b.Run(fmt.Sprintf("size=100/work=wait/probe=%v", on), func(b *testing.B) {
			p := newTestPool(b, worksteal.Config{Workers: 2})
			for b.Loop() {
				p.Do(func(w *worksteal.Worker) {
					For(w, 0, 100, func(w *worksteal.Worker, i int) {
						w.Blocking(func() { time.Sleep(time.Duration(2+i*5%7) * time.Millisecond) })
						for t0 := time.Now(); time.Since(t0) < 200*time.Microsecond; {
						}
					})
				})
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/1e3/float64(b.N), "ms/op")
		})
	}
}
